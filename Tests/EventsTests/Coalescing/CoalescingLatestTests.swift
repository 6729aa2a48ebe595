import Dispatch
import Foundation
import Testing

@testable import Events

@Suite("Coalescing: latest")
struct CoalescingLatestTests {
    @Test("a burst queued behind a blocked queue arrives as its newest event only, with its sender")
    func burstArrivesAsNewest() async {
        let center = EventCenter()
        let shut = ShutQueue()
        let heard = Recorder<(Int, Sender?)>()
        let sender = Probe("sender")
        let subscription = center.listen(to: Sent<Tick>.self, on: .queue(shut.queue), coalescing: .latest) { sent in
            heard.record((sent.event.n, sent.sender))
        }
        for n in 1...9 { center.dispatch(Tick(n: n)) }
        center.dispatch(Tick(n: 10), from: sender)
        shut.open()
        await center.idle()
        #expect(heard.values.map(\.0) == [10])
        #expect(heard.values.first?.1 === sender)
        subscription.cancel()
    }

    @Test("a listener that keeps up receives every event")
    func keepingUpReceivesEvery() async {
        let center = EventCenter()
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .background, coalescing: .latest) { heard.record($0.n) }
        for n in 1...3 {
            center.dispatch(Tick(n: n))
            await center.idle()
        }
        #expect(heard.values == [1, 2, 3])
        subscription.cancel()
    }

    @Test("events dispatched from many threads are never delivered out of order")
    func orderHoldsUnderConcurrency() async {
        let center = EventCenter()
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .background, coalescing: .latest) { heard.record($0.n) }
        await runOnThreads(4) { thread in
            for index in 0..<500 { center.dispatch(Tick(n: thread * 10_000 + index)) }
        }
        await center.idle()
        let values = heard.values
        for thread in 0..<4 {
            let own = values.filter { $0 / 10_000 == thread }
            #expect(own == own.sorted())
            #expect(Set(own).count == own.count)
        }
        // The newest event overall is never lost: nothing newer replaced it. It is the last
        // event of one of the threads.
        #expect(values.last.map { $0 % 10_000 == 499 } == true)
        subscription.cancel()
    }

    @Test("dispatchAndWait: an event replaced by a newer one was not received, the newer one was")
    func replacedEventIsNotReceived() async {
        let center = EventCenter()
        let shut = ShutQueue()
        let dispatched = Counter()
        let heard = Recorder<Int>()
        let counting = center.listen(to: Tick.self) { _ in dispatched.increment() }
        let subscription = center.listen(to: Tick.self, on: .queue(shut.queue), coalescing: .latest) {
            heard.record($0.n)
        }
        let first = Task { await center.dispatchAndWait(Tick(n: 1)) }
        #expect(await eventually { dispatched.value == 1 })
        let second = Task { await center.dispatchAndWait(Tick(n: 2)) }
        #expect(await eventually { dispatched.value == 2 })
        shut.open()
        // The posting-thread listener counts in both reports.
        #expect(await first.value.received == 1)
        #expect(await second.value.received == 2)
        #expect(heard.values == [2])
        counting.cancel()
        subscription.cancel()
    }

    @Test("cancel drops the waiting event: nothing is delivered, and the event is let go")
    func cancelDropsWaitingEvent() async {
        let center = EventCenter()
        let shut = ShutQueue()
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Carried.self, on: .queue(shut.queue), coalescing: .latest) {
            heard.record($0.n)
        }
        var payload: Probe? = Probe("payload")
        let weakPayload = WeakBox(payload!)
        center.dispatch(Carried(n: 1, payload: payload!))
        payload = nil
        subscription.cancel()
        #expect(weakPayload.object == nil)
        shut.open()
        await center.idle()
        #expect(heard.values.isEmpty)
    }

    @Test("named events coalesce too")
    func namedEventsCoalesce() async {
        let center = EventCenter()
        let shut = ShutQueue()
        let heard = Recorder<Int>()
        let subscription = center.listen(to: "progress", on: .queue(shut.queue), coalescing: .latest) { event in
            heard.record((try? event.data(as: Int.self)) ?? -1)
        }
        let all = center.listen(to: NamedEvent.self, on: .queue(shut.queue), coalescing: .latest) { _ in heard.record(0)
        }
        for n in 1...5 { center.dispatch("progress", data: n) }
        shut.open()
        await center.idle()
        #expect(heard.values.sorted() == [0, 5])
        subscription.cancel()
        all.cancel()
    }

    @Test("with coalescing nil, a registration creates the same record as before")
    func nilCoalescingKeepsRecords() {
        let center = EventCenter()
        let subscription = center.listen(to: Tick.self, on: .background, coalescing: nil) { _ in }
        #expect(subscription.record is RoutedRecord<Tick>)
        let coalesced = center.listen(to: Tick.self, on: .background, coalescing: .latest) { _ in }
        #expect(coalesced.record is CoalescedRecord<Tick>)
        subscription.cancel()
        coalesced.cancel()
    }
}
