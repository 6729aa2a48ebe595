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
}
