import Events
import EventsTesting
import Testing

@Suite("Expectations")
struct ExpectationTests {
    @Test("expect records no issue when the events match, and consumes them")
    func expectMatches() {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1))
        center.dispatch(Saved(id: 2))
        #expect(recorder.expect([Saved(id: 1), Saved(id: 2)]))
        #expect(recorder.unconsumed.isEmpty)
        // Only the unconsumed events are compared.
        center.dispatch(Saved(id: 3))
        #expect(recorder.expect([Saved(id: 3)]))
        #expect(recorder.expect([]))
    }

    @Test("expect records an issue with a diff: matching, missing and unexpected lines with indices")
    func expectDiff() {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center); let line = #line
        let editor = Editor()
        center.dispatch(Saved(id: 1))
        center.dispatch(Saved(id: 3), from: editor)
        center.dispatch(Saved(id: 4))
        withKnownIssue {
            #expect(!recorder.expect([Saved(id: 1), Saved(id: 2), Saved(id: 4)]))
        } matching: { issue in
            let text = message(of: issue)
            let lines = text.split(separator: "\n").map(String.init)
            return lines.count == 5
                && lines[0] == "EventRecorder<Saved> (created at \(#fileID):\(line)): the events differ from the "
                    + "expected ones (3 expected, 3 recorded)"
                && lines[1] == "  matching    #0    Saved(id: 1)"
                && lines[2] == "  missing           Saved(id: 2)  (expected[1])"
                && lines[3].hasPrefix("  unexpected  #1    Saved(id: 3)  from Editor@0x")
                && lines[4] == "  matching    #2    Saved(id: 4)"
        }
        #expect(recorder.unconsumed.isEmpty)
    }

    @Test("a long list is compared position by position, still naming each difference")
    func longDiff() {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        for id in 0..<1_200 { center.dispatch(Saved(id: id == 700 ? -1 : id)) }
        withKnownIssue {
            recorder.expect((0..<1_200).map(Saved.init))
        } matching: { issue in
            let lines = message(of: issue).split(separator: "\n")
            return lines.count == 1 + 1_201
                && lines.contains("  missing           Saved(id: 700)  (expected[700])")
                && lines.contains("  unexpected  #700  Saved(id: -1)")
                && lines.last == "  matching    #1199 Saved(id: 1199)"
        }
    }

    @Test("the issue of a failed expectation points at the line of the call")
    func issueLocation() {
        let recorder = EventRecorder(of: Saved.self, in: EventCenter())
        let expectedLine = #line + 2
        withKnownIssue {
            recorder.expect([Saved(id: 1)])
        } matching: { issue in
            issue.sourceLocation?.line == expectedLine && issue.sourceLocation?.fileID == #fileID
                && message(of: issue).contains("missing           Saved(id: 1)  (expected[0])")
        }
    }

    @Test("expect comparing a property checks events that are not Equatable")
    func expectComparing() {
        let center = EventCenter()
        let recorder = EventRecorder(everyNameIn: center)
        center.dispatch("opened")
        center.dispatch("closed")
        #expect(recorder.expect(["opened", "closed"], comparing: \.name))
        center.dispatch("opened")
        withKnownIssue {
            recorder.expect(["closed"], comparing: \.name)
        } matching: { issue in
            let text = message(of: issue)
            return text.contains("unexpected  #2    opened") && text.contains("missing           closed")
        }
    }

    @Test("expect within a timeout waits for events dispatched from another task")
    func expectWithin() async {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        Task.detached {
            center.dispatch(Saved(id: 1))
            center.dispatch(Saved(id: 2))
        }
        #expect(await recorder.expect([Saved(id: 1), Saved(id: 2)], within: .seconds(15)))
    }

    @Test("expect within a timeout that passes lists the events that did not come as missing")
    func expectWithinTimesOut() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1))
        let checking = Task {
            await withKnownIssue {
                await recorder.expect([Saved(id: 1), Saved(id: 2)], within: .seconds(1), clock: clock)
            } matching: { issue in
                message(of: issue).contains("missing           Saved(id: 2)  (expected[1])")
            }
        }
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(1))
        await checking.value
    }

    @Test("expectNoEvents passes when the duration passes on the clock without an event")
    func noEventsPasses() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let recorder = EventRecorder(of: Saved.self, in: center)
        let checking = Task { await recorder.expectNoEvents(within: .seconds(1), clock: clock) }
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(1))
        #expect(await checking.value)
    }

    @Test("expectNoEvents records an issue naming the event that arrived, as soon as it arrives")
    func noEventsFails() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let recorder = EventRecorder(of: Saved.self, in: center)
        let checking = Task {
            await withKnownIssue {
                await recorder.expectNoEvents(within: .seconds(60), clock: clock)
            } matching: { issue in
                message(of: issue).hasSuffix(
                    "expected no event within 60.0 seconds, but 1 event was recorded\n  #0 Saved(id: 5)")
            }
        }
        try await clock.waitForSleepers(count: 1)
        center.dispatch(Saved(id: 5))
        // Returns without the clock being advanced.
        await checking.value
        #expect(recorder.unconsumed.isEmpty)
    }

    @Test("expectNoEvents fails at once when an unconsumed event is already there")
    func noEventsWithLeftover() async {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1))
        await withKnownIssue {
            await recorder.expectNoEvents(within: .seconds(60), clock: TestClock())
        } matching: { issue in
            message(of: issue).contains("#0 Saved(id: 1)")
        }
    }

    @Test("expectAllConsumed lists the events never consumed, and passes once all are")
    func allConsumed() async throws {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1))
        center.dispatch(Saved(id: 2))
        _ = try await recorder.next()
        withKnownIssue {
            recorder.expectAllConsumed()
        } matching: { issue in
            message(of: issue).hasSuffix("1 event was recorded and never consumed\n  #1 Saved(id: 2)")
        }
        #expect(recorder.expectAllConsumed())
    }

    @Test("withEventRecorder fails the test at its own line when events are left unconsumed")
    func scopedRecorderReportsLeftovers() async throws {
        let center = EventCenter()
        let scopeLine = #line + 2
        try await withKnownIssue {
            try await withEventRecorder(of: Saved.self, in: center) { recorder in
                center.dispatch(Saved(id: 1))
                center.dispatch(Saved(id: 2))
                let first = try await recorder.next()
                #expect(first == Saved(id: 1))
            }
        } matching: { issue in
            issue.sourceLocation?.line == scopeLine
                && message(of: issue).hasSuffix("1 event was recorded and never consumed\n  #1 Saved(id: 2)")
        }
        // The recorder stopped with its scope.
        #expect(center.listenerCount(for: Saved.self) == 0)
    }

    @Test("withEventRecorder records no issue when every event was consumed, and returns the body's value")
    func scopedRecorderPasses() async throws {
        let center = EventCenter()
        let titles = try await withEventRecorder(named: "saved", in: center) { recorder in
            center.dispatch("saved")
            return try await recorder.waitFor(count: 1).map(\.name.rawValue)
        }
        #expect(titles == ["saved"])
        await withEventRecorder(everyNameIn: center) { recorder in
            center.dispatch("closed")
            recorder.expect(["closed"], comparing: \.name)
        }
    }

    @Test("withEventRecorder rethrows the body's error without listing leftovers")
    func scopedRecorderRethrows() async {
        struct Stop: Error {}
        let center = EventCenter()
        await #expect(throws: Stop.self) {
            try await withEventRecorder(of: Saved.self, in: center) { _ in
                center.dispatch(Saved(id: 1))
                throw Stop()
            }
        }
    }
}
