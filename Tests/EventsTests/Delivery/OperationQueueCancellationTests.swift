import Foundation
import Testing

@testable import Events

/// Waits, at most `timeout`, for `center.idle()` to return; returns whether it did. A wait that
/// does not return is left behind, so that a failing test still ends.
private func idleReturns(_ center: EventCenter, within timeout: Duration = .seconds(15)) async -> Bool {
    let returned = Counter()
    Task.detached {
        await center.idle()
        returned.increment()
    }
    return await eventually(timeout: timeout) { returned.value == 1 }
}

@Suite("Operation queue listeners survive cancelAllOperations()", .timeLimit(.minutes(1)))
struct OperationQueueCancellationTests {
    @Test("a drain cancelled before it ran is scheduled again: the queued deliveries run and idle() returns")
    func drainCancelledBeforeItRan() async {
        let center = EventCenter()
        let operations = OperationQueue()
        operations.isSuspended = true
        let received = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .operationQueue(operations)) { tick in
            received.record(tick.n)
        }
        center.dispatch(Tick(n: 1))
        center.dispatch(Tick(n: 2))
        // Cancels the operation that would drain the listener's mailbox, before it could run.
        operations.cancelAllOperations()
        operations.isSuspended = false
        #expect(await idleReturns(center), "idle() still waits for the deliveries of the cancelled operation")
        #expect(received.values == [1, 2])
        // The mailbox is not stuck either: a later event arrives.
        center.dispatch(Tick(n: 3))
        #expect(await idleReturns(center))
        #expect(received.values == [1, 2, 3])
        withExtendedLifetime(subscription) {}
    }

    @Test("a drain cancelled between two batches of deliveries is scheduled again, in order")
    func drainCancelledBetweenBatches() async {
        let center = EventCenter()
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = 1
        operations.isSuspended = true
        let received = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .operationQueue(operations)) { tick in
            received.record(tick.n)
            // Queued behind this drain and ahead of the one that continues it after its batch:
            // it cancels that one before it runs.
            if tick.n == 0 { operations.addOperation { operations.cancelAllOperations() } }
        }
        let count = 200
        for n in 0..<count { center.dispatch(Tick(n: n)) }
        operations.isSuspended = false
        #expect(await idleReturns(center), "idle() still waits for the deliveries after the cancelled batch")
        #expect(received.values == Array(0..<count))
        withExtendedLifetime(subscription) {}
    }
}
