import Events

/// Remembers the most recent event identities (CloudEvents `source` + `id`) so that a
/// redelivered event is recognised and suppressed.
///
/// Bounded: once full, the oldest identity is forgotten first. Redis redelivers an entry after a
/// reconnect or a claim, which happens within seconds of the first delivery, so a window of
/// tens of thousands of events covers it with a wide margin.
final class DeduplicationWindow: Sendable {
    private struct Identity: Hashable {
        let source: String
        let id: String
    }

    private struct State {
        var seen = Set<Identity>()
        var order: [Identity] = []
        var oldest = 0
    }

    private let capacity: Int
    private let lock = Lock()
    // Guarded by `lock`, which also makes every access exclusive: `@exclusivity(unchecked)`
    // drops the run-time exclusivity check, paid on every access (every event, here).
    @exclusivity(unchecked) nonisolated(unsafe) private var state = State()

    init(capacity: Int) {
        precondition(capacity > 0, "the deduplication window needs room for at least one event")
        self.capacity = capacity
    }

    /// Records the event and tells whether this is the first time it was seen.
    func recordFirstSighting(source: String, id: String) -> Bool {
        let identity = Identity(source: source, id: id)
        return lock.withLock {
            guard state.seen.insert(identity).inserted else { return false }
            if state.order.count < capacity {
                state.order.append(identity)
            } else {
                // The ring is full: overwrite (and forget) the oldest identity.
                state.seen.remove(state.order[state.oldest])
                state.order[state.oldest] = identity
                state.oldest = (state.oldest + 1) % capacity
            }
            return true
        }
    }

    var count: Int { lock.withLock { state.seen.count } }
}
