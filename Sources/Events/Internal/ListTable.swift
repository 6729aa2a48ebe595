/// A map from event key to list: the registry's lists (`ListenerList`) and each read stripe's
/// copies of them (`ContiguousArray<ListenerRecord>`).
///
/// Typed keys, looked up by every dispatch, live in an open-addressing table hashed with one
/// multiplication of the metatype's address, instead of the SipHash a `Dictionary` runs, which
/// would weigh on a dispatch to few listeners. A typed key keeps its
/// slot once placed (its list may become nil), so there are no tombstones; the table only grows,
/// bounded by the number of event types ever listened to. Names go to a plain `Dictionary`.
///
/// The slots live in a buffer of the table's own rather than an array, and the table cannot be
/// copied: each listen and cancel changes a slot in place, and an array checks that its storage
/// is unshared on every such change.
struct ListTable<List>: ~Copyable {
    private struct Slot {
        var id: ObjectIdentifier?
        var list: List?
    }

    private var slots: UnsafeMutableBufferPointer<Slot>
    private var used = 0
    private var named: [EventKey: List] = [:]

    init() {
        slots = .allocate(capacity: 16)
        slots.initialize(repeating: Slot())
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    subscript(key: EventKey) -> List? {
        get {
            guard case .type(let id) = key else { return named[key] }
            guard let index = index(of: id) else { return nil }
            return slots[index].list
        }
        _modify {
            if case .type(let id) = key {
                let index = claimIndex(of: id)
                yield &slots[index].list
            } else {
                yield &named[key]
            }
        }
    }

    /// Runs `body` on the list of `key` (nil when there is none), to read it in place.
    ///
    /// Where `List` is a struct, the getter copies the whole value (retaining each of its
    /// references) before the caller picks the part it wants; `body` borrows it instead.
    @inline(__always)
    func peek<T>(_ key: EventKey, _ body: (borrowing List?) -> T) -> T {
        guard case .type(let id) = key else { return body(named[key]) }
        guard let index = index(of: id) else { return body(nil) }
        return body(slots[index].list)
    }

    /// Runs `body` on the list of `key` (nil when there is none), to read and change it in place.
    ///
    /// The same as `body(&self[key])`, without the `_modify` coroutine: its frame is allocated
    /// on the heap, which would add a heap allocation to every listen and cancel.
    mutating func modify<T>(_ key: EventKey, _ body: (inout List?) -> T) -> T {
        guard case .type(let id) = key else { return body(&named[key]) }
        // The lookup inlined, the placement of a new key not: every listen and cancel comes here.
        let index = self.index(of: id) ?? claimIndex(of: id)
        return body(&slots[index].list)
    }

    /// Every non-empty list with its key.
    var all: [(key: EventKey, list: List)] {
        var result: [(key: EventKey, list: List)] = []
        for slot in slots {
            if let id = slot.id, let list = slot.list { result.append((.type(id), list)) }
        }
        for (key, list) in named { result.append((key, list)) }
        return result
    }

    @inline(__always)
    private func home(of id: ObjectIdentifier) -> Int {
        // Fibonacci hashing: the high bits of the product mix every bit of the address.
        let mixed = UInt(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> UInt(UInt.bitWidth - slots.count.trailingZeroBitCount))
    }

    // Inlined into dispatch's stripe lookup, which calls it on every dispatch.
    @inline(__always)
    private func index(of id: ObjectIdentifier) -> Int? {
        let mask = slots.count - 1
        var index = home(of: id)
        while let occupant = slots[index].id {
            if occupant == id { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    /// The slot of `id`, placing it first if needed (growing the table at 3/4 load).
    private mutating func claimIndex(of id: ObjectIdentifier) -> Int {
        if let index = index(of: id) { return index }
        if (used + 1) * 4 > slots.count * 3 { grow() }
        let mask = slots.count - 1
        var index = home(of: id)
        while slots[index].id != nil { index = (index + 1) & mask }
        slots[index].id = id
        used += 1
        return index
    }

    private mutating func grow() {
        let old = slots
        slots = .allocate(capacity: old.count * 2)
        slots.initialize(repeating: Slot())
        used = 0
        for slot in old {
            guard let id = slot.id else { continue }
            let index = claimIndex(of: id)
            slots[index].list = slot.list
        }
        old.deinitialize()
        old.deallocate()
    }
}
