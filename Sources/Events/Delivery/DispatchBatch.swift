/// Many dispatches waited for together: each event goes to its listeners at once, as with
/// `dispatch`, and ``wait()`` returns once every listener, in every context, has finished with
/// every event dispatched through the batch, as `dispatchAndWait` does for one event.
///
/// For the Redis bridge's stream consumer, which acknowledges a batch of entries together once
/// all of them are handled: waiting for each event on its own would cost an allocation, a lock
/// and an async call per event, where one wait serves the batch.
///
/// Rules: dispatch everything first, then wait once; a batch dispatches nothing after its wait.
/// Events reach each listener in the order they were dispatched, but one listener may receive a
/// later event before another listener (in another context) has finished an earlier one.
package final class DispatchBatch: Sendable {
    private let collector = ReportCollector()

    package init() {}

    /// Dispatches `event` from `sender` through `center`, as `dispatch` does.
    package func dispatch<E: Event>(_ event: E, from sender: AnyObject? = nil, through center: EventCenter) {
        center.dispatch(event, from: sender, reportingTo: collector)
    }

    /// Dispatches an event named `name` through `center`, as `dispatch(_:from:data:)` does.
    package func dispatch(
        _ name: EventName, from sender: AnyObject? = nil, data: (any Sendable)? = nil, through center: EventCenter
    ) {
        center.dispatch(name, from: sender, data: data.map { .value($0) }, payload: Payload(), reportingTo: collector)
    }

    /// Returns once every listener has finished with every event of the batch; without
    /// suspending when all of them ran during their dispatch.
    package nonisolated(nonsending) func wait() async -> DispatchReport {
        await collector.wait()
    }
}
