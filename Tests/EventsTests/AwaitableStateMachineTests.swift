import Testing

@testable import Events

private struct Failed: Error {}

/// The transitions behind `dispatchAndWait` and `next(_:)`, driven directly: each is a plain
/// value changed under a lock, so its races can be replayed one step at a time.
@Suite("State machines of awaitable dispatch and next(_:)", .timeLimit(.minutes(1)))
struct AwaitableStateMachineTests {
    private func failure() -> ListenerFailure {
        ListenerFailure(error: Failed(), event: "Tick", callSite: CallSite(fileID: #fileID, line: #line))
    }

    @Test("a report is ready at once when no queued delivery is out")
    func sealWithNothingPendingReturnsTheReport() {
        var state = ReportCollectorStateMachine()
        state.recordRun(nil)
        state.recordRun(failure())
        let report = state.seal()
        #expect(report?.received == 2)
        #expect(report?.failures.count == 1)
    }

    @Test("the last queued delivery finishing between the seal and the suspension resumes at once")
    func lastDeliveryFinishingBeforeTheSuspension() async {
        var state = ReportCollectorStateMachine()
        state.begin()
        #expect(state.seal() == nil)
        state.recordRun(nil)
        if case .resume = state.finishQueued() { Issue.record("no task waits yet: nothing to resume") }
        let report = await withCheckedContinuation { continuation in
            let action = state.suspend(continuation)
            #expect(action.isResume)
            action.run()
        }
        #expect(report.received == 1)
    }

    @Test("the task waits until the last queued delivery finishes, and is resumed once, by it")
    func waiterResumedByTheLastDelivery() async {
        let collector = ReportCollector()
        collector.begin()
        collector.begin()
        collector.recordRun(nil, queued: false)
        let waiting = Task { await collector.wait() }
        collector.recordRun(failure(), queued: true)
        collector.recordSkip(queued: true)
        let report = await waiting.value
        #expect(report.received == 2)
        #expect(report.failures.count == 1)
    }

    @Test("next(_:): the first outcome wins, before or after the task waits")
    func firstOutcomeWins() async throws {
        let early = NextEventWaiter<Tick>()
        early.finish(.success(Tick(n: 1)))
        early.finish(.failure(CancellationError()))
        #expect(try await early.wait().n == 1)

        let late = NextEventWaiter<Tick>()
        let waiting = Task { try await late.wait() }
        late.finish(.failure(EventTimeoutError(event: "Tick", timeout: .seconds(1))))
        late.finish(.success(Tick(n: 2)))
        await #expect(throws: EventTimeoutError.self) { try await waiting.value }
    }
}

extension ReportCollectorStateMachine.Action {
    fileprivate var isResume: Bool {
        if case .resume = self { return true }
        return false
    }
}
