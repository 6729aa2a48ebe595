import Dispatch
import Foundation
import Testing

@testable import Events

/// Main-actor state a listener touches directly: compiling these tests is the proof that
/// main-actor handlers are isolated at compile time (no assumeIsolated, no main.async).
@MainActor final class ScreenModel {
    var titles: [String] = []
    var ranOnMainActor = true
}

actor TickLedger {
    var seen: [Int] = []
    func values() -> [Int] { seen }
}

private let queueMarker = DispatchSpecificKey<String>()

/// An independent check of "on the main actor": the main thread, or a block of the main queue
/// (on Linux a worker thread drains the main queue once the main thread calls dispatchMain()).
private let testMainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

private func runningOnMainQueue() -> Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: testMainQueueKey) == true
}

@Suite("Delivery contexts")
struct DeliveryContextTests {
    @Test func backgroundListenerRunsOffTheDispatchingThreadInOrder() async {
        let center = EventCenter()
        let threads = Recorder<UInt>()
        let values = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .background) { tick in
            threads.record(currentThreadID())
            values.record(tick.n)
        }
        let dispatching = currentThreadID()
        for n in 0..<200 { center.dispatch(Tick(n: n)) }
        let report = await center.dispatchAndWait(Tick(n: 200))
        #expect(report.received == 1)
        #expect(values.values == Array(0...200))
        #expect(!threads.values.contains(dispatching))
        withExtendedLifetime(subscription) {}
    }

    @Test func queueListenerRunsOnItsQueue() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "test.queue")
        queue.setSpecific(key: queueMarker, value: "test.queue")
        let markers = Recorder<String?>()
        let subscription = center.listen(to: Tick.self, on: .queue(queue)) { _ in
            markers.record(DispatchQueue.getSpecific(key: queueMarker))
        }
        await center.dispatchAndWait(Tick(n: 1))
        #expect(markers.values == ["test.queue"])
        withExtendedLifetime(subscription) {}
    }

    @Test func operationQueueListenerRunsAsAnOperationOnItsQueue() async {
        let center = EventCenter()
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = 4
        let onQueue = Recorder<Bool>()
        let subscription = center.listen(to: Tick.self, on: .operationQueue(operations)) { _ in
            onQueue.record(OperationQueue.current === operations)
        }
        await center.dispatchAndWait(Tick(n: 1))
        #expect(onQueue.values == [true])
        withExtendedLifetime(subscription) {}
    }

    @Test(arguments: ["background", "concurrent queue", "operation queue", "main", "main ordered", "actor"])
    func eachListenerReceivesEventsInDispatchOrderUnderLoad(context: String) async {
        let center = EventCenter()
        let listeners = 3
        let count = 2_000
        let seen = (0..<listeners).map { _ in Recorder<Int>() }
        let ledger = TickLedger()
        var subscriptions: [Subscription] = []
        for index in 0..<listeners {
            let record = seen[index]
            switch context {
            case "background":
                subscriptions.append(center.listen(to: Tick.self, on: .background) { record.record($0.n) })
            case "concurrent queue":
                subscriptions.append(center.listen(to: Tick.self, on: .queue(.global())) { record.record($0.n) })
            case "operation queue":
                let operations = OperationQueue()
                operations.maxConcurrentOperationCount = 8
                subscriptions.append(
                    center.listen(to: Tick.self, on: .operationQueue(operations)) { record.record($0.n) })
            case "main":
                subscriptions.append(center.listen(to: Tick.self, on: .main) { record.record($0.n) })
            case "main ordered":
                subscriptions.append(center.listen(to: Tick.self, on: .mainOrdered) { record.record($0.n) })
            default:
                subscriptions.append(
                    center.listen(to: Tick.self, isolatedTo: ledger) { ledger, tick in
                        ledger.seen.append(tick.n)
                        record.record(tick.n)
                    })
            }
        }
        // Dispatch from a background thread, so main-actor listeners are enqueued.
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                for n in 0..<count { center.dispatch(Tick(n: n)) }
                continuation.resume()
            }
        }
        let report = await center.dispatchAndWait(Tick(n: count))
        #expect(report.received == listeners)
        for record in seen {
            #expect(record.values == Array(0...count))
        }
        if context == "actor" {
            #expect(await ledger.values().count == listeners * (count + 1))
        }
        withExtendedLifetime(subscriptions) {}
    }

    @Test func queuedListenerWhoseOwnerDiesBeforeItsTurnIsSkipped() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "test.suspended")
        let calls = Counter()
        var owner: Probe? = Probe()
        center.listen(to: Tick.self, owner: owner!, on: .queue(queue)) { _, _ in calls.increment() }
        queue.suspend()
        #expect(center.dispatch(Tick(n: 1)) == 1, "queued while the owner lived")
        owner = nil
        queue.resume()
        let report = await center.dispatchAndWait(Tick(n: 2))
        #expect(report.received == 0)
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(calls.value == 0)
        #expect(center.listenerCount(for: Tick.self) == 0)
    }

    @Test func queuedEventsOfACancelledListenerAreSkipped() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "test.cancel")
        let calls = Counter()
        let subscription = center.listen(to: Tick.self, on: .queue(queue)) { _ in calls.increment() }
        let onceCalls = Counter()
        let once = center.listen(to: Tick.self, on: .queue(queue), once: true) { _ in onceCalls.increment() }
        queue.suspend()
        center.dispatch(Tick(n: 1))
        center.dispatch(Tick(n: 2))
        subscription.cancel()
        once.cancel()
        queue.resume()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(calls.value == 0)
        #expect(onceCalls.value == 0, "cancel also stops a once listener's queued event")
    }

    @MainActor
    @Test func mainActorListenerUpdatesMainActorStateFromABackgroundDispatch() async {
        let center = EventCenter()
        let model = ScreenModel()
        center.listen(to: PostWritten.self, owner: model, on: .main) { model, post in
            model.titles.append(post.title)
            model.ranOnMainActor = model.ranOnMainActor && runningOnMainQueue()
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                center.dispatch(PostWritten(title: "from a background thread"))
                continuation.resume()
            }
        }
        await center.dispatchAndWait(PostWritten(title: "awaited"))
        #expect(model.titles == ["from a background thread", "awaited"])
        #expect(model.ranOnMainActor)
    }

    @MainActor
    @Test func mainDeliveryRunsInlineWhenDispatchedOnTheMainActor() {
        let center = EventCenter()
        let model = ScreenModel()
        let subscription = center.listen(to: PostWritten.self, on: .main) { post in
            model.titles.append(post.title)
        }
        center.dispatch(PostWritten(title: "inline"))
        #expect(model.titles == ["inline"], "ran before dispatch returned")
        withExtendedLifetime(subscription) {}
    }

    @MainActor
    @Test func mainOrderedDeliveryAlwaysEnqueues() async {
        let center = EventCenter()
        let model = ScreenModel()
        let subscription = center.listen(to: PostWritten.self, on: .mainOrdered) { post in
            model.titles.append(post.title)
        }
        center.dispatch(PostWritten(title: "queued"))
        #expect(model.titles.isEmpty, "not run inside dispatch")
        await center.dispatchAndWait(PostWritten(title: "second"))
        #expect(model.titles == ["queued", "second"])
        withExtendedLifetime(subscription) {}
    }

    @MainActor
    @Test func dispatchAndWaitWithOnlySynchronousListenersDoesNotSuspend() async {
        let center = EventCenter()
        let model = ScreenModel()
        let subscription = center.listen(to: PostWritten.self) { post in
            MainActor.assumeIsolated { model.titles.append(post.title) }
        }
        // Queued behind this test on the main actor: it runs only if the test suspends.
        Task { @MainActor in model.titles.append("another job") }
        let report = await center.dispatchAndWait(PostWritten(title: "synchronous"))
        #expect(report.received == 1)
        #expect(model.titles == ["synchronous"], "the dispatch finished without leaving the main actor")
        withExtendedLifetime(subscription) {}
    }

    @Test func actorListenerRunsIsolatedToItsActorAndEndsWithIt() async {
        let center = EventCenter()
        var ledger: TickLedger? = TickLedger()
        center.listen(to: Tick.self, isolatedTo: ledger!) { ledger, tick in
            ledger.seen.append(tick.n)  // synchronous access: the handler is isolated
        }
        let report = await center.dispatchAndWait(Tick(n: 5))
        #expect(report.received == 1)
        #expect(await ledger?.values() == [5])
        weak let weakLedger = ledger
        ledger = nil
        // The job that ran the handler on the actor holds it until that job is torn down, on the
        // actor's thread, which may be a moment after the dispatch returned here (under the
        // address sanitizer it was, once). Wait for that, bounded: a center that held the actor
        // strongly would keep it for ever.
        #expect(await eventually { weakLedger == nil }, "the center holds the actor weakly")
        #expect(center.listenerCount(for: Tick.self) == 0)
    }
}
