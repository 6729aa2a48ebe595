import Synchronization

/// Keeps one coder between calls, so that coding an event reuses the previous call's coder and
/// its buffers instead of allocating them again (several allocations per event, on the path
/// every carried event takes).
///
/// A coder is handed over, never shared: `take()` empties the slot, and `keep(_:)` stores a
/// coder only when nothing else refers to it. A type's `encode(to:)` or `init(from:)` may hold
/// on to the coder or one of its containers after the call; such a coder is left to be freed
/// when its last holder lets go, and never coded with again. Two threads coding at once find
/// one spare and make a new coder, which the slot may keep afterwards.
final class SpareCoder<Coder: AnyObject>: Sendable {
    /// The kept coder's address, retained (`Unmanaged`), or 0 for none. An atomic exchange
    /// rather than a lock: a lock's two calls per take and per keep would eat much of what
    /// reuse saves.
    ///
    /// Coder is not Sendable (a coder is used by one thread at a time), and this still holds:
    /// the coder in the slot is referenced by the slot alone (`keep` checks that), and `take`
    /// empties the slot in the same atomic step that reads it, so whoever takes a coder out is
    /// its only user. Acquire and release order the last user's writes before the next one's
    /// reads.
    private let slot = Atomic<UInt>(0)

    init() {}

    deinit {
        if let kept = UnsafeRawPointer(bitPattern: slot.load(ordering: .acquiring)) {
            Unmanaged<Coder>.fromOpaque(kept).release()
        }
    }

    /// The coder kept by the last `keep(_:)`, now the caller's alone; nil when there is none.
    func take() -> Coder? {
        guard let kept = UnsafeRawPointer(bitPattern: slot.exchange(0, ordering: .acquiring)) else { return nil }
        return Unmanaged<Coder>.fromOpaque(kept).takeRetainedValue()
    }

    /// Keeps `coder` for the next `take()` if the caller holds the only reference to it and
    /// the slot is empty. The caller must not use `coder` afterwards.
    func keep(_ coder: inout Coder) {
        guard isKnownUniquelyReferenced(&coder) else { return }
        let retained = Unmanaged.passRetained(coder).toOpaque()
        let address = UInt(bitPattern: retained)
        if !slot.compareExchange(expected: 0, desired: address, ordering: .releasing).exchanged {
            Unmanaged<Coder>.fromOpaque(retained).release()
        }
    }
}
