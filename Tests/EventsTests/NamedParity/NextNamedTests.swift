import EventsTesting
import Testing

@testable import Events

// `next(named:)`: the wait of `next(_:)` for a name, with its filters, its timeouts (the clock
// form driven by `TestClock`) and its cancellation.

extension EventName {
    fileprivate static let signedIn: EventName = "named-parity.signedIn"
    fileprivate static let other: EventName = "named-parity.other"
}

@Suite("Waiting for the next event of a name")
struct NextNamedTests {
    @Test("next(named:) returns the first event of that name matching the predicate, then removes its listener")
    func returnsTheFirstMatchingEvent() async throws {
        let center = EventCenter()
        let waiting = Task {
            try await center.next(named: .signedIn, where: { (try? $0.data(as: Int.self)) == 3 })
        }
        #expect(await eventually { center.listenerCount(for: .signedIn) > 0 }, "next(named:) never registered")
        center.dispatch(.other, data: 3)
        for n in 1...4 { center.dispatch(.signedIn, data: n) }
        let event = try await waiting.value
        #expect(event.name == .signedIn)
        #expect(try event.data(as: Int.self) == 3)
        #expect(center.listenerCount(for: .signedIn) == 0)
    }

    @Test("next(named:from:) hears only events dispatched from that sender")
    func senderFilter() async throws {
        let center = EventCenter()
        let expected = Probe()
        let stranger = Probe()
        let waiting = Task { try await center.next(named: .signedIn, from: expected) }
        #expect(await eventually { center.listenerCount(for: .signedIn) > 0 }, "next(named:) never registered")
        center.dispatch(.signedIn, data: 1)
        center.dispatch(.signedIn, from: stranger, data: 2)
        center.dispatch(.signedIn, from: expected, data: 3)
        let event = try await waiting.value
        #expect(try event.data(as: Int.self) == 3)
        #expect(event.sender?.isIdentical(to: expected) == true)
    }

    @Test("An event dispatched right after the call starts is not missed")
    func registersBeforeSuspending() async throws {
        let center = EventCenter()
        async let event = center.next(named: .signedIn)
        #expect(await eventually { center.listenerCount(for: .signedIn) > 0 }, "next(named:) never registered")
        center.dispatch(.signedIn, data: 9)
        #expect(try await event.data(as: Int.self) == 9)
    }

    @Test("The clock form throws EventTimeoutError, naming the name, when its clock passes the timeout")
    func timeoutOnATestClock() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let waiting = Task { try await center.next(named: .signedIn, timeout: .seconds(5), clock: clock) }
        try await clock.waitForSleepers(count: 1)
        #expect(center.listenerCount(for: .signedIn) == 1)
        clock.advance(by: .seconds(4))
        center.dispatch(.other)
        clock.advance(by: .seconds(1))
        do {
            _ = try await waiting.value
            Issue.record("expected a timeout")
        } catch let error as EventTimeoutError {
            #expect(error.event == "named-parity.signedIn")
            #expect(error.timeout == .seconds(5))
            #expect(error.description == "timed out after 5.0 seconds waiting for named-parity.signedIn")
        }
        #expect(center.listenerCount(for: .signedIn) == 0)
    }

    @Test("The clock form returns the event that comes before the timeout and stops its timer")
    func eventBeforeTheTimeoutOnATestClock() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let waiting = Task { try await center.next(named: .signedIn, timeout: .seconds(5), clock: clock) }
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(4))
        center.dispatch(.signedIn, data: 1)
        #expect(try await waiting.value.data(as: Int.self) == 1)
        #expect(await eventually { clock.sleeperCount == 0 }, "the timer kept sleeping")
    }

    @Test("The form on the continuous clock throws EventTimeoutError when nothing comes")
    func timeoutOnTheContinuousClock() async {
        let center = EventCenter()
        await #expect(throws: EventTimeoutError.self) {
            try await center.next(named: .signedIn, timeout: .milliseconds(20))
        }
        #expect(center.listenerCount(for: .signedIn) == 0)
    }

    @Test("Cancelling the waiting task throws CancellationError and removes the listener, with or without a timeout")
    func cancellation() async {
        let center = EventCenter()
        let clock = TestClock()
        let plain = Task { try await center.next(named: .signedIn) }
        let timed = Task { try await center.next(named: .signedIn, timeout: .seconds(5), clock: clock) }
        #expect(await eventually { center.listenerCount(for: .signedIn) == 2 }, "next(named:) never registered")
        plain.cancel()
        timed.cancel()
        await #expect(throws: CancellationError.self) { try await plain.value }
        await #expect(throws: CancellationError.self) { try await timed.value }
        #expect(center.listenerCount(for: .signedIn) == 0)
    }

    @Test("A task cancelled before it waits throws CancellationError at once")
    func cancelledBeforeWaiting() async {
        let center = EventCenter()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await center.next(named: .signedIn)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(center.listenerCount(for: .signedIn) == 0)
    }
}
