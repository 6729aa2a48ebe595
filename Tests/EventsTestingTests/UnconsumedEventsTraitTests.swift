import Events
import EventsTesting
import Testing

@Suite("The unconsumed-events trait on a suite", .failsOnUnconsumedEvents)
struct UnconsumedEventsTraitSuiteTests {
    @Test("passes when every recorded event was consumed")
    func consumed() async throws {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1))
        _ = try await recorder.next()
        let named = EventRecorder(named: "closed", in: center)
        center.dispatch("closed")
        named.expect(["closed"], comparing: \.name)
    }

    @Test("passes when nothing was recorded")
    func nothing() {
        _ = EventRecorder(of: Saved.self, in: EventCenter())
    }

    @Test("passes when the test accepted what was left with stopIgnoringRemainingEvents()")
    func ignoredLeftovers() async throws {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1))
        center.dispatch(Saved(id: 2))
        _ = try await recorder.next()
        recorder.stopIgnoringRemainingEvents()
    }
}

/// The trait records its issue after the test's body has returned, outside any
/// `withKnownIssue` the body could write: `ExpectsIssueTrait`, listed first, wraps it.
@Suite("The unconsumed-events trait on a test")
struct UnconsumedEventsTraitTests {
    @Test(
        "fails the test at the recorder's line when an event is left",
        .expectsIssue(containing: "1 event was recorded and never consumed\n  #1 Saved(id: 2)"),
        .failsOnUnconsumedEvents)
    func leftover() async throws {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1))
        center.dispatch(Saved(id: 2))
        _ = try await recorder.next()
    }

    @Test(
        "checks a recorder dropped before the test ends, and one created in a child task",
        .expectsIssue(containing: "#0 Saved(id: 3)"), .expectsIssue(containing: "#0 Closed()"),
        .failsOnUnconsumedEvents)
    func droppedRecorder() async {
        let center = EventCenter()
        do {
            let recorder = EventRecorder(of: Saved.self, in: center)
            center.dispatch(Saved(id: 3))
            #expect(recorder.count == 1)
        }
        #expect(center.listenerCount(for: Saved.self) == 0)
        await Task {
            let closed = EventRecorder(of: Closed.self, in: center)
            center.dispatch(Closed())
            #expect(closed.count == 1)
        }.value
    }
}

/// Declares as known an issue whose message contains `text` and that points into this file,
/// recorded anywhere in the scopes inside this trait's; fails the test when none is.
struct ExpectsIssueTrait: TestTrait, TestScoping {
    let text: String

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withKnownIssue {
            try await function()
        } matching: { [text] issue in
            message(of: issue).contains(text)
                && issue.sourceLocation?.fileID == "EventsTestingTests/UnconsumedEventsTraitTests.swift"
        }
    }
}

extension Trait where Self == ExpectsIssueTrait {
    static func expectsIssue(containing text: String) -> Self { ExpectsIssueTrait(text: text) }
}
