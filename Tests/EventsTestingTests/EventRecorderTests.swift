import Dispatch
import Events
import Testing

@testable import EventsTesting

@Suite("EventRecorder")
struct EventRecorderTests {
    @Test("records an event dispatched right after it is created, with its sender and order")
    func recordsAtOnce() {
        let center = EventCenter()
        let editor = Editor()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1), from: editor)
        center.dispatch(Saved(id: 2))

        #expect(recorder.events == [Saved(id: 1), Saved(id: 2)])
        #expect(recorder.count == 2)
        let records = recorder.records
        #expect(records.map(\.index) == [0, 1])
        #expect(records[0].wasSent(by: editor))
        #expect(records[0].sender?.typeName == "Editor")
        #expect(records[1].sender == nil)
        #expect(records[0].sequence < records[1].sequence)
    }

    @Test("remembers the line that created it")
    func callSite() {
        let recorder = EventRecorder(of: Saved.self, in: EventCenter()); let line = #line
        #expect(recorder.callSite.line == line)
        #expect(recorder.callSite.fileID == #fileID)
        #expect(recorder.description == "EventRecorder<Saved> (created at \(#fileID):\(line))")
    }

    @Test("does not keep a sender alive")
    func senderNotRetained() {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        weak var gone: Editor?
        do {
            let editor = Editor()
            gone = editor
            center.dispatch(Saved(id: 1), from: editor)
        }
        #expect(gone == nil)
        #expect(recorder.records.first?.sender?.typeName == "Editor")
    }

    @Test("with from:, records only the events of that sender")
    func fromSender() {
        let center = EventCenter()
        let editor = Editor()
        let recorder = EventRecorder(of: Saved.self, in: center, from: editor)
        center.dispatch(Saved(id: 1), from: Importer())
        center.dispatch(Saved(id: 2), from: editor)
        center.dispatch(Saved(id: 3))
        #expect(recorder.events == [Saved(id: 2)])
        #expect(recorder.description.hasPrefix("EventRecorder<Saved from Editor>"))
    }

    @Test("records one name, or every name but no typed event")
    func namedEvents() {
        let center = EventCenter()
        let editor = Editor()
        let opened = EventRecorder(named: "opened", in: center)
        let every = EventRecorder(everyNameIn: center)
        center.dispatch("opened", from: editor)
        center.dispatch("closed")
        center.dispatch(Saved(id: 1))

        #expect(opened.events.map(\.name) == ["opened"])
        #expect(opened.records[0].wasSent(by: editor))
        #expect(every.events.map(\.name) == ["opened", "closed"])
        #expect(opened.description.hasPrefix("EventRecorder<events named opened>"))
        #expect(every.description.hasPrefix("EventRecorder<every named event>"))
    }

    @Test("orders the events of several recorders by their sequence")
    func sequenceAcrossRecorders() {
        let center = EventCenter()
        let saved = EventRecorder(of: Saved.self, in: center)
        let closed = EventRecorder(of: Closed.self, in: center)
        center.dispatch(Saved(id: 1))
        center.dispatch(Closed())
        center.dispatch(Saved(id: 2))
        let order =
            (saved.records.map { ($0.sequence, "saved \($0.event.id)") }
            + closed.records.map { ($0.sequence, "closed") })
            .sorted { $0.0 < $1.0 }.map(\.1)
        #expect(order == ["saved 1", "closed", "saved 2"])
    }

    @Test("next() returns the unconsumed events in order, then waits for the next one")
    func nextInOrder() async throws {
        let center = EventCenter()
        // Nobody advances this clock: the default timeout cannot end the wait below.
        let recorder = EventRecorder(of: Saved.self, in: center, clock: TestClock())
        center.dispatch(Saved(id: 1))
        center.dispatch(Saved(id: 2))
        #expect(try await recorder.next() == Saved(id: 1))
        #expect(try await recorder.nextRecord().index == 1)

        let waiting = Task { try await recorder.next() }
        // The wait is registered under the lock before its task suspends: once it is there,
        // the event below can only reach it through the waiter.
        #expect(await eventually { recorder.state.withLock { !$0.waiters.isEmpty } })
        center.dispatch(Saved(id: 3))
        #expect(try await waiting.value == Saved(id: 3))
        #expect(recorder.unconsumed.isEmpty)
    }

    @Test("next(timeout:clock:) throws a timeout saying how many events arrived, on the test clock")
    func nextTimesOut() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1))
        _ = try await recorder.next()

        let waiting = Task { try await recorder.next(timeout: .seconds(5), clock: clock) }
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: EventRecorderError.self) { try await waiting.value }
        #expect(error?.reason == .timedOut(after: .seconds(5)))
        #expect(error?.expectedCount == 2)
        #expect(error?.recordedCount == 1)
        #expect(error?.description.contains("timed out after 5.0 seconds waiting for 2 events; 1 arrived") == true)
        #expect(recorder.state.withLock { $0.waiters.isEmpty })
    }

    @Test("an event before the timeout wins, and the timer stops sleeping")
    func nextBeatsTimeout() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let recorder = EventRecorder(of: Saved.self, in: center)
        let waiting = Task { try await recorder.next(timeout: .seconds(5), clock: clock) }
        try await clock.waitForSleepers(count: 1)
        center.dispatch(Saved(id: 7))
        #expect(try await waiting.value == Saved(id: 7))
        #expect(await eventually { clock.sleeperCount == 0 })
    }

    @Test("waitFor(count:) returns the first events once enough arrived, and consumes them")
    func waitForCount() async throws {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        let waiting = Task { try await recorder.waitFor(count: 2) }
        Task.detached {
            for id in 1...3 { center.dispatch(Saved(id: id)) }
        }
        let events = try await waiting.value
        #expect(events == [Saved(id: 1), Saved(id: 2)])
        try await recorder.waitFor(count: 3)
        #expect(recorder.unconsumed.isEmpty)
    }

    @Test("waitFor(count:) that times out says how many arrived")
    func waitForTimesOut() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1))
        let waiting = Task { try await recorder.waitFor(count: 3, timeout: .seconds(2), clock: clock) }
        try await clock.waitForSleepers(count: 1)
        center.dispatch(Saved(id: 2))
        clock.advance(by: .seconds(2))
        let error = await #expect(throws: EventRecorderError.self) { try await waiting.value }
        #expect(error?.expectedCount == 3)
        #expect(error?.recordedCount == 2)
        // Nothing was handed out, so nothing was consumed.
        #expect(recorder.unconsumed.count == 2)
    }

    @Test("cancelling a waiting task ends its wait with CancellationError and leaves no waiter")
    func cancellation() async throws {
        let recorderClock = TestClock()
        let recorder = EventRecorder(of: Saved.self, in: EventCenter(), clock: recorderClock)
        let clock = TestClock()
        let untimed = Task { try await recorder.next() }
        let timed = Task { try await recorder.next(timeout: .seconds(1), clock: clock) }
        #expect(await eventually { recorder.state.withLock { $0.waiters.count == 2 } })
        untimed.cancel()
        timed.cancel()
        await #expect(throws: CancellationError.self) { try await untimed.value }
        await #expect(throws: CancellationError.self) { try await timed.value }
        #expect(recorder.state.withLock { $0.waiters.isEmpty })
        #expect(await eventually { clock.sleeperCount == 0 && recorderClock.sleeperCount == 0 })
    }

    @Test("a task cancelled before it waits throws CancellationError at once")
    func cancelledBeforeWaiting() async {
        let recorder = EventRecorder(of: Saved.self, in: EventCenter())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await recorder.next()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(recorder.state.withLock { $0.waiters.isEmpty })
    }

    @Test("stop() removes the listener, keeps the events, and ends pending waits")
    func stop() async throws {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center, clock: TestClock())
        center.dispatch(Saved(id: 1))
        _ = try await recorder.next()
        let waiting = Task { try await recorder.next() }
        #expect(await eventually { recorder.state.withLock { !$0.waiters.isEmpty } })
        recorder.stop()
        let error = await #expect(throws: EventRecorderError.self) { try await waiting.value }
        #expect(error?.reason == .stopped)
        #expect(center.listenerCount(for: Saved.self) == 0)
        center.dispatch(Saved(id: 2))
        #expect(recorder.events == [Saved(id: 1)])
        #expect(!recorder.isRecording)
        await #expect(throws: EventRecorderError.self) { try await recorder.next() }
        recorder.stop()
    }

    // MARK: The recorder's timeout

    @Test("next() gives up after the recorder's timeout, three seconds by default, measured on the recorder's clock")
    func nextUsesTheRecordersTimeout() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let recorder = EventRecorder(of: Saved.self, in: center, clock: clock)
        #expect(recorder.timeout == .seconds(3))

        let waiting = Task { try await recorder.next() }
        let timerStarted = Task { try await clock.waitForSleepers(count: 1) }
        // Fails with CancellationError when next() starts no timeout on the recorder's clock.
        try await outcome(of: timerStarted).get()
        #expect(clock.deadlines == [TestClock.Instant(offset: .seconds(3))])
        clock.advance(by: .milliseconds(2_999))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))

        let error = await #expect(throws: EventRecorderError.self) { try await outcome(of: waiting).get() }
        #expect(error?.reason == .timedOut(after: .seconds(3)))
        #expect(error?.expectedCount == 1)
        #expect(error?.recordedCount == 0)
        #expect(
            error?.description
                == "\(recorder.description): timed out after 3.0 seconds waiting for 1 event; 0 arrived")
        #expect(recorder.state.withLock { $0.waiters.isEmpty })
    }

    @Test("nextRecord() waits for the timeout given to the initializer, for every kind of recorder")
    func nextRecordUsesTheGivenTimeout() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let named = EventRecorder(named: "opened", in: center, timeout: .seconds(1), clock: clock)
        let every = EventRecorder(everyNameIn: center, timeout: .seconds(2), clock: clock)
        #expect(named.timeout == .seconds(1))
        #expect(every.timeout == .seconds(2))
        #expect(EventRecorder(everyNameIn: center).timeout == .seconds(3))

        let first = Task { try await named.nextRecord() }
        let second = Task { try await every.nextRecord() }
        let timersStarted = Task { try await clock.waitForSleepers(count: 2) }
        try await outcome(of: timersStarted).get()
        #expect(clock.deadlines.map(\.offset) == [.seconds(1), .seconds(2)])
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: EventRecorderError.self) { try await outcome(of: first).get() }
        #expect(error?.reason == .timedOut(after: .seconds(1)))
        // The other recorder's wait goes on until its own deadline; an event ends it first.
        #expect(clock.sleeperCount == 1)
        center.dispatch("closed")
        #expect(try await outcome(of: second).get().event.name == "closed")
    }

    @Test("without a clock, the recorder's timeout is measured on ContinuousClock")
    func defaultTimeoutOnContinuousClock() async {
        let recorder = EventRecorder(of: Saved.self, in: EventCenter(), timeout: .milliseconds(20))
        let waiting = Task { try await recorder.next() }
        let error = await #expect(throws: EventRecorderError.self) { try await outcome(of: waiting).get() }
        #expect(error?.reason == .timedOut(after: .milliseconds(20)))
    }

    @Test("next(timeout:clock:) measures its own timeout on its own clock, not the recorder's")
    func explicitTimeoutWins() async throws {
        let recorderClock = TestClock()
        let clock = TestClock()
        let recorder = EventRecorder(of: Saved.self, in: EventCenter(), clock: recorderClock)
        let waiting = Task { try await recorder.next(timeout: .seconds(5), clock: clock) }
        let timerStarted = Task { try await clock.waitForSleepers(count: 1) }
        try await outcome(of: timerStarted).get()
        #expect(recorderClock.sleeperCount == 0)
        recorderClock.advance(by: .seconds(10))
        clock.advance(by: .seconds(5))
        let error = await #expect(throws: EventRecorderError.self) { try await outcome(of: waiting).get() }
        #expect(error?.reason == .timedOut(after: .seconds(5)))
    }

    // MARK: Stopping and ignoring what is left

    @Test("stopIgnoringRemainingEvents() stops, ends pending waits, and leaves nothing unconsumed")
    func stopIgnoringRemainingEvents() async throws {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center, clock: TestClock())
        let other = EventRecorder(of: Saved.self, in: center, clock: TestClock())
        center.dispatch(Saved(id: 1))
        center.dispatch(Saved(id: 2))
        center.dispatch(Saved(id: 3))
        _ = try await recorder.next()
        try await other.waitFor(count: 3)
        let waiting = Task { try await other.next() }
        #expect(await eventually { other.state.withLock { !$0.waiters.isEmpty } })

        recorder.stopIgnoringRemainingEvents()
        other.stopIgnoringRemainingEvents()
        #expect(!recorder.isRecording)
        #expect(recorder.unconsumed.isEmpty)
        #expect(recorder.events == [Saved(id: 1), Saved(id: 2), Saved(id: 3)])
        // Nothing is reported as left over: an issue here would fail the test.
        #expect(recorder.expectAllConsumed())
        let error = await #expect(throws: EventRecorderError.self) { try await outcome(of: waiting).get() }
        #expect(error?.reason == .stopped)
        #expect(center.listenerCount(for: Saved.self) == 0)
        center.dispatch(Saved(id: 4))
        #expect(recorder.count == 3)
        recorder.stopIgnoringRemainingEvents()
    }

    @Test("stop() keeps the events left unconsumed; stopIgnoringRemainingEvents() after it accepts them")
    func stopKeepsLeftovers() {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        center.dispatch(Saved(id: 1))
        recorder.stop()
        #expect(recorder.unconsumed.map(\.event) == [Saved(id: 1)])
        recorder.stopIgnoringRemainingEvents()
        #expect(recorder.unconsumed.isEmpty)
        #expect(recorder.expectAllConsumed())
    }

    @Test("dropping the recorder removes its listener")
    func deinitRemovesListener() {
        let center = EventCenter()
        var recorder: EventRecorder<Saved>? = EventRecorder(of: Saved.self, in: center)
        #expect(center.listenerCount(for: Saved.self) == 1)
        weak let weakRecorder = recorder
        recorder = nil
        #expect(weakRecorder == nil)
        #expect(center.listenerCount(for: Saved.self) == 0)
    }

    @Test("records every event dispatched from several threads at once, each with its own index")
    func concurrentDispatch() async throws {
        let center = EventCenter()
        let recorder = EventRecorder(of: Saved.self, in: center)
        let perThread = 500
        let waiting = Task { try await recorder.waitFor(count: 4 * perThread) }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for n in 0..<perThread { center.dispatch(Saved(id: thread * perThread + n)) }
        }
        let events = try await waiting.value
        #expect(Set(events.map(\.id)) == Set(0..<(4 * perThread)))
        #expect(recorder.records.map(\.index) == Array(0..<(4 * perThread)))
    }
}
