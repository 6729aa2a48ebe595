import Events
import EventsTesting
import Testing

@Suite("TestClock")
struct TestClockTests {
    @Test("time starts at zero and moves only forward, by advance(by:) and advance(to:)")
    func time() {
        let clock = TestClock()
        #expect(clock.now == .zero)
        clock.advance(by: .seconds(2))
        #expect(clock.now == TestClock.Instant(offset: .seconds(2)))
        clock.advance(to: TestClock.Instant(offset: .seconds(5)))
        #expect(clock.now.offset == .seconds(5))
        clock.advance(by: .seconds(-1))
        clock.advance(to: .zero)
        #expect(clock.now.offset == .seconds(5))
        #expect(clock.description == "TestClock(now: 5.0 seconds, 0 sleepers)")
    }

    @Test("a sleeper wakes only once time reaches its deadline")
    func sleeperWakesAtDeadline() async throws {
        let clock = TestClock()
        let sleeping = Task { try await clock.sleep(for: .seconds(3)) }
        try await clock.waitForSleepers(count: 1)
        #expect(clock.deadlines == [TestClock.Instant(offset: .seconds(3))])
        clock.advance(by: .seconds(2))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 0)
        try await sleeping.value
    }

    @Test("a deadline already passed returns at once")
    func pastDeadline() async throws {
        let clock = TestClock()
        clock.advance(by: .seconds(1))
        try await clock.sleep(until: .zero)
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    // Which woken task runs first after one advance is up to the executor's threads; what the
    // clock decides is which sleepers wake, and it lists them earliest first.
    @Test("one advance wakes exactly the sleepers whose deadline it reaches; deadlines are listed earliest first")
    func deadlineOrder() async throws {
        let clock = TestClock()
        let timeline = Timeline()
        let plan: [(String, Int)] = [("c", 3), ("a", 1), ("b1", 2), ("b2", 2)]
        var tasks: [Task<Void, any Error>] = []
        for (index, (name, seconds)) in plan.enumerated() {
            tasks.append(
                Task {
                    try await timeline.sleep(on: clock, for: .seconds(seconds), then: name)
                })
            try await clock.waitForSleepers(count: index + 1)
        }
        #expect(clock.deadlines.map(\.offset) == [.seconds(1), .seconds(2), .seconds(2), .seconds(3)])
        clock.advance(by: .seconds(2))
        for task in tasks.dropFirst() { try await task.value }
        #expect(Set(await timeline.entries) == ["a", "b1", "b2"])
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(10))
        try await tasks[0].value
        #expect(await timeline.entries.last == "c")
    }

    @Test("advanceToNextDeadline moves to the earliest deadline only")
    func nextDeadline() async throws {
        let clock = TestClock()
        let early = Task { try await clock.sleep(for: .seconds(1)) }
        let late = Task { try await clock.sleep(for: .seconds(4)) }
        try await clock.waitForSleepers(count: 2)
        #expect(clock.advanceToNextDeadline())
        try await early.value
        #expect(clock.now.offset == .seconds(1))
        #expect(clock.sleeperCount == 1)
        #expect(clock.advanceToNextDeadline())
        try await late.value
        #expect(!clock.advanceToNextDeadline())
    }

    @Test("a cancelled sleeper wakes with CancellationError and no longer counts")
    func cancelledSleeper() async throws {
        let clock = TestClock()
        let sleeping = Task { try await clock.sleep(for: .seconds(1)) }
        try await clock.waitForSleepers(count: 1)
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(1))
    }

    @Test("a task cancelled before it sleeps throws at once")
    func cancelledBeforeSleeping() async {
        let clock = TestClock()
        let sleeping = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("waitForSleepers returns once enough tasks sleep, and honours cancellation")
    func waitForSleepers() async throws {
        let clock = TestClock()
        try await clock.waitForSleepers(count: 0)
        let observer = Task { try await clock.waitForSleepers(count: 2) }
        let first = Task { try await clock.sleep(for: .seconds(1)) }
        let second = Task { try await clock.sleep(for: .seconds(1)) }
        try await observer.value
        #expect(clock.sleeperCount == 2)
        clock.advance(by: .seconds(1))
        try await first.value
        try await second.value

        let abandoned = Task { try await clock.waitForSleepers(count: 1) }
        abandoned.cancel()
        await #expect(throws: CancellationError.self) { try await abandoned.value }
    }

    @Test("EventCenter.next with a clock times out when the test clock passes the timeout")
    func centerNextTimesOut() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let waiting = Task { try await center.next(Saved.self, timeout: .seconds(3), clock: clock) }
        try await clock.waitForSleepers(count: 1)
        #expect(center.listenerCount(for: Saved.self) == 1)
        clock.advance(by: .seconds(3))
        let error = await #expect(throws: EventTimeoutError.self) { try await waiting.value }
        #expect(error?.timeout == .seconds(3))
        #expect(error?.event == "Saved")
        #expect(center.listenerCount(for: Saved.self) == 0)
    }

    @Test("EventCenter.next with a clock returns the matching event before the timeout")
    func centerNextReturns() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let waiting = Task {
            try await center.next(Saved.self, where: { $0.id == 2 }, timeout: .seconds(3), clock: clock)
        }
        try await clock.waitForSleepers(count: 1)
        center.dispatch(Saved(id: 1))
        center.dispatch(Saved(id: 2))
        #expect(try await waiting.value == Saved(id: 2))
        #expect(center.listenerCount(for: Saved.self) == 0)
        #expect(await eventually { clock.sleeperCount == 0 })
    }
}

extension Timeline {
    /// Sleeps on `clock`, isolated to this actor, then appends `entry`.
    func sleep(on clock: TestClock, for duration: Duration, then entry: String) async throws {
        try await clock.sleep(for: duration)
        append(entry)
    }
}
