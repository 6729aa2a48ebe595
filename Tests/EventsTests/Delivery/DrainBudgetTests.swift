import Dispatch
import Testing

@testable import Events

/// Holds `queue` until `release()`: what is dispatched meanwhile is queued for its listener,
/// and a block put on `queue` meanwhile runs after the listener's first drain.
private final class QueueGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let entered = DispatchSemaphore(value: 0)

    init(_ queue: DispatchQueue) {
        queue.async { [semaphore, entered] in
            entered.signal()
            _ = semaphore.wait(timeout: .now() + 30)
        }
        _ = entered.wait(timeout: .now() + 30)
    }

    func release() { semaphore.signal() }
}

@Suite("How long one turn of an executor runs a listener's deliveries", .timeLimit(.minutes(1)))
struct DrainBudgetTests {
    @Test("a burst queued for a listener is drained in one turn of its queue, in order")
    func burstInOneTurn() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "test.drain.burst")
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .queue(queue)) { heard.record($0.n) }
        let gate = QueueGate(queue)
        for n in 1...300 { center.dispatch(Tick(n: n)) }
        let seenByLaterBlock = Recorder<Int>()
        queue.async { seenByLaterBlock.record(heard.values.count) }
        gate.release()
        await center.idle()
        #expect(await eventually { seenByLaterBlock.values.count == 1 })
        #expect(heard.values == Array(1...300))
        // The drain had taken the queue before the block was put on it, and ran the whole burst.
        #expect(seenByLaterBlock.values == [300])
        subscription.cancel()
    }

    @Test("a flood yields the queue after the budget's number of deliveries, and goes on after")
    func floodYieldsAfterCount() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "test.drain.flood")
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .queue(queue)) { heard.record($0.n) }
        let gate = QueueGate(queue)
        let total = DrainBudget.standard.deliveries * 2 + 10
        for n in 1...total { center.dispatch(Tick(n: n)) }
        let seenByLaterBlock = Recorder<Int>()
        queue.async { seenByLaterBlock.record(heard.values.count) }
        gate.release()
        await center.idle()
        #expect(await eventually { seenByLaterBlock.values.count == 1 })
        #expect(heard.values == Array(1...total), "order kept across turns")
        // The time budget may end a turn sooner on a slow machine, never later.
        let seen = seenByLaterBlock.values.first ?? -1
        #expect(seen > 0 && seen <= DrainBudget.standard.deliveries, "\(seen) ran before other work got its turn")
        subscription.cancel()
    }

    @Test("slow deliveries yield the main queue once the budget's time has passed")
    func slowDeliveriesYieldAfterTime() async {
        let center = EventCenter()
        let heard = Recorder<Int>()
        // Each handler takes a millisecond on purpose: the load under test, not a wait for order.
        let subscription = center.listen(to: Tick.self, on: .main) { tick in
            heard.record(tick.n)
            spin(for: .milliseconds(1))
        }
        let gate = QueueGate(.main)
        for n in 1...40 { center.dispatch(Tick(n: n)) }
        let seenByLaterBlock = Recorder<Int>()
        DispatchQueue.main.async { seenByLaterBlock.record(heard.values.count) }
        gate.release()
        await center.idle()
        #expect(await eventually { seenByLaterBlock.values.count == 1 })
        #expect(heard.values == Array(1...40))
        // The clock is read after every eighth delivery: by then 8 ms had passed, over the 2 ms.
        #expect(seenByLaterBlock.values == [8])
        subscription.cancel()
    }

    @Test("a delivery queued by a handler of the same listener runs in the same turn, after those before it")
    func reentrantDeliveryKeepsOrder() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "test.drain.reentrant")
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .queue(queue)) { tick in
            heard.record(tick.n)
            if tick.n == 1 { center.dispatch(Tick(n: 100)) }
        }
        let gate = QueueGate(queue)
        for n in 1...3 { center.dispatch(Tick(n: n)) }
        gate.release()
        await center.idle()
        #expect(heard.values == [1, 2, 3, 100])
        subscription.cancel()
    }
}

/// Keeps this thread busy for `duration`.
private func spin(for duration: Duration) {
    let end = ContinuousClock.now + duration
    while ContinuousClock.now < end {}
}
