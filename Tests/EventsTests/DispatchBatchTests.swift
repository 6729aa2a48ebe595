import Dispatch
import Testing

@testable import Events

extension EventName {
    fileprivate static let batched: EventName = "test.batched"
}

@Suite("Dispatch batches")
struct DispatchBatchTests {
    @Test("A batch's wait ends once every listener, in every context, has finished with every event")
    func waitsForEveryContext() async {
        let center = EventCenter()
        center.errorHandler = { _ in }
        let queue = DispatchQueue(label: "test.batch")
        let ledger = TickLedger()
        let posting = Recorder<Int>()
        let queued = Recorder<Int>()
        let named = Recorder<Int>()
        var subscriptions: [Subscription] = []
        subscriptions.append(center.listen(to: Tick.self) { posting.record($0.n) })
        subscriptions.append(center.listen(to: Tick.self, on: .queue(queue)) { queued.record($0.n) })
        subscriptions.append(
            center.listen(to: Tick.self, on: .background) { tick in
                if tick.n == 2 { throw Broken(reason: "two") }
            })
        center.listen(to: Tick.self, isolatedTo: ledger) { ledger, tick in ledger.seen.append(tick.n) }
        subscriptions.append(center.listen(to: .batched) { event in named.record(try event.data(as: Int.self)) })

        queue.suspend()
        let batch = DispatchBatch()
        for n in 1...3 { batch.dispatch(Tick(n: n), through: center) }
        batch.dispatch(.batched, data: 7, through: center)
        #expect(posting.values == [1, 2, 3] && named.values == [7], "posting-thread listeners ran at once")
        let finished = Counter()
        let waiting = Task {
            let report = await batch.wait()
            finished.increment()
            return report
        }
        await waitToShowNothingArrives(for: .milliseconds(50))
        #expect(finished.value == 0, "the wait does not finish before the queue listener has run")
        queue.resume()
        let report = await waiting.value
        #expect(queued.values == [1, 2, 3], "in dispatch order")
        #expect(await ledger.values() == [1, 2, 3])
        #expect(report.received == 3 * 4 + 1)
        #expect(report.failures.map { ($0.error as? Broken)?.reason } == ["two"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test("A batch of events nobody hears, or heard only on the posting thread, waits for nothing")
    func emptyAndSynchronous() async {
        let center = EventCenter()
        #expect(await DispatchBatch().wait().received == 0)
        let heard = Counter()
        let subscription = center.listen(to: Tock.self) { _ in heard.increment() }
        let batch = DispatchBatch()
        for n in 0..<100 { batch.dispatch(Tock(n: n), through: center) }
        batch.dispatch(Tick(n: 0), through: center)
        let report = await batch.wait()
        #expect(report.received == 100 && heard.value == 100 && report.failures.isEmpty)
        withExtendedLifetime(subscription) {}
    }
}
