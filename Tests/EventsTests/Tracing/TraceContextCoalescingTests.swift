import Testing

@testable import Events

private let older = try! TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
private let newer = try! TraceContext(
    traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00", tracestate: "rojo=1")

private actor CoalescedLedger {
    var seen: [(n: Int, trace: TraceContext?)] = []
    func record(_ n: Int) { seen.append((n, TraceContext.current)) }
}

@Suite("Trace context: coalesced listeners")
struct TraceContextCoalescingTests {
    @Test("a coalesced queue listener sees the context of the event it is given, the newest")
    func queueListener() async {
        let center = EventCenter()
        let shut = ShutQueue()
        let seen = Recorder<TraceContext?>()
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .queue(shut.queue), coalescing: .latest) { tick in
            heard.record(tick.n)
            seen.record(TraceContext.current)
        }
        TraceContext.withCurrent(older) { center.dispatch(Tick(n: 1)) }
        TraceContext.withCurrent(newer) { center.dispatch(Tick(n: 2)) }
        shut.open()
        await center.idle()
        #expect(heard.values == [2])
        #expect(seen.values == [newer])
        // A later event dispatched outside any trace is delivered outside any.
        center.dispatch(Tick(n: 3))
        await center.idle()
        #expect(heard.values == [2, 3])
        #expect(seen.values == [newer, nil])
        subscription.cancel()
    }

    @Test("a coalesced actor listener sees its event's context, and none for an event dispatched outside any")
    func actorListener() async {
        let center = EventCenter()
        let ledger = CoalescedLedger()
        let subscription = center.listen(to: Tick.self, isolatedTo: ledger, coalescing: .latest) { ledger, tick in
            ledger.record(tick.n)
        }
        // The first dispatch starts the mailbox's drain task, which inherits its context.
        TraceContext.withCurrent(older) { center.dispatch(Tick(n: 1)) }
        await center.idle()
        center.dispatch(Tick(n: 2))
        await center.idle()
        TraceContext.withCurrent(newer) { center.dispatch(Tick(n: 3)) }
        await center.idle()
        let seen = await ledger.seen
        #expect(seen.map(\.n) == [1, 2, 3])
        #expect(seen.map(\.trace) == [older, nil, newer])
        // Back to back: the drain task that the first starts (inheriting `older`) is likely to
        // deliver the second too, which was dispatched outside any trace.
        TraceContext.withCurrent(older) { center.dispatch(Tick(n: 4)) }
        center.dispatch(Tick(n: 5))
        await center.idle()
        let last = await ledger.seen.last
        #expect(last?.n == 5)
        #expect(last?.trace == nil)
        subscription.cancel()
    }
}
