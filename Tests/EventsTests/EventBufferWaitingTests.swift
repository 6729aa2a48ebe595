import Testing

@testable import Events

/// Waits, without a fixed sleep, until `condition` holds; false when it still does not after
/// ten seconds (the test then fails instead of hanging).
private func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        await Task.yield()
    }
    return true
}

/// The buffer behind `events(of:)` with consumers suspended in it: every transition that ends a
/// wait resumes the waiter exactly once, with an event or with the end.
@Suite("Event buffer: consumers waiting for events", .timeLimit(.minutes(1)))
struct EventBufferWaitingTests {
    @Test("a consumer cancelled while suspended gets nil, and the buffer takes nothing after")
    func cancellingASuspendedConsumerEndsTheSequence() async {
        let buffer = EventBuffer<Int>(policy: .unbounded)
        let consumer = Task { await buffer.next(isolation: nil) }
        #expect(await eventually { buffer.waitingConsumers == 1 })
        consumer.cancel()
        #expect(await consumer.value == nil)
        #expect(buffer.waitingConsumers == 0)
        buffer.push(1)
        #expect(buffer.takeBuffered() == nil)
        #expect(await buffer.next(isolation: nil) == nil)
    }

    @Test("ending the sequence resumes every waiting consumer with nil")
    func cancelResumesEveryWaiter() async {
        let buffer = EventBuffer<Int>(policy: .dropOldest(capacity: 4))
        let consumers = (0..<3).map { _ in Task { await buffer.next(isolation: nil) } }
        #expect(await eventually { buffer.waitingConsumers == 3 })
        buffer.cancel()
        for consumer in consumers { #expect(await consumer.value == nil) }
        #expect(buffer.waitingConsumers == 0)
    }

    @Test("events go to waiting consumers in the order they began to wait, bypassing the buffer")
    func pushesResumeTheLongestWaitingConsumerFirst() async {
        // Capacity 0: an event reaches a consumer only if one is waiting, so nothing is dropped
        // here only if each push went straight to a waiter.
        let buffer = EventBuffer<Int>(policy: .dropNewest(capacity: 0))
        let first = Task { await buffer.next(isolation: nil) }
        #expect(await eventually { buffer.waitingConsumers == 1 })
        let second = Task { await buffer.next(isolation: nil) }
        #expect(await eventually { buffer.waitingConsumers == 2 })
        buffer.push(10)
        buffer.push(20)
        #expect(await first.value == 10)
        #expect(await second.value == 20)
        #expect(buffer.droppedCount == 0)
        buffer.push(30)  // nobody waits now
        #expect(buffer.droppedCount == 1)
    }

    @Test("under dropOldest a full buffer keeps the newest, and a waiter still gets the next push")
    func dropOldestWithAWaiterAfterOverflow() async {
        let buffer = EventBuffer<Int>(policy: .dropOldest(capacity: 2))
        for value in 1...5 { buffer.push(value) }
        #expect(buffer.droppedCount == 3)
        #expect(buffer.takeBuffered() == 4)
        #expect(buffer.takeBuffered() == 5)
        let consumer = Task { await buffer.next(isolation: nil) }
        #expect(await eventually { buffer.waitingConsumers == 1 })
        buffer.push(6)
        #expect(await consumer.value == 6)
        #expect(buffer.droppedCount == 3)
    }

    @Test("an event buffered before a consumer suspends is taken at once, without waiting")
    func anEventAlreadyBufferedIsTakenBySuspend() async {
        let buffer = EventBuffer<Int>(policy: .unbounded)
        buffer.push(7)
        // `next(isolation:)` does not look at the buffer before suspending: the suspension itself
        // finds the event.
        #expect(await buffer.next(isolation: nil) == 7)
        #expect(buffer.waitingConsumers == 0)
    }
}
