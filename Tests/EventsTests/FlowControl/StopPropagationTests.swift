import Dispatch
import Synchronization
import Testing

@testable import Events

@Suite("Stopping propagation")
struct StopPropagationTests {
    struct Checkout: Event { let total: Int }
    struct Audit: Event {}
    struct Broken: Error {}
    final class Validator: Sendable {
        let limit: Int
        init(limit: Int) { self.limit = limit }
    }

    @Test("a higher-priority listener that returns .stop keeps the lower ones from the event")
    func stopsLowerPriorities() {
        let center = EventCenter()
        let log = Recorder<String>()
        let guardrail = center.intercept(Checkout.self, priority: .high) { checkout in
            log.record("validator \(checkout.total)")
            return checkout.total > 0 ? .continue : .stop
        }
        let payment = center.listen(to: Checkout.self) { checkout in log.record("payment \(checkout.total)") }
        let receipt = center.listen(to: Checkout.self, priority: .low) { checkout in
            log.record("receipt \(checkout.total)")
        }

        #expect(center.dispatch(Checkout(total: 5)) == 3)
        #expect(center.dispatch(Checkout(total: 0)) == 1)
        #expect(log.values == ["validator 5", "payment 5", "receipt 5", "validator 0"])
        _ = (guardrail, payment, receipt)
    }

    @Test("at equal priority a stop holds back the listeners registered after it, not those before")
    func equalPriorityOrder() {
        let center = EventCenter()
        let log = Recorder<String>()
        let first = center.listen(to: Audit.self) { _ in log.record("first") }
        let stopper = center.intercept(Audit.self) { _ -> Propagation in
            log.record("stopper")
            return .stop
        }
        let last = center.listen(to: Audit.self) { _ in log.record("last") }
        #expect(center.dispatch(Audit()) == 2)
        #expect(log.values == ["first", "stopper"])
        _ = (first, stopper, last)
    }

    @Test("dispatchWithResult says that the dispatch stopped, and which listener stopped it")
    func resultNamesTheStopper() throws {
        let center = EventCenter()
        let validator = Validator(limit: 10)
        center.intercept(Checkout.self, owner: validator, key: "limit", priority: .high) { validator, checkout in
            checkout.total <= validator.limit ? .continue : .stop
        }
        let line = #line - 3
        let payment = center.listen(to: Checkout.self) { _ in }

        let passed = center.dispatchWithResult(Checkout(total: 3))
        #expect(passed.received == 2)
        #expect(!passed.isStopped)
        #expect(passed.stoppedBy == nil)

        let stopped = center.dispatchWithResult(Checkout(total: 30))
        #expect(stopped.received == 1)
        #expect(stopped.isStopped)
        let stopper = try #require(stopped.stoppedBy)
        #expect(stopper.line == line)
        #expect(stopper.ownerType == "Validator")
        #expect(stopper.key == "limit")
        #expect(stopper.priority == "high")
        #expect(String(describing: stopped).contains("stopped by"))
        _ = payment
    }

    @Test("with no listener at all the result is empty and not stopped")
    func emptyResult() {
        let result = EventCenter().dispatchWithResult(Audit())
        #expect(result.received == 0)
        #expect(!result.isStopped)
    }

    @Test("a stop keeps lower-priority listeners in other contexts from being handed the event")
    func otherContexts() async {
        let center = EventCenter()
        let log = Recorder<String>()
        let early = center.listen(to: Checkout.self, on: .background, priority: 10) { _ in log.record("early queued") }
        let stopper = center.intercept(Checkout.self, priority: 5) { _ in .stop }
        let late = center.listen(to: Checkout.self, on: .background, priority: 0) { _ in log.record("late queued") }
        let stream = center.events(of: Checkout.self)

        #expect(center.dispatch(Checkout(total: 1)) == 2)
        await center.idle()
        #expect(log.values == ["early queued"])

        stopper.cancel()
        center.dispatch(Checkout(total: 2))
        // The stream, lower in the order than the stopper, missed the first event only. (It is
        // read before `idle()`, which waits for buffered stream events to be taken.)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.total == 2)
        await center.idle()
        #expect(log.values == ["early queued", "early queued", "late queued"])
        _ = (early, late)
    }

    @Test("a handler that throws does not stop propagation")
    func throwingDoesNotStop() {
        let center = EventCenter()
        let failures = Recorder<String>()
        center.errorHandler = { failures.record("\($0.error)") }
        let reached = Counter()
        let failing = center.intercept(Audit.self, priority: .high) { _ -> Propagation in throw Broken() }
        let next = center.listen(to: Audit.self) { _ in reached.increment() }
        let result = center.dispatchWithResult(Audit())
        #expect(!result.isStopped)
        #expect(result.received == 2)
        #expect(reached.value == 1)
        #expect(failures.values.count == 1)
        _ = (failing, next)
    }

    @Test("dispatchAndWait reports the stop, and the queued deliveries before it")
    func awaitableReport() async throws {
        let center = EventCenter()
        let ran = Counter()
        let queued = center.listen(to: Checkout.self, on: .background, priority: .high) { _ in ran.increment() }
        let stopper = center.intercept(Checkout.self) { _ in .stop }
        let line = #line - 1
        let unreached = center.listen(to: Checkout.self, priority: .low) { _ in ran.increment(by: 100) }
        let report = await center.dispatchAndWait(Checkout(total: 1))
        #expect(report.received == 2)
        #expect(report.isStopped)
        #expect(try #require(report.stoppedBy).line == line)
        #expect(ran.value == 1)
        let plain = await center.dispatchAndWait(Audit())
        #expect(!plain.isStopped)
        _ = (queued, stopper, unreached)
    }

    @Test("a stop ends only its own dispatch: nested dispatches and later ones are untouched")
    func nestedDispatches() {
        let center = EventCenter()
        let log = Recorder<String>()
        let outer = center.intercept(Checkout.self, priority: .high) { checkout -> Propagation in
            if checkout.total == 1 { center.dispatch(Checkout(total: 2)) }
            return checkout.total == 1 ? .stop : .continue
        }
        let inner = center.listen(to: Checkout.self) { checkout in log.record("low \(checkout.total)") }
        center.dispatch(Checkout(total: 1))
        center.dispatch(Checkout(total: 3))
        #expect(log.values == ["low 2", "low 3"])
        _ = (outer, inner)
    }

    @Test("named events stop too, and a stop holds back listeners of every name after it")
    func namedEvents() throws {
        let center = EventCenter()
        let log = Recorder<String>()
        let gate = center.intercept("checkout", priority: .high) { event in
            try event.data(as: Int.self) == 0 ? .stop : .continue
        }
        let line = #line - 3
        let named = center.listen(to: "checkout") { _ in log.record("named") }
        let every = center.listen(to: NamedEvent.self) { event in log.record("every \(event.name)") }
        #expect(center.dispatch("checkout", data: 4) == 3)
        let result = center.dispatchWithResult("checkout", data: 0)
        #expect(result.received == 1)
        #expect(try #require(result.stoppedBy).line == line)
        #expect(log.values == ["named", "every checkout"])

        // Registered after the gate at the same priority: the gate runs, then this one stops.
        let everyStopper = center.intercept(NamedEvent.self, priority: .high) { _ in .stop }
        #expect(center.dispatch("checkout", data: 4) == 2)
        #expect(log.values == ["named", "every checkout"])
        _ = (gate, named, every, everyStopper)
    }

    @Test("owner-bound stopping listeners follow the owner rules: a key makes a repeat a no-op, death ends it")
    func ownerRules() {
        let center = EventCenter()
        let reached = Counter()
        var validator: Validator? = Validator(limit: 0)
        for _ in 0..<3 {
            center.intercept(Checkout.self, owner: validator!, key: "gate", priority: .high) { _, _ in .stop }
        }
        #expect(center.listenerCount(for: Checkout.self) == 1)
        let payment = center.listen(to: Checkout.self) { _ in reached.increment() }
        #expect(center.dispatch(Checkout(total: 1)) == 1)
        #expect(reached.value == 0)
        validator = nil
        #expect(center.dispatch(Checkout(total: 1)) == 1)
        #expect(reached.value == 1)
        _ = payment
    }

    @Test("a once listener that stops stops its one dispatch, then is gone")
    func onceStopper() {
        let center = EventCenter()
        let reached = Counter()
        let stopper = center.intercept(Sent<Audit>.self, priority: .high, once: true) { _ in .stop }
        let next = center.listen(to: Audit.self) { _ in reached.increment() }
        #expect(center.dispatchWithResult(Audit()).isStopped)
        #expect(!center.dispatchWithResult(Audit()).isStopped)
        #expect(reached.value == 1)
        #expect(!stopper.isActive)
        _ = next
    }

    @Test("with diagnostics on, a stop still holds, and the trace names the stopper")
    func observedDispatch() throws {
        let center = EventCenter()
        let traces = Recorder<DispatchTrace>()
        center.tracer = TraceCollector { traces.record($0) }
        let reached = Counter()
        let stopper = center.intercept(Audit.self, priority: .high) { _ in .stop }
        let line = #line - 1
        let next = center.listen(to: Audit.self) { _ in reached.increment() }
        let result = center.dispatchWithResult(Audit())
        #expect(result.isStopped)
        #expect(center.dispatch(Audit()) == 1)
        #expect(reached.value == 0)
        let trace = try #require(traces.values.first)
        #expect(trace.listeners.count == 1)
        #expect(try #require(trace.stoppedBy).callSite.line == line)

        let lines = Recorder<String>()
        center.tracer = TimelineTracer(write: { lines.record($0) })
        center.dispatch(Audit())
        #expect(lines.values.first?.contains("stopped by") == true)
        _ = (stopper, next)
    }

    @Test("a center takes the loop that can stop only once a stopping listener exists")
    func stoppingLoopOnlyWhenNeeded() {
        let center = EventCenter()
        let plain = center.listen(to: Audit.self) { _ in }
        #expect(center.flags.load(ordering: .relaxed) & SlowPathFlags.stoppers == 0)
        let stopper = center.intercept(Checkout.self) { _ in .stop }
        #expect(center.flags.load(ordering: .relaxed) & SlowPathFlags.stoppers != 0)
        // The flag is per center, whatever the event type.
        #expect(EventCenter().flags.load(ordering: .relaxed) & SlowPathFlags.stoppers == 0)
        _ = (plain, stopper)
    }

    @Test("a closure that could be read either way still registers the usual listener, and one that answers stops")
    func overloadResolution() {
        let center = EventCenter()
        // Each of these compiled before stopping listeners existed, and must pick the same form.
        let never = center.listen(to: Audit.self) { _ in fatalError("never dispatched") }
        let empty = center.listen(to: Audit.self) { _ in }
        let counter = Counter()
        let single = center.listen(to: Audit.self) { _ in counter.increment() }
        let throwing = center.listen(to: Audit.self) { _ in
            counter.increment()
            throw Broken()
        }
        #expect(!center.registry.snapshot(for: EventKey(Audit.self))!.contains { $0.traits.contains(.stops) })
        // A closure whose body is a `Propagation` written out in full is a stopping listener too,
        // not a plain one whose answer is thrown away.
        let spelledOut = center.listen(to: Checkout.self) { _ in Propagation.stop }
        #expect(center.registry.snapshot(for: EventKey(Checkout.self))!.allSatisfy { $0.traits.contains(.stops) })
        #expect(center.dispatchWithResult(Checkout(total: 1)).isStopped)
        // A closure whose result is an implicit `.stop` or `.continue`, or that says it returns
        // a `Propagation`, registers a stopping listener.
        let implicit = center.listen(to: Tick.self) { _ in .stop }
        let declared = center.listen(to: Tock.self) { _ -> Propagation in .continue }
        #expect(center.registry.snapshot(for: EventKey(Tick.self))!.allSatisfy { $0.traits.contains(.stops) })
        #expect(center.registry.snapshot(for: EventKey(Tock.self))!.allSatisfy { $0.traits.contains(.stops) })
        _ = (never, empty, single, throwing, spelledOut, implicit, declared)
    }
}

/// A tracer that hands each dispatch trace to a closure.
private struct TraceCollector: EventTracer {
    let body: @Sendable (DispatchTrace) -> Void
    func didDispatch(_ trace: DispatchTrace) { body(trace) }
}
