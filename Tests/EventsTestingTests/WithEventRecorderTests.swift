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

    // MARK: One-line bodies

    // These calls are what a test writes: each one must compile without a warning, and run.
    // With a `withEventRecorder` generic over its body's value alone, the first ones do not
    // compile: `dispatch` returns a count, and `withKnownIssue` wants a closure that returns
    // nothing.

    @Test("a one-line body that dispatches fits in withKnownIssue, whose issue is the leftover")
    func oneLineDispatchInKnownIssue() async {
        let center = EventCenter()
        await withKnownIssue {
            await withEventRecorder(of: Saved.self, in: center) { _ in center.dispatch(Saved(id: 1)) }
        }
        await withKnownIssue {
            await withEventRecorder(of: Saved.self, in: center) { _ in center.dispatch(Saved(id: 2)) }
        } matching: { issue in
            message(of: issue).contains("1 event was recorded and never consumed\n  #0 Saved(id: 2)")
        }
        await withKnownIssue {
            await withEventRecorder(named: "saved", in: center) { _ in center.dispatch("saved") }
        } matching: { issue in
            message(of: issue).contains("#0 NamedEvent(\"saved\")")
        }
        await withKnownIssue(isIntermittent: false) {
            await withEventRecorder(everyNameIn: center) { _ in center.dispatch("closed") }
        }
    }

    @Test("a one-line body that awaits a dispatch fits in withKnownIssue too")
    func oneLineAsyncDispatchInKnownIssue() async throws {
        let center = EventCenter()
        await withKnownIssue {
            await withEventRecorder(of: Saved.self, in: center) { _ in await center.dispatchAndWait(Saved(id: 1)) }
        } matching: { issue in
            message(of: issue).contains("#0 Saved(id: 1)")
        }
        try await withKnownIssue {
            try await withEventRecorder(of: Saved.self, in: center) { recorder in
                center.dispatch(Saved(id: 2))
                center.dispatch(Saved(id: 3))
                _ = try await recorder.next()
            }
        } matching: { issue in
            message(of: issue).contains("#1 Saved(id: 3)")
        }
    }

    @Test("a one-line body keeps its value: the event next() returns, or the count dispatch returns")
    func oneLineBodiesKeepTheirValue() async throws {
        let center = EventCenter()
        let dispatching = Task {
            #expect(await eventually { center.listenerCount(for: Saved.self) == 1 })
            center.dispatch(Saved(id: 7))
        }
        let event = try await withEventRecorder(of: Saved.self, in: center) { recorder in try await recorder.next() }
        #expect(event == Saved(id: 7))
        await dispatching.value

        var count = 0
        await withKnownIssue {
            count = await withEventRecorder(of: Saved.self, in: center) { _ in center.dispatch(Saved(id: 8)) }
        } matching: { issue in
            message(of: issue).contains("#0 Saved(id: 8)")
        }
        #expect(count == 1)

        // Written as a statement, a body's value may be dropped without a warning.
        await withEventRecorder(everyNameIn: center) { $0.stopIgnoringRemainingEvents() }
        await withEventRecorder(of: Saved.self, in: center) { _ in center.listenerCount(for: Saved.self) }
    }
}
