import Synchronization

/// One event key's listeners in the registry, in delivery order, with a version that changes on
/// every mutation (so an optimistic check-then-insert can tell whether it raced with another change).
///
/// Entries are unretained: the list holds a reference only to records that are
/// ``ListenerRecord/isKeptByList`` (it took one when inserting them and gives it back when
/// dropping them); every other record is kept alive by its subscription, which removes it from
/// the list before releasing it. So every record in a list is alive while the registry lock is
/// held, and readers retain what they copy out under that lock.
///
/// Touched only under the registry lock, and never handed out: readers get copies. That is why
/// it is a class with a buffer of its own rather than an array. Every listen and cancel changes a
/// list in place, and an array's copy-on-write bookkeeping (a uniqueness check, a capacity check
/// and an end-of-mutation call each time) is paid on every one of them.
final class ListenerList {
    private(set) var count = 0
    private var capacity: Int
    private var base: UnsafeMutablePointer<Unmanaged<ListenerRecord>>
    var version: UInt64
    /// The read stripes that cache a copy of this list (bit i: stripe i), to invalidate on change.
    var cachedStripes: UInt32 = 0

    init(capacity: Int = 4, version: UInt64 = 0) {
        self.capacity = max(capacity, 1)
        self.base = .allocate(capacity: self.capacity)
        self.version = version
    }

    deinit {
        // `Unmanaged` is a trivial type: there is nothing to deinitialize, only memory to free.
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The stripes that cached a copy of this list, forgotten here: the caller is changing the
    /// list, and drops those copies.
    func takeCachedStripes() -> UInt32 {
        defer { cachedStripes = 0 }
        return cachedStripes
    }

    /// Ends `entry`'s place in a list: returns the list's reference (for a record the list
    /// keeps), to release after unlocking, and marks the record unlisted as the registry's last
    /// touch of it (after that, its subscription may free it). Call with the registry lock held.
    static func unlist(_ entry: Unmanaged<ListenerRecord>) -> ListenerRecord? {
        entry._withUnsafeGuaranteedRef { record in
            let listReference = record.isKeptByList ? entry.takeRetainedValue() : nil
            record.listed.store(false, ordering: .releasing)
            return listReference
        }
    }

    /// The entries, valid until the list next changes; use with the registry lock held.
    var entries: UnsafeBufferPointer<Unmanaged<ListenerRecord>> { UnsafeBufferPointer(start: base, count: count) }

    /// The records, retained, for a reader to use after unlocking. Call with the registry lock held.
    var records: ContiguousArray<ListenerRecord> {
        var records = ContiguousArray<ListenerRecord>()
        records.reserveCapacity(count)
        for entry in entries { records.append(entry.takeUnretainedValue()) }
        return records
    }

    /// Inserts keeping the order: higher priority first, ties in registration order (by
    /// ascending sequence for named listeners; typed listeners all have sequence 0, so a new one
    /// goes after every listener of its priority). Takes a reference for the list when the
    /// record is kept by it.
    func insert(_ record: ListenerRecord) {
        let entry = record.isKeptByList ? Unmanaged.passRetained(record) : Unmanaged.passUnretained(record)
        // The usual case without reading any priority: a listener without details (a typed one at
        // the default priority) goes after a last listener without details.
        if record.details == nil, count > 0, base[count - 1]._withUnsafeGuaranteedRef({ $0.details == nil }) {
            insert(entry, at: count)
            return
        }
        let priority = record.priority
        let sequence = record.sequence
        func runsBefore(_ other: Unmanaged<ListenerRecord>) -> Bool {
            other._withUnsafeGuaranteedRef { other in
                other.priority > priority || (other.priority == priority && other.sequence <= sequence)
            }
        }
        // Usually the new listener runs last: append without searching.
        guard count > 0, !runsBefore(base[count - 1]) else {
            insert(entry, at: count)
            return
        }
        // Binary search for the first element that must run after `record`.
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if runsBefore(base[mid]) { low = mid + 1 } else { high = mid }
        }
        insert(entry, at: low)
    }

    @inline(__always)
    private func insert(_ entry: Unmanaged<ListenerRecord>, at index: Int) {
        if count == capacity { grow() }
        if index < count { (base + index + 1).moveInitialize(from: base + index, count: count - index) }
        (base + index).initialize(to: entry)
        count += 1
    }

    private func grow() {
        let larger = UnsafeMutablePointer<Unmanaged<ListenerRecord>>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// Takes out the entry of `record`, searching from the newest (usually the one to go, and
    /// then nothing moves). Returns it, or nil when the record is not in this list. Finding it
    /// compares addresses only.
    @inline(__always)
    func remove(_ record: ListenerRecord) -> Unmanaged<ListenerRecord>? {
        let target = Unmanaged.passUnretained(record).toOpaque()
        var index = count - 1
        while index >= 0, base[index].toOpaque() != target { index -= 1 }
        guard index >= 0 else { return nil }
        let removed = base[index]
        count -= 1
        if index < count { (base + index).moveInitialize(from: base + index + 1, count: count - index) }
        return removed
    }

    /// Takes out every entry whose record no longer belongs in the list (see
    /// ``ListenerRecord/belongsInList``), keeping the order of the others, and returns them (the
    /// caller unlists them).
    func removeInactive() -> [Unmanaged<ListenerRecord>] {
        var dropped: [Unmanaged<ListenerRecord>] = []
        var kept = 0
        for index in 0..<count {
            let entry = base[index]
            if entry._withUnsafeGuaranteedRef({ $0.belongsInList }) {
                base[kept] = entry
                kept += 1
            } else {
                dropped.append(entry)
            }
        }
        count = kept
        return dropped
    }
}

/// Records taken out of the registry's lists, to let go of after unlocking: the references the
/// lists held, and the stripes' copies. Either may be the last reference to a handler's
/// captures, whose deinitializers are user code, which never runs under the registry lock.
struct Released {
    var records: [ListenerRecord] = []
    var copies: [ContiguousArray<ListenerRecord>] = []

    /// Takes `entry` out of a list for good (see ``ListenerList/unlist(_:)``), keeping the list's
    /// reference, if it held one, for release after unlocking.
    mutating func unlist(_ entry: Unmanaged<ListenerRecord>) {
        if let listReference = ListenerList.unlist(entry) { records.append(listReference) }
    }
}
