import Events

/// Remembers the most recent event identities (CloudEvents `source` + `id`) so that a
/// redelivered event is recognised and suppressed.
///
/// Bounded twice: by how many identities it keeps (`capacity`) and by their bytes (`maxBytes`,
/// the source's and the id's UTF-8 bytes together). Whichever bound a new identity would pass,
/// the oldest identities are forgotten first, until it fits. Redis redelivers an entry after a
/// reconnect or a claim, which happens within seconds of the first delivery, so a window of
/// tens of thousands of events covers it with a wide margin. Memory: at most `maxBytes` of
/// identities in an arena of at most twice that (or the first arena, when it is larger), plus
/// some 50 bytes per remembered identity for its entry and table slots.
///
/// Identities are compared byte for byte, so the answer is exact. Every event comes through
/// here and a full window is several megabytes, so the layout is about cache misses:
/// - An identity is hashed once into a 64-bit fingerprint. The table holds fingerprints next
///   to positions in the ring, so a probe reads one cache line and compares no bytes; bytes
///   are compared only when fingerprints are equal.
/// - The identities' bytes lie in one circular arena, written in arrival order. Remembering an
///   identity allocates nothing, and forgetting one touches neither its bytes nor the heap (a
///   `String` per identity cost an allocation, and a free of memory gone cold by then).
/// - The oldest identity's slot is found by its fingerprint and position, without its bytes.
///
/// `package`, not public: the benchmark measures it against a window built on `Set`.
package final class DeduplicationWindow: Sendable {
    /// A remembered identity: its fingerprint, and where its bytes (source, then id) begin in
    /// the arena.
    private struct Entry {
        var fingerprint: UInt64
        var start: Int
        /// 32 bits each keep an entry at 24 bytes: the window never remembers an identity
        /// longer than `maxBytes`, which is at most `UInt32.max`.
        var sourceBytes: UInt32
        var idBytes: UInt32

        var sourceLength: Int { Int(sourceBytes) }
        var idLength: Int { Int(idBytes) }
        var length: Int { sourceLength + idLength }
    }

    /// A table slot in one word: the fingerprint's low 32 bits (which hold its home slot's
    /// index, and tell most identities apart without reading their entries) above the position
    /// in the ring plus one. Zero: empty. Eight bytes a slot keeps a full table small enough to
    /// stay mostly in cache.
    private struct Slot {
        var word: UInt64 = 0

        init() {}

        init(fingerprint: UInt64, position: Int) {
            word = fingerprint << 32 | UInt64(position + 1)
        }

        var isEmpty: Bool { word == 0 }
        /// The low half of the fingerprint, shifted up as stored.
        var tag: UInt64 { word >> 32 }
        var position: Int { Int(truncatingIfNeeded: word & 0xFFFF_FFFF) - 1 }
    }

    /// An open-addressing table with linear probing, the ring of entries and their arena.
    private struct State {
        var table: [Slot]
        /// The remembered identities by position: `live` of them from `oldest` on, wrapping
        /// around once the ring has grown to the window's capacity. Until then entries are
        /// appended, and those before `oldest` are forgotten ones.
        var entries: [Entry] = []
        var oldest = 0
        var live = 0
        /// The bytes of the live identities.
        var storedBytes = 0
        /// The identities' bytes. The live ones run from the oldest entry's start to `tail`,
        /// wrapping around to the beginning when they reach the end.
        var arena: [UInt8]
        var tail = 0

        init(slotCount: Int, arenaSize: Int) {
            table = Array(repeating: Slot(), count: slotCount)
            arena = Array(repeating: 0, count: arenaSize)
        }

        /// The position of the entry `offset` places after the oldest live one.
        func position(after offset: Int) -> Int {
            let position = oldest + offset
            return position < entries.count ? position : position - entries.count
        }

        var mask: Int { table.count - 1 }

        /// Where a fingerprint's probe sequence starts: its low bits (the fingerprint comes from
        /// `Hasher`, whose bits are equally good), which its slot's tag keeps.
        func home(_ fingerprint: UInt64) -> Int { Int(truncatingIfNeeded: fingerprint) & mask }

        /// The slot holding this identity, or the empty slot that ends its probe sequence.
        func find(
            _ fingerprint: UInt64, _ source: UnsafeBufferPointer<UInt8>, _ id: UnsafeBufferPointer<UInt8>
        ) -> (slot: Int, found: Bool) {
            var slot = home(fingerprint)
            while true {
                let candidate = table[slot]
                if candidate.isEmpty { return (slot, false) }
                if candidate.tag == fingerprint & 0xFFFF_FFFF, entries[candidate.position].fingerprint == fingerprint,
                    holds(candidate.position, source, id)
                {
                    return (slot, true)
                }
                slot = (slot + 1) & mask
            }
        }

        /// Whether the entry at `position` is this identity.
        func holds(_ position: Int, _ source: UnsafeBufferPointer<UInt8>, _ id: UnsafeBufferPointer<UInt8>) -> Bool {
            let entry = entries[position]
            guard entry.sourceLength == source.count, entry.idLength == id.count else { return false }
            return arena.withUnsafeBufferPointer { bytes in
                let arena = CheckedBytes(bytes)
                let sourceEnd = entry.start + source.count
                return arena.bytes(entry.start..<sourceEnd, equal: source)
                    && arena.bytes(sourceEnd..<sourceEnd + id.count, equal: id)
            }
        }

        /// The first empty slot of a probe sequence, for an identity known to be absent.
        func emptySlot(for fingerprint: UInt64) -> Int {
            var slot = home(fingerprint)
            while !table[slot].isEmpty { slot = (slot + 1) & mask }
            return slot
        }

        /// The slot of the entry at `position`, found by its fingerprint and position alone.
        func slot(of position: Int) -> Int {
            var slot = home(entries[position].fingerprint)
            while table[slot].position != position { slot = (slot + 1) & mask }
            return slot
        }

        /// Empties `slot`, moving later members of its cluster back so that no probe sequence
        /// is cut short (deletion without tombstones).
        mutating func clear(_ slot: Int) {
            var hole = slot
            var next = slot
            while true {
                next = (next + 1) & mask
                guard !table[next].isEmpty else { break }
                // The member at `next` may fill the hole unless its home lies cyclically in
                // (hole, next]: then the hole is before its home, and moving it would hide it.
                let home = home(table[next].tag)
                let homeAfterHole = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
                if homeAfterHole { continue }
                table[hole] = table[next]
                hole = next
            }
            table[hole] = Slot()
        }

        /// Doubles the table and places every live entry again.
        mutating func growTable() {
            table = Array(repeating: Slot(), count: table.count * 2)
            for offset in 0..<live {
                let position = position(after: offset)
                let fingerprint = entries[position].fingerprint
                table[emptySlot(for: fingerprint)] = Slot(fingerprint: fingerprint, position: position)
            }
        }

        /// Forgets the oldest live identity.
        mutating func forgetOldest(capacity: Int) {
            clear(slot(of: oldest))
            storedBytes -= entries[oldest].length
            live -= 1
            oldest += 1
            if oldest == capacity { oldest = 0 }
        }

        /// Copies an identity's bytes into the arena, at most `arenaLimit` bytes long unless it is
        /// already longer, and returns its entry.
        mutating func store(
            _ fingerprint: UInt64, _ source: UnsafeBufferPointer<UInt8>, _ id: UnsafeBufferPointer<UInt8>,
            arenaLimit: Int
        ) -> Entry {
            let length = source.count + id.count
            let start =
                place(length, head: live > 0 ? entries[oldest].start : nil)
                ?? compactArena(adding: length, limit: arenaLimit)
            precondition(start >= 0 && length <= arena.count - start, "an identity placed outside the arena")
            arena.withUnsafeMutableBufferPointer { bytes in
                _ = UnsafeMutableBufferPointer(rebasing: bytes[start..<start + source.count]).initialize(from: source)
                _ = UnsafeMutableBufferPointer(rebasing: bytes[start + source.count..<start + length]).initialize(
                    from: id)
            }
            tail = start + length
            storedBytes += length
            // Exact: the caller checked both lengths are within `maxBytes`, so within 32 bits.
            return Entry(
                fingerprint: fingerprint, start: start, sourceBytes: UInt32(truncatingIfNeeded: source.count),
                idBytes: UInt32(truncatingIfNeeded: id.count))
        }

        /// Where `length` free bytes follow the newest identity's, or nil when the arena has no
        /// such room. `head` is where the oldest live identity begins (nil: none is live).
        func place(_ length: Int, head: Int?) -> Int? {
            guard let head else { return length <= arena.count ? 0 : nil }
            if head < tail {
                // Live bytes in one run, [head, tail): room after them, or else before them.
                if tail + length <= arena.count { return tail }
                return length <= head ? 0 : nil
            }
            // Wrapped: the room is between the newest bytes and the oldest.
            return tail + length <= head ? tail : nil
        }

        /// Moves the live identities to the front of an arena with room for twice them and the
        /// new one (but no larger than `limit`, unless it is already), and returns where the new
        /// one goes. Leaving half the arena free keeps this rare: while identities keep about the
        /// same length, the free half always has room for the next one at one end or the other.
        /// The caller keeps the live bytes and the new ones within half the limit, so that
        /// holds at the limit too.
        mutating func compactArena(adding length: Int, limit: Int) -> Int {
            let needed = storedBytes + length
            var size = max(arena.count, 64)
            while size < needed || (size / 2 < needed && size < limit) { size *= 2 }
            size = max(min(size, max(limit, arena.count)), needed)
            var compacted = [UInt8](repeating: 0, count: size)
            var end = 0
            compacted.withUnsafeMutableBufferPointer { target in
                arena.withUnsafeBufferPointer { source in
                    let source = CheckedBytes(source)
                    for offset in 0..<live {
                        let position = position(after: offset)
                        let entry = entries[position]
                        precondition(entry.length <= target.count - end, "live identities larger than the arena")
                        _ = UnsafeMutableBufferPointer(rebasing: target[end..<end + entry.length]).initialize(
                            from: source.buffer(entry.start..<entry.start + entry.length))
                        entries[position].start = end
                        end += entry.length
                    }
                }
            }
            arena = compacted
            return end
        }
    }

    private let capacity: Int
    /// The most bytes of identities remembered at once; at most `UInt32.max`.
    let maxBytes: Int
    /// The largest the arena grows: twice `maxBytes`, room for the live identities and as many
    /// again.
    private let arenaLimit: Int
    /// A test's fingerprint in place of `hash`, or nil.
    private let fingerprint: (@Sendable (String, String) -> UInt64)?
    private let lock = Lock()
    // Guarded by `lock`, which also makes every access exclusive, so the run-time exclusivity
    // checks can never fail. They are off because every received event pays them many times:
    // the window's probing touches the state on each step, and the checks are measurable.
    @exclusivity(unchecked) nonisolated(unsafe) private var state: State

    /// A window of at most `capacity` identities and `maxBytes` bytes of them (16 MiB by
    /// default, 4 GiB at most). `fingerprint` and `arenaSize` (the bytes for identities to start with) are for
    /// tests, which need collisions and a full arena.
    package init(
        capacity: Int,
        maxBytes: Int = 16 * 1024 * 1024,
        fingerprint: (@Sendable (_ source: String, _ id: String) -> UInt64)? = nil,
        arenaSize: Int = 1024
    ) {
        precondition(capacity > 0, "the deduplication window needs room for at least one event")
        precondition(capacity < Int(Int32.max) / 2, "the deduplication window is too large")
        self.capacity = capacity
        // Beyond any sensible window, and small enough that an identity's lengths fit an entry's
        // 32 bits.
        self.maxBytes = min(max(maxBytes, 1), Int(UInt32.max))
        arenaLimit = 2 * self.maxBytes
        self.fingerprint = fingerprint
        state = State(slotCount: 64, arenaSize: max(arenaSize, 0))
    }

    /// Records the event and tells whether this is the first time it was seen.
    ///
    /// An identity longer than `maxBytes` cannot be remembered: it counts as a first sighting
    /// every time, and the window forgets nothing for it. The bridge refuses such identities
    /// before they come here (its window is always large enough for the longest it accepts).
    package func recordFirstSighting(source: String, id: String) -> Bool {
        var source = source
        var id = id
        return source.withUTF8 { source in
            id.withUTF8 { id in recordFirstSighting(sourceUTF8: source, idUTF8: id) }
        }
    }

    /// Records the event whose identity is these UTF-8 bytes, and tells whether this is the
    /// first time it was seen.
    func recordFirstSighting(sourceUTF8 source: UnsafeBufferPointer<UInt8>, idUTF8 id: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        let fingerprint =
            fingerprint.map { $0(String(decoding: source, as: UTF8.self), String(decoding: id, as: UTF8.self)) }
            ?? Self.hash(sourceUTF8: source, idUTF8: id)
        return lock.withLock { record(fingerprint, source, id) }
    }

    private func record(_ fingerprint: UInt64, _ source: UnsafeBufferPointer<UInt8>, _ id: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        let (slot, found) = state.find(fingerprint, source, id)
        guard !found else { return false }
        // Compared without adding, so that no length can overflow.
        guard source.count <= maxBytes, id.count <= maxBytes - source.count else { return true }
        let length = source.count + id.count
        // Forget the oldest identities until the new one fits both bounds.
        var forgot = false
        while state.live > 0, state.live == capacity || state.storedBytes > maxBytes - length {
            state.forgetOldest(capacity: capacity)
            forgot = true
        }
        let entry = state.store(fingerprint, source, id, arenaLimit: arenaLimit)
        // After the newest: appended while the ring is still growing, in place of a forgotten
        // entry once it has reached the capacity.
        let next = state.oldest + state.live
        let position = next < capacity ? next : next - capacity
        if position == state.entries.count {
            state.entries.append(entry)
        } else {
            state.entries[position] = entry
        }
        state.live += 1
        // Clearing may have moved members of the new identity's cluster: then look again.
        state.table[forgot ? state.emptySlot(for: fingerprint) : slot] = Slot(
            fingerprint: fingerprint, position: position)
        // At most half full, so that probe sequences stay short.
        if state.live * 2 > state.table.count { state.growTable() }
        return true
    }

    /// Forgets the identity, when it is remembered: the next event with it is a first sighting
    /// again. For an event whose listeners failed, which must get through when it comes back.
    ///
    /// The entry stays in the ring until it is the oldest, as every entry does; only the high
    /// bit of its full fingerprint is flipped, so that no lookup matches it any more. The table
    /// slot keeps the low half (home slot and tag), so the entry is still found by position when
    /// it ages out, and the table never sees a hole.
    func forget(sourceUTF8 source: UnsafeBufferPointer<UInt8>, idUTF8 id: UnsafeBufferPointer<UInt8>) {
        let fingerprint =
            fingerprint.map { $0(String(decoding: source, as: UTF8.self), String(decoding: id, as: UTF8.self)) }
            ?? Self.hash(sourceUTF8: source, idUTF8: id)
        lock.withLock {
            let (slot, found) = state.find(fingerprint, source, id)
            guard found else { return }
            state.entries[state.table[slot].position].fingerprint ^= 1 << 63
        }
    }

    /// Forgets the identity (see ``forget(sourceUTF8:idUTF8:)``).
    package func forget(source: String, id: String) {
        var source = source
        var id = id
        source.withUTF8 { source in id.withUTF8 { id in forget(sourceUTF8: source, idUTF8: id) } }
    }

    /// How many identities are remembered.
    var count: Int { lock.withLock { state.live } }

    /// How many bytes the remembered identities hold (never more than `maxBytes`).
    var storedBytes: Int { lock.withLock { state.storedBytes } }

    /// How many bytes the arena of identities has allocated.
    var arenaBytes: Int { lock.withLock { state.arena.count } }

    /// The remembered identities, oldest first, read back from the arena: for tests, which check
    /// that storing new identities never overwrites the bytes of live ones.
    var remembered: [(source: String, id: String)] {
        lock.withLock {
            (0..<state.live).map { offset in
                let entry = state.entries[state.position(after: offset)]
                let bytes = state.arena[entry.start..<entry.start + entry.length]
                return (
                    String(decoding: bytes.prefix(entry.sourceLength), as: UTF8.self),
                    String(decoding: bytes.dropFirst(entry.sourceLength), as: UTF8.self)
                )
            }
        }
    }

    /// `Hasher` is seeded at random per process, so that a remote sender cannot choose ids that
    /// collide. The bytes are hashed, as they are compared: the source's length first, so that
    /// no other split of the same bytes hashes alike.
    package static func hash(source: String, id: String) -> UInt64 {
        var source = source
        var id = id
        return source.withUTF8 { source in id.withUTF8 { id in hash(sourceUTF8: source, idUTF8: id) } }
    }

    static func hash(sourceUTF8 source: UnsafeBufferPointer<UInt8>, idUTF8 id: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(source.count)
        hasher.combine(bytes: UnsafeRawBufferPointer(source))
        hasher.combine(bytes: UnsafeRawBufferPointer(id))
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}
