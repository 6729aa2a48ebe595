import Dispatch
import Foundation
import Testing

@testable import Events

private let first = try! TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
private let second = try! TraceContext(
    traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00", tracestate: "rojo=1")

/// What a listener saw as the current trace context, per event number.
private typealias Seen = Recorder<TraceSeen>

private struct TraceSeen: Sendable, Equatable {
    let n: Int
    let trace: TraceContext?
}

/// Dispatches `Tick(0)` inside `first`, `Tick(1)` outside any trace and `Tick(2)` inside
/// `second`, from the calling task, then waits until every listener has finished.
private func dispatchThree(_ center: EventCenter) async {
    TraceContext.withCurrent(first) { center.dispatch(Tick(n: 0)) }
    center.dispatch(Tick(n: 1))
    TraceContext.withCurrent(second) { center.dispatch(Tick(n: 2)) }
    await center.idle()
}

private let expected = [
    TraceSeen(n: 0, trace: first), TraceSeen(n: 1, trace: nil), TraceSeen(n: 2, trace: second),
]

private actor TraceLedger {
    var seen: [TraceSeen] = []
    func record(_ n: Int) { seen.append(TraceSeen(n: n, trace: TraceContext.current)) }
}

@Suite("Trace context: current while listeners run")
struct TraceContextDeliveryTests {
    @Test("withCurrent makes a context current for its operation only, and nests")
    func withCurrentScopes() async throws {
        #expect(TraceContext.current == nil)
        let inside = TraceContext.withCurrent(first) { TraceContext.current }
        #expect(inside == first)
        #expect(TraceContext.current == nil)
        TraceContext.withCurrent(first) {
            TraceContext.withCurrent(second) { #expect(TraceContext.current == second) }
            TraceContext.withCurrent(nil) { #expect(TraceContext.current == nil) }
            #expect(TraceContext.current == first)
        }
        struct Failed: Error {}
        #expect(throws: Failed.self) {
            try TraceContext.withCurrent(first) { () throws(Failed) in throw Failed() }
        }
        let fromChild = await TraceContext.withCurrent(second) {
            await Task { TraceContext.current }.value
        }
        #expect(fromChild == second)
    }

    @Test("a posting-thread listener sees the dispatch's context")
    func postingThread() async {
        let center = EventCenter()
        let seen = Seen()
        let subscription = center.listen(to: Tick.self) { tick in
            seen.record(TraceSeen(n: tick.n, trace: TraceContext.current))
        }
        await dispatchThree(center)
        #expect(seen.values == expected)
        withExtendedLifetime(subscription) {}
    }

    @Test("a listener on a dispatch queue, the background queue or an operation queue sees the dispatch's context")
    func queues() async {
        let center = EventCenter()
        let operations = OperationQueue()
        let recorders = [Seen(), Seen(), Seen(), Seen()]
        let deliveries: [Delivery] = [
            .queue(DispatchQueue(label: "trace.serial")),
            .queue(DispatchQueue(label: "trace.concurrent", attributes: .concurrent)),
            .background, .operationQueue(operations),
        ]
        let subscriptions = zip(deliveries, recorders).map { delivery, seen in
            center.listen(to: Tick.self, on: delivery) { tick in
                seen.record(TraceSeen(n: tick.n, trace: TraceContext.current))
            }
        }
        await dispatchThree(center)
        for seen in recorders { #expect(seen.values == expected) }
        withExtendedLifetime(subscriptions) {}
    }

    @Test("a main-actor listener sees the dispatch's context, dispatched from another thread or enqueued")
    func mainActor() async {
        let center = EventCenter()
        let seen = Seen()
        let ordered = Seen()
        let subscriptions = [
            center.listen(to: Tick.self, on: .main) { tick in
                seen.record(TraceSeen(n: tick.n, trace: TraceContext.current))
            },
            center.listen(to: Tick.self, on: .mainOrdered) { tick in
                ordered.record(TraceSeen(n: tick.n, trace: TraceContext.current))
            },
        ]
        // From threads of their own, so that `.main` queues rather than runs inline.
        await runOnThreads(1) { _ in
            TraceContext.withCurrent(first) { center.dispatch(Tick(n: 0)) }
            center.dispatch(Tick(n: 1))
            TraceContext.withCurrent(second) { center.dispatch(Tick(n: 2)) }
        }
        await center.idle()
        #expect(seen.values == expected)
        #expect(ordered.values == expected)
        // On the main actor, `.mainOrdered` is enqueued even so.
        await MainActor.run {
            _ = TraceContext.withCurrent(second) { center.dispatch(Tick(n: 3)) }
        }
        await center.idle()
        #expect(seen.values.last == TraceSeen(n: 3, trace: second))
        #expect(ordered.values.last == TraceSeen(n: 3, trace: second))
        withExtendedLifetime(subscriptions) {}
    }

    @Test("an actor listener sees the dispatch's context, and none after a dispatch outside any")
    func actorListener() async {
        let center = EventCenter()
        let ledger = TraceLedger()
        center.listen(to: Tick.self, isolatedTo: ledger) { ledger, tick in ledger.record(tick.n) }
        // The first dispatch starts the mailbox's drain task, which inherits its context: the
        // later deliveries it runs must not see that one.
        await dispatchThree(center)
        #expect(await ledger.seen == expected)
        TraceContext.withCurrent(first) { center.dispatch(Tick(n: 3)) }
        for n in 4..<40 { center.dispatch(Tick(n: n)) }
        await center.idle()
        let later = await ledger.seen.dropFirst(3)
        #expect(later.first == TraceSeen(n: 3, trace: first))
        #expect(later.dropFirst().allSatisfy { $0.trace == nil })
    }

    @Test("a named event's listener in another context sees the dispatch's context")
    func namedEvents() async {
        let center = EventCenter()
        let name = EventName("traced")
        let seen = Recorder<TraceContext?>()
        let subscription = center.listen(to: name, on: .background) { _ in seen.record(TraceContext.current) }
        TraceContext.withCurrent(first) { center.dispatch(name) }
        center.dispatch(name)
        await center.idle()
        #expect(seen.values == [first, nil])
        withExtendedLifetime(subscription) {}
    }

    @Test("dispatches from many threads at once each reach a queued listener with their own context")
    func concurrentDispatches() async throws {
        let center = EventCenter()
        let contexts = try (0..<4).map { thread in
            try TraceContext(traceparent: "00-\(String(repeating: "a", count: 31))\(thread + 1)-00f067aa0ba902b7-01")
        }
        let seen = Seen()
        let subscription = center.listen(to: Tick.self, on: .queue(DispatchQueue(label: "trace.many"))) { tick in
            seen.record(TraceSeen(n: tick.n, trace: TraceContext.current))
        }
        await runOnThreads(4) { thread in
            for index in 0..<200 {
                let n = thread * 1000 + index
                if index.isMultiple(of: 2) {
                    TraceContext.withCurrent(contexts[thread]) { center.dispatch(Tick(n: n)) }
                } else {
                    center.dispatch(Tick(n: n))
                }
            }
        }
        await center.idle()
        #expect(seen.values.count == 800)
        for entry in seen.values {
            let index = entry.n % 1000
            #expect(entry.trace == (index.isMultiple(of: 2) ? contexts[entry.n / 1000] : nil))
        }
        withExtendedLifetime(subscription) {}
    }

    @Test("with no context current, every listener sees none")
    func noContext() async {
        let center = EventCenter()
        let seen = Recorder<TraceContext?>()
        let ledger = TraceLedger()
        let subscriptions = [
            center.listen(to: Tick.self) { _ in seen.record(TraceContext.current) },
            center.listen(to: Tick.self, on: .background) { _ in seen.record(TraceContext.current) },
            center.listen(to: Tick.self, on: .mainOrdered) { _ in seen.record(TraceContext.current) },
        ]
        center.listen(to: Tick.self, isolatedTo: ledger) { ledger, tick in ledger.record(tick.n) }
        center.dispatch(Tick(n: 0))
        await center.idle()
        #expect(seen.values == [nil, nil, nil])
        #expect(await ledger.seen == [TraceSeen(n: 0, trace: nil)])
        withExtendedLifetime(subscriptions) {}
    }
}
