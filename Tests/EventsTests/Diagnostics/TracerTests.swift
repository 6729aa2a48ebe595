import Dispatch
import Foundation
import Testing

@testable import Events

/// Keeps every trace it is given.
final class TraceLog: EventTracer {
    private let dispatches = Recorder<DispatchTrace>()
    private let deliveries = Recorder<DeliveryTrace>()
    var dispatchTraces: [DispatchTrace] { dispatches.values }
    var deliveryTraces: [DeliveryTrace] { deliveries.values }
    func didDispatch(_ trace: DispatchTrace) { dispatches.record(trace) }
    func didRunQueuedDelivery(_ trace: DeliveryTrace) { deliveries.record(trace) }
}

@Suite("Tracing")
struct TracerTests {
    struct Saved: Event { let id: Int }
    struct Indexed: Event {}
    final class Editor: Sendable {}

    @Test("a trace has the event, sender, call site and each listener's outcome, context and duration")
    func traceOfOneDispatch() throws {
        struct Broken: Error {}
        let center = EventCenter()
        center.errorHandler = { _ in }
        let log = TraceLog()
        center.tracer = log
        let editor = Editor()
        let queue = DispatchQueue(label: "com.example.index")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let ran = center.listen(to: Saved.self, priority: .high) { _ in }
        center.listen(to: Saved.self, owner: editor, on: .queue(queue)) { _, _ in }
        let failing = center.listen(to: Saved.self) { _ in throw Broken() }
        let filtered = center.listen(to: Saved.self, from: Editor()) { _ in }
        let line = #line + 1
        #expect(center.dispatch(Saved(id: 1), from: editor) == 3)
        gate.signal()

        let trace = try #require(log.dispatchTraces.first)
        #expect(trace.id == 1 && trace.parent == nil && trace.depth == 0)
        #expect(trace.eventDescription == "Saved")
        #expect((trace.event as? Saved)?.id == 1)
        #expect(trace.senderType == "Editor")
        #expect(trace.callSite?.line == line)
        #expect(trace.listeners.map(\.outcome) == [.ran, .queued, .failed, .skipped])
        #expect(trace.listeners[1].ownerType == "Editor")
        #expect(trace.listeners[1].context == "queue com.example.index")
        #expect(trace.received == 3)
        #expect(trace.duration >= trace.listeners.map(\.duration).reduce(.zero, +))
        withExtendedLifetime((ran, failing, filtered, editor)) {}
    }

    @Test("a trace lists no listener, one, or several, with what each did, and the one that stopped it")
    func listenerCounts() throws {
        let center = EventCenter()
        let log = TraceLog()
        center.tracer = log
        center.dispatch(Indexed())
        let alone = center.listen(to: Saved.self) { _ in }
        center.dispatch(Saved(id: 1))
        let second = center.listen(to: Saved.self, from: Editor()) { _ in }
        let stopper = center.intercept(Saved.self) { _ in .stop }
        let line = #line - 1
        center.dispatch(Saved(id: 2))

        let traces = log.dispatchTraces
        #expect(traces.count == 3)
        #expect(traces[0].listeners.isEmpty && traces[0].received == 0 && traces[0].stoppedBy == nil)
        #expect(traces[0].duration == .zero, "no listener reached")
        #expect(traces[1].listeners.map(\.outcome) == [.ran] && traces[1].received == 1)
        #expect(traces[1].stoppedBy == nil)
        #expect(traces[2].listeners.map(\.outcome) == [.ran, .skipped, .ran])
        #expect(traces[2].received == 2)
        #expect(try #require(traces[2].stoppedBy).callSite.line == line)
        for trace in traces {
            #expect(trace.duration == trace.listeners.map(\.duration).reduce(.zero, +), "the listeners' times add up")
        }
        withExtendedLifetime((alone, second, stopper)) {}
    }

    @Test("a queued delivery is traced when it runs, linked to its dispatch, with its wait")
    func queuedDeliveryTrace() async throws {
        let center = EventCenter()
        let log = TraceLog()
        center.tracer = log
        let queued = center.listen(to: Saved.self, on: .background) { _ in }
        center.dispatch(Saved(id: 1))
        #expect(await eventually { log.deliveryTraces.count == 1 })
        let delivery = try #require(log.deliveryTraces.first)
        #expect(delivery.ran && !delivery.failed)
        #expect(delivery.context == "background queue")
        #expect(delivery.eventDescription == "Saved")
        withExtendedLifetime(queued) {}
    }

    @Test("nested dispatches name their parent and depth, and report before it")
    func nestedTraces() {
        let center = EventCenter()
        let log = TraceLog()
        center.tracer = log
        let relay = center.listen(to: Saved.self) { _ in center.dispatch(Indexed()) }
        center.dispatch(Saved(id: 1))
        let traces = log.dispatchTraces
        #expect(traces.map(\.eventDescription) == ["Indexed", "Saved"])
        #expect(traces[0].parent == traces[1].id && traces[0].depth == 1)
        withExtendedLifetime(relay) {}
    }

    /// Keeps the lines of each trace's listeners and lets the trace itself go.
    final class ListenerLines: EventTracer {
        private let lines = Recorder<[Int]>()
        var values: [[Int]] { lines.values }
        func didDispatch(_ trace: DispatchTrace) { lines.record(trace.listeners.map(\.callSite.line)) }
    }

    @Test("a tracer that lets its traces go sees each dispatch's own listeners, nested ones included")
    func tracesLetGo() {
        let center = EventCenter()
        let tracer = ListenerLines()
        center.tracer = tracer
        let first = center.listen(to: Saved.self) { saved in if saved.id == 2 { center.dispatch(Indexed()) } }
        let firstLine = #line - 1
        let second = center.listen(to: Saved.self) { _ in }
        let secondLine = #line - 1
        let indexed = center.listen(to: Indexed.self) { _ in }
        let indexedLine = #line - 1
        center.dispatch(Saved(id: 1))
        center.dispatch(Indexed())
        center.dispatch(Saved(id: 2))
        center.dispatch(Indexed())
        #expect(
            tracer.values == [
                [firstLine, secondLine], [indexedLine], [indexedLine], [firstLine, secondLine], [indexedLine],
            ])
        withExtendedLifetime((first, second, indexed)) {}
    }

    @Test("named dispatches and awaitable dispatches are traced too")
    func namedAndAwaitable() async {
        let center = EventCenter()
        let log = TraceLog()
        center.tracer = log
        let named = center.listen(to: EventName("ready")) { _ in }
        center.dispatch(EventName("ready"))
        let report = await center.dispatchAndWait(Saved(id: 2))
        #expect(report.received == 0)
        #expect(log.dispatchTraces.map(\.eventDescription) == ["\"ready\"", "Saved"])
        withExtendedLifetime(named) {}
    }

    @Test("with the tracer removed, nothing more is traced")
    func removingTheTracer() {
        let center = EventCenter()
        let log = TraceLog()
        center.tracer = log
        center.dispatch(Saved(id: 1))
        center.tracer = nil
        center.dispatch(Saved(id: 2))
        #expect(log.dispatchTraces.count == 1)
    }

    @Test("the timeline tracer writes a line per dispatch and per listener, indented by nesting")
    func timeline() {
        let center = EventCenter()
        let lines = Recorder<String>()
        center.tracer = TimelineTracer { lines.record($0) }
        let relay = center.listen(to: Saved.self) { _ in center.dispatch(Indexed()) }
        center.dispatch(Saved(id: 1), from: Editor())
        let output = lines.values.joined(separator: "\n")
        #expect(output.contains("#2 Indexed"))
        #expect(output.contains("in #1"))
        #expect(output.contains("#1 Saved from Editor"))
        #expect(output.contains("1 of 1 received"))
        #expect(output.contains("on posting thread: ran"))
        withExtendedLifetime(relay) {}
    }

    @Test(
        "the observed loop keeps the rules: priority order, once, and a listener cancelled mid-dispatch is not called")
    func observedLoopKeepsTheRules() {
        let center = EventCenter()
        center.diagnostics = .development
        center.warningHandler = { _ in }
        let order = Recorder<String>()
        let later = Recorder<Subscription>()
        let first = center.listen(to: Saved.self, priority: .high) { _ in
            order.record("high")
            later.values.first?.cancel()
        }
        later.record(center.listen(to: Saved.self) { _ in order.record("cancelled") })
        let once = center.listen(to: Saved.self, priority: .low, once: true) { _ in order.record("once") }
        center.dispatch(Saved(id: 1))
        center.dispatch(Saved(id: 2))
        #expect(order.values == ["high", "once", "high"])
        withExtendedLifetime((first, once)) {}
    }
}
