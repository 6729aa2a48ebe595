import Events

/// Remembers the most recent event identities (CloudEvents `source` + `id`) so that a
/// redelivered event is recognised and suppressed.
///
/// Bounded: once full, the oldest identity is forgotten first. Redis redelivers an entry after a
/// reconnect or a claim, which happens within seconds of the first delivery, so a window of
/// tens of thousands of events covers it with a wide margin.
///
/// Why not a `Set` of identities: every event goes through here, and a `Set` hashes both
/// strings on every insert and on every removal of the oldest, and compares whole identities
/// (two strings) with every element it probes past. Here an identity is hashed once into a
/// 64-bit fingerprint; the table holds fingerprints and positions in the ring, and identities
/// are compared only when their fingerprints are equal, so the answer stays exact.
final class DeduplicationWindow: Sendable {
    private struct Identity {
        let source: String
        let id: String
        let fingerprint: UInt64

        func isSame(as other: Identity) -> Bool {
            fingerprint == other.fingerprint && id == other.id && source == other.source
        }
    }

    /// An open-addressing table with linear probing over the ring, and the ring itself.
    private struct State {
        /// The remembered identities in arrival order; once full, `oldest` is overwritten next.
        var ring: [Identity] = []
        var oldest = 0
        /// Per slot: the position in `ring` plus one, or 0 for an empty slot.
        var slots: [Int32]
        /// Per slot: the fingerprint of the identity there, so probing compares no strings.
        var slotFingerprints: [UInt64]

        init(slotCount: Int) {
            slots = Array(repeating: 0, count: slotCount)
            slotFingerprints = Array(repeating: 0, count: slotCount)
        }

        var mask: Int { slots.count - 1 }

        /// Where a fingerprint's probe sequence starts. The low bits: the fingerprint comes from
        /// `Hasher`, whose bits are equally good.
        func home(_ fingerprint: UInt64) -> Int { Int(truncatingIfNeeded: fingerprint) & mask }

        /// The slot holding `identity`, or the empty slot that ends its probe sequence.
        func find(_ identity: Identity) -> (slot: Int, found: Bool) {
            var slot = home(identity.fingerprint)
            while slots[slot] != 0 {
                if slotFingerprints[slot] == identity.fingerprint,
                    ring[Int(slots[slot]) - 1].isSame(as: identity)
                {
                    return (slot, true)
                }
                slot = (slot + 1) & mask
            }
            return (slot, false)
        }

        /// Empties `slot`, moving later members of its cluster back so that no probe sequence
        /// is cut short (deletion without tombstones).
        mutating func clear(_ slot: Int) {
            var hole = slot
            var next = slot
            while true {
                next = (next + 1) & mask
                guard slots[next] != 0 else { break }
                // The member at `next` may fill the hole unless its home lies cyclically in
                // (hole, next]: then the hole is before its home, and moving it would hide it.
                let home = home(slotFingerprints[next])
                let homeAfterHole = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
                if homeAfterHole { continue }
                slots[hole] = slots[next]
                slotFingerprints[hole] = slotFingerprints[next]
                hole = next
            }
            slots[hole] = 0
        }

        /// Doubles the table and places every remembered identity again.
        mutating func grow() {
            slots = Array(repeating: 0, count: slots.count * 2)
            slotFingerprints = Array(repeating: 0, count: slots.count)
            for (index, identity) in ring.enumerated() {
                let slot = find(identity).slot
                slots[slot] = Int32(index + 1)
                slotFingerprints[slot] = identity.fingerprint
            }
        }
    }

    private let capacity: Int
    private let fingerprint: @Sendable (String, String) -> UInt64
    private let lock = Lock()
    // Guarded by `lock`, which also makes every access exclusive: `@exclusivity(unchecked)`
    // drops the run-time exclusivity check, paid on every access (every event, here).
    @exclusivity(unchecked) nonisolated(unsafe) private var state = State(slotCount: 64)

    /// A window of `capacity` identities. `fingerprint` is for tests, which need collisions.
    init(
        capacity: Int,
        fingerprint: @escaping @Sendable (_ source: String, _ id: String) -> UInt64 = DeduplicationWindow.hash
    ) {
        precondition(capacity > 0, "the deduplication window needs room for at least one event")
        precondition(capacity < Int(Int32.max) / 2, "the deduplication window is too large")
        self.capacity = capacity
        self.fingerprint = fingerprint
    }

    /// Records the event and tells whether this is the first time it was seen.
    func recordFirstSighting(source: String, id: String) -> Bool {
        let identity = Identity(source: source, id: id, fingerprint: fingerprint(source, id))
        return lock.withLock {
            let (slot, found) = state.find(identity)
            guard !found else { return false }
            if state.ring.count < capacity {
                state.ring.append(identity)
                state.slots[slot] = Int32(state.ring.count)
                state.slotFingerprints[slot] = identity.fingerprint
                // At most half full, so that probe sequences stay short.
                if state.ring.count * 2 > state.slots.count { state.grow() }
            } else {
                // The ring is full: forget the oldest identity and put the new one in its place.
                let oldest = state.oldest
                state.clear(state.find(state.ring[oldest]).slot)
                state.ring[oldest] = identity
                // Clearing may have moved members of the new identity's cluster: look again.
                let slot = state.find(identity).slot
                state.slots[slot] = Int32(oldest + 1)
                state.slotFingerprints[slot] = identity.fingerprint
                state.oldest = (oldest + 1) % capacity
            }
            return true
        }
    }

    var count: Int { lock.withLock { state.ring.count } }

    /// `Hasher` is seeded at random per process, so that a remote sender cannot choose ids that
    /// collide.
    static func hash(source: String, id: String) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(source)
        hasher.combine(id)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}
