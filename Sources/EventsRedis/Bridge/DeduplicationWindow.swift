import Events

/// Remembers the most recent event identities (CloudEvents `source` + `id`) so that a
/// redelivered event is recognised and suppressed.
///
/// Bounded: once full, the oldest identity is forgotten first. Redis redelivers an entry after a
/// reconnect or a claim, which happens within seconds of the first delivery, so a window of
/// tens of thousands of events covers it with a wide margin.
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
        var sourceLength: Int32
        var idLength: Int32

        var length: Int { Int(sourceLength) + Int(idLength) }
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
        /// The remembered identities by position; once full, `oldest` is overwritten next.
        var entries: [Entry] = []
        var oldest = 0
        /// The identities' bytes. The live ones run from the oldest entry's start to `tail`,
        /// wrapping around to the beginning when they reach the end.
        var arena: [UInt8]
        var tail = 0

        init(slotCount: Int, arenaSize: Int) {
            table = Array(repeating: Slot(), count: slotCount)
            arena = Array(repeating: 0, count: arenaSize)
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
                let sourceEnd = entry.start + source.count
                return UnsafeBufferPointer(rebasing: bytes[entry.start..<sourceEnd]).hasSameBytes(as: source)
                    && UnsafeBufferPointer(rebasing: bytes[sourceEnd..<sourceEnd + id.count]).hasSameBytes(as: id)
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

        /// Doubles the table and places every entry again.
        mutating func growTable() {
            table = Array(repeating: Slot(), count: table.count * 2)
            for (index, entry) in entries.enumerated() {
                table[emptySlot(for: entry.fingerprint)] = Slot(fingerprint: entry.fingerprint, position: index)
            }
        }

        /// Copies an identity's bytes into the arena and returns its entry. The live entries are
        /// `liveCount` positions from `first` on, in age order.
        mutating func store(
            _ fingerprint: UInt64, _ source: UnsafeBufferPointer<UInt8>, _ id: UnsafeBufferPointer<UInt8>,
            liveFrom first: Int, liveCount: Int
        ) -> Entry {
            let length = source.count + id.count
            let start =
                place(length, head: liveCount > 0 ? entries[first].start : nil)
                ?? compactArena(liveFrom: first, liveCount: liveCount, adding: length)
            arena.withUnsafeMutableBufferPointer { bytes in
                _ = UnsafeMutableBufferPointer(rebasing: bytes[start..<start + source.count]).initialize(from: source)
                _ = UnsafeMutableBufferPointer(rebasing: bytes[start + source.count..<start + length]).initialize(
                    from: id)
            }
            tail = start + length
            return Entry(
                fingerprint: fingerprint, start: start, sourceLength: Int32(source.count), idLength: Int32(id.count))
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
        /// new one, and returns where the new one goes. Leaving half the arena free keeps this
        /// rare: while identities keep about the same length, the free half always has room
        /// for the next one at one end or the other.
        mutating func compactArena(liveFrom first: Int, liveCount: Int, adding length: Int) -> Int {
            var liveBytes = 0
            for offset in 0..<liveCount { liveBytes += entries[(first + offset) % entries.count].length }
            var size = max(arena.count, 64)
            while size < 2 * (liveBytes + length) { size *= 2 }
            var compacted = [UInt8](repeating: 0, count: size)
            var end = 0
            compacted.withUnsafeMutableBufferPointer { target in
                arena.withUnsafeBufferPointer { source in
                    for offset in 0..<liveCount {
                        let position = (first + offset) % entries.count
                        let entry = entries[position]
                        _ = UnsafeMutableBufferPointer(rebasing: target[end..<end + entry.length]).initialize(
                            from: UnsafeBufferPointer(rebasing: source[entry.start..<entry.start + entry.length]))
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
    /// A test's fingerprint in place of `hash`, or nil.
    private let fingerprint: (@Sendable (String, String) -> UInt64)?
    private let lock = Lock()
    // Guarded by `lock`, which also makes every access exclusive: `@exclusivity(unchecked)`
    // drops the run-time exclusivity check, paid on every access (every event, here).
    @exclusivity(unchecked) nonisolated(unsafe) private var state: State

    /// A window of `capacity` identities. `fingerprint` and `arenaSize` (the bytes for
    /// identities to start with) are for tests, which need collisions and a full arena.
    package init(
        capacity: Int,
        fingerprint: (@Sendable (_ source: String, _ id: String) -> UInt64)? = nil,
        arenaSize: Int = 1024
    ) {
        precondition(capacity > 0, "the deduplication window needs room for at least one event")
        precondition(capacity < Int(Int32.max) / 2, "the deduplication window is too large")
        self.capacity = capacity
        self.fingerprint = fingerprint
        state = State(slotCount: 64, arenaSize: arenaSize)
    }

    /// Records the event and tells whether this is the first time it was seen.
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
        if state.entries.count < capacity {
            state.entries.append(state.store(fingerprint, source, id, liveFrom: 0, liveCount: state.entries.count))
            state.table[slot] = Slot(fingerprint: fingerprint, position: state.entries.count - 1)
            // At most half full, so that probe sequences stay short.
            if state.entries.count * 2 > state.table.count { state.growTable() }
        } else {
            // Full: forget the oldest identity and put the new one in its place.
            let position = state.oldest
            state.clear(state.slot(of: position))
            state.oldest = (position + 1) % capacity
            state.entries[position] = state.store(
                fingerprint, source, id, liveFrom: state.oldest, liveCount: capacity - 1)
            // Clearing may have moved members of the new identity's cluster: look again.
            state.table[state.emptySlot(for: fingerprint)] = Slot(fingerprint: fingerprint, position: position)
        }
        return true
    }

    var count: Int { lock.withLock { state.entries.count } }

    /// The remembered identities, oldest first, read back from the arena: for tests, which check
    /// that storing new identities never overwrites the bytes of live ones.
    var remembered: [(source: String, id: String)] {
        lock.withLock {
            (0..<state.entries.count).map { offset in
                let entry = state.entries[(state.oldest + offset) % state.entries.count]
                let bytes = state.arena[entry.start..<entry.start + entry.length]
                return (
                    String(decoding: bytes.prefix(Int(entry.sourceLength)), as: UTF8.self),
                    String(decoding: bytes.dropFirst(Int(entry.sourceLength)), as: UTF8.self)
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
