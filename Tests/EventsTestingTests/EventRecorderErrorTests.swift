import Testing

@testable import EventsTesting

/// Why a recorder's wait ended: the reason to match on, its timeout, and one sentence.
@Suite("EventRecorderError")
struct EventRecorderErrorTests {
    typealias Reason = EventRecorderError.Reason

    @Test("reasons are distinct, keep their timeout and print as they are made")
    func reasons() {
        let reasons: [Reason] = [.stopped, .timedOut(after: .seconds(1)), .timedOut(after: .milliseconds(250))]
        #expect(Set(reasons).count == 3)
        #expect(Reason.timedOut(after: .seconds(1)) == .timedOut(after: .seconds(1)))
        #expect(Reason.timedOut(after: .milliseconds(250)).timeout == .milliseconds(250))
        #expect(Reason.stopped.timeout == nil)
        #expect(
            reasons.map(\.description) == ["stopped", "timedOut(after: 1.0 seconds)", "timedOut(after: 0.25 seconds)"])
    }

    @Test("the description says why, how many were awaited and how many arrived, in the same words")
    func descriptions() {
        let recorder = "EventRecorder<Saved> (created at T.swift:12)"
        let timedOut = EventRecorderError(
            reason: .timedOut(after: .seconds(1)), expectedCount: 3, recordedCount: 2, recorder: recorder)
        #expect(
            timedOut.description
                == "EventRecorder<Saved> (created at T.swift:12): timed out after 1.0 seconds waiting for 3 events; "
                + "2 arrived")
        let stopped = EventRecorderError(reason: .stopped, expectedCount: 1, recordedCount: 1, recorder: recorder)
        #expect(
            stopped.description
                == "EventRecorder<Saved> (created at T.swift:12): stopped waiting for 1 event; 1 arrived")
        let none = EventRecorderError(reason: .stopped, expectedCount: 2, recordedCount: 0, recorder: "R")
        #expect(none.description == "R: stopped waiting for 2 events; 0 arrived")
    }

    /// Compiles only if a `switch` over reasons can end in `default`.
    static func verdict(_ reason: Reason) -> String {
        switch reason {
        case .stopped: "stopped"
        case .timedOut(after: .seconds(1)): "one second"
        default: reason.timeout.map { "after \($0)" } ?? "other"
        }
    }

    @Test("a switch over the reason needs only a default")
    func switchingOverReasons() {
        #expect(Self.verdict(.stopped) == "stopped")
        #expect(Self.verdict(.timedOut(after: .seconds(1))) == "one second")
        #expect(Self.verdict(.timedOut(after: .seconds(2))) == "after 2.0 seconds")
    }
}
