import Events
import EventsTesting
import Testing

@Suite("withEventRecorder")
struct WithEventRecorderTests {
    // MARK: Timeout and clock

    @Test("hands its timeout and clock to the recorder, whose next() then gives up on that clock")
    func timeoutAndClock() async throws {
        let center = EventCenter()
        let clock = TestClock()
        try await withEventRecorder(of: Saved.self, in: center, timeout: .seconds(2), clock: clock) { recorder in
            #expect(recorder.timeout == .seconds(2))
            let waiting = Task { try await recorder.next() }
            try await outcome(of: Task { try await clock.waitForSleepers(count: 1) }).get()
            #expect(clock.deadlines == [TestClock.Instant(offset: .seconds(2))])
            clock.advance(by: .seconds(2))
            let error = await #expect(throws: EventRecorderError.self) { try await outcome(of: waiting).get() }
            #expect(error?.reason == .timedOut(after: .seconds(2)))
        }
        await withEventRecorder(named: "saved", in: center, timeout: .seconds(1), clock: clock) { recorder in
            #expect(recorder.timeout == .seconds(1))
        }
        await withEventRecorder(everyNameIn: center) { recorder in
            #expect(recorder.timeout == .seconds(3))
        }
    }

    @Test("a next() that no event answers fails the test with the timeout error instead of waiting forever")
    func unansweredNextFails() async {
        let center = EventCenter()
        let clock = TestClock()
        let scope = Task {
            try await withEventRecorder(of: Saved.self, in: center, clock: clock) { recorder in
                _ = try await recorder.next()
            }
        }
        let advancing = Task {
            try await clock.waitForSleepers(count: 1)
            clock.advance(by: .seconds(3))
        }
        let error = await #expect(throws: EventRecorderError.self) { try await outcome(of: scope).get() }
        #expect(error?.reason == .timedOut(after: .seconds(3)))
        advancing.cancel()
    }

    // MARK: Stopping

    @Test("stopIgnoringRemainingEvents() in the body leaves nothing to report")
    func stopIgnoringReportsNothing() async throws {
        let center = EventCenter()
        // Any issue about leftovers would fail this test.
        let first = try await withEventRecorder(of: Saved.self, in: center) { recorder in
            for id in 1...3 { center.dispatch(Saved(id: id)) }
            let first = try await recorder.next()
            recorder.stopIgnoringRemainingEvents()
            center.dispatch(Saved(id: 4))
            #expect(recorder.events.count == 3)
            return first
        }
        #expect(first == Saved(id: 1))
        await withEventRecorder(named: "saved", in: center) { recorder in
            center.dispatch("saved")
            recorder.stopIgnoringRemainingEvents()
        }
        await withEventRecorder(everyNameIn: center) { recorder in
            center.dispatch("closed")
            recorder.stopIgnoringRemainingEvents()
        }
    }

    @Test("stop() in the body still reports the events left unconsumed")
    func stopStillReports() async throws {
        let center = EventCenter()
        let scopeLine = #line + 2
        try await withKnownIssue {
            try await withEventRecorder(of: Saved.self, in: center) { recorder in
                center.dispatch(Saved(id: 1))
                center.dispatch(Saved(id: 2))
                _ = try await recorder.next()
                recorder.stop()
            }
        } matching: { issue in
            message(of: issue).contains("1 event was recorded and never consumed\n  #1 Saved(id: 2)")
                && issue.sourceLocation?.line == scopeLine
        }
    }
}
