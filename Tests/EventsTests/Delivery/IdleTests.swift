import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Events

/// A flag set once, readable from any thread.
private final class Flag: Sendable {
    private let storage = Atomic<Bool>(false)
    func set() { storage.store(true, ordering: .releasing) }
    var isSet: Bool { storage.load(ordering: .acquiring) }
}

/// A queued listener whose deliveries wait until the test releases them, in one context.
private struct HeldListener {
    let subscription: Subscription
    let release: @Sendable () -> Void
    /// Whatever must stay alive as long as the listener (an actor, a queue).
    let keep: [AnyObject]
}

/// The contexts a held listener can be made in.
enum HeldContext: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case background, queue, concurrentQueue, operationQueue, actor, main, mainOrdered
    case namedQueue, namedActor, namedMain

    var testDescription: String { rawValue }
    var isNamed: Bool { [.namedQueue, .namedActor, .namedMain].contains(self) }
}

private let heldName: EventName = "idle.held"

/// Registers a listener in `context` that counts its deliveries in `ran`, held until `release`.
/// Queues, operation queues and the actor's executor are suspended; the main actor, which
/// cannot be, is held by the handler itself waiting on a semaphore (it blocks the main queue
/// until released).
private func makeHeldListener(_ context: HeldContext, _ center: EventCenter, _ ran: Counter) -> HeldListener {
    switch context {
    case .background:
        center.backgroundQueue.suspend()
        let subscription = center.listen(to: Tick.self, on: .background) { _ in ran.increment() }
        return HeldListener(subscription: subscription, release: { center.backgroundQueue.resume() }, keep: [])
    case .queue, .concurrentQueue, .namedQueue:
        let queue = DispatchQueue(
            label: "idle.held", attributes: context == .concurrentQueue ? .concurrent : [])
        queue.suspend()
        let subscription =
            context == .namedQueue
            ? center.listen(to: heldName, on: .queue(queue)) { _ in ran.increment() }
            : center.listen(to: Tick.self, on: .queue(queue)) { _ in ran.increment() }
        return HeldListener(subscription: subscription, release: { queue.resume() }, keep: [queue])
    case .operationQueue:
        let operations = OperationQueue()
        operations.isSuspended = true
        let subscription = center.listen(to: Tick.self, on: .operationQueue(operations)) { _ in ran.increment() }
        return HeldListener(
            subscription: subscription, release: { operations.isSuspended = false }, keep: [operations])
    case .actor, .namedActor:
        let executor = HeldExecutor()
        let actor = ModelActor(tag: 0, executor: executor)
        let subscription =
            context == .namedActor
            ? center.listen(to: heldName, isolatedTo: actor) { _, _ in ran.increment() }
            : center.listen(to: Tick.self, isolatedTo: actor) { _, _ in ran.increment() }
        return HeldListener(subscription: subscription, release: { executor.queue.resume() }, keep: [actor])
    case .main, .mainOrdered, .namedMain:
        let gate = DispatchSemaphore(value: 0)
        let delivery: MainActorDelivery = context == .mainOrdered ? .mainOrdered : .main
        let subscription =
            context == .namedMain
            ? center.listen(to: heldName, on: delivery) { _ in
                gate.wait()
                gate.signal()  // stays open for the next delivery
                ran.increment()
            }
            : center.listen(to: Tick.self, on: delivery) { _ in
                gate.wait()
                gate.signal()  // stays open for the next delivery
                ran.increment()
            }
        return HeldListener(subscription: subscription, release: { gate.signal() }, keep: [])
    }
}

private func dispatchHeld(_ context: HeldContext, _ center: EventCenter, _ n: Int) {
    if context.isNamed {
        center.dispatch(heldName, data: n)
    } else {
        center.dispatch(Tick(n: n))
    }
}

/// Starts `idle()` in a task that sets `returned` when it comes back, and waits until it waits.
private func startIdle(_ center: EventCenter, _ returned: Flag) async -> Task<Void, Never> {
    let task = Task.detached {
        await center.idle()
        returned.set()
    }
    _ = await eventually { center.pendingDeliveries.waiterCount == 1 || returned.isSet }
    return task
}

@Suite("Waiting for queued deliveries: idle()", .timeLimit(.minutes(1)))
struct IdleTests {
    @Test("idle() returns at once, without suspending, when nothing is pending")
    @MainActor func returnsAtOnceWhenNothingIsPending() async {
        let center = EventCenter()
        let ran = Counter()
        let subscription = center.listen(to: Tick.self) { _ in ran.increment() }
        center.dispatch(Tick(n: 1))
        var otherWorkRan = false
        // Queued on the main actor before idle(): it can run only if idle() suspends.
        Task { @MainActor in otherWorkRan = true }
        await center.idle()
        #expect(!otherWorkRan, "idle() suspended although nothing was pending")
        #expect(ran.value == 1)
        #expect(center.pendingDeliveries.waiterCount == 0)
        withExtendedLifetime(subscription) {}
    }

    @Test("a delivery held in its context keeps idle() waiting until it has run", arguments: HeldContext.allCases)
    func heldDeliveryKeepsIdleWaiting(context: HeldContext) async {
        let center = EventCenter()
        let ran = Counter()
        let held = makeHeldListener(context, center, ran)
        // Dispatched off the main thread, so that a `.main` listener is enqueued too.
        // One delivery: with a second one queued behind it, a delivery that counted as done when
        // it started rather than when it finished would go unnoticed.
        dispatchHeld(context, center, 1)
        let returned = Flag()
        let waiter = await startIdle(center, returned)
        await waitToShowNothingArrives()
        #expect(!returned.isSet, "idle() returned while deliveries were held")
        #expect(ran.value == 0)
        held.release()
        await waiter.value
        #expect(ran.value == 1, "idle() returned before the queued delivery had run")
        withExtendedLifetime((held.subscription, held.keep)) {}
    }

    @Test("deliveries queued after idle() began do not keep it waiting under continuous dispatch")
    func newDeliveriesDoNotKeepIdleWaiting() async {
        let center = EventCenter()
        let ran = Counter()
        let stop = Flag()
        let dispatched = Counter()
        // The listener's queue never empties while the load runs, so a wait for an empty queue
        // would never end: the handler waits while fewer than 100 deliveries are queued behind
        // it, and the loop below dispatches while fewer than 500 are.
        let subscription = center.listen(to: Tick.self, on: .background) { _ in
            while !stop.isSet, dispatched.value - ran.value < 100 { yieldThread() }
            ran.increment()
        }
        // A thread of its own: the load never suspends, and on a task it would hold a thread of
        // the concurrency pool (two on a 2-core machine) for as long as it runs.
        let loaded = Flag()
        let loading = Thread {
            while !stop.isSet {
                if dispatched.value - ran.value < 500 {
                    center.dispatch(Tick(n: dispatched.value))
                    dispatched.increment()
                } else {
                    yieldThread()
                }
            }
            loaded.set()
        }
        loading.start()
        _ = await eventually { ran.value >= 1_000 }
        let returned = Flag()
        let waiter = Task.detached {
            await center.idle()
            returned.set()
        }
        let returnedUnderLoad = await eventually { returned.isSet }
        stop.set()
        #expect(await eventually { loaded.isSet })
        await waiter.value
        #expect(returnedUnderLoad, "idle() waited for deliveries queued after it began")
        withExtendedLifetime(subscription) {}
    }

    @Test("a delivery queued by a handler that idle() waits for is not waited for; a second idle() waits for it")
    func idleCoversOneRoundOfDeliveries() async {
        let center = EventCenter()
        let first = DispatchQueue(label: "idle.first")
        let second = DispatchQueue(label: "idle.second")
        first.suspend()
        second.suspend()
        let relayed = Counter()
        let relay = center.listen(to: Tick.self, on: .queue(first)) { tick in center.dispatch(Tock(n: tick.n)) }
        let sink = center.listen(to: Tock.self, on: .queue(second)) { _ in relayed.increment() }
        center.dispatch(Tick(n: 1))
        let returned = Flag()
        let waiter = await startIdle(center, returned)
        first.resume()
        await waiter.value
        #expect(relayed.value == 0, "the relayed delivery is still held")
        #expect(!center.pendingDeliveries.isEmpty)
        let secondReturned = Flag()
        let secondWaiter = await startIdle(center, secondReturned)
        #expect(!secondReturned.isSet)
        second.resume()
        await secondWaiter.value
        #expect(relayed.value == 1)
        withExtendedLifetime((relay, sink)) {}
    }

    @Test("overlapping idle() calls each wait for what was queued before their own start")
    func overlappingCallsWaitForTheirOwnEpochs() async {
        let center = EventCenter()
        let first = DispatchQueue(label: "idle.overlap.first")
        let second = DispatchQueue(label: "idle.overlap.second")
        first.suspend()
        second.suspend()
        let ran = Counter()
        let early = center.listen(to: Tick.self, on: .queue(first)) { _ in ran.increment() }
        let late = center.listen(to: Tock.self, on: .queue(second)) { _ in ran.increment() }
        center.dispatch(Tick(n: 1))
        let earlyReturned = Flag()
        let earlyWaiter = await startIdle(center, earlyReturned)
        center.dispatch(Tock(n: 2))
        let lateReturned = Flag()
        let lateWaiter = Task.detached {
            await center.idle()
            lateReturned.set()
        }
        _ = await eventually { center.pendingDeliveries.waiterCount == 2 }
        second.resume()
        #expect(await eventually { ran.value == 1 })
        await waitToShowNothingArrives()
        // The later call also waits for the delivery queued before the earlier one.
        #expect(center.pendingDeliveries.waiterCount == 2)
        #expect(!earlyReturned.isSet && !lateReturned.isSet)
        first.resume()
        await earlyWaiter.value
        await lateWaiter.value
        #expect(ran.value == 2)
        #expect(center.pendingDeliveries.isEmpty)
        withExtendedLifetime((early, late)) {}
    }

    @Test("deliveries skipped because their listener ended while queued count as done")
    func skippedDeliveriesCountAsDone() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "idle.skipped")
        queue.suspend()
        let ran = Counter()
        let cancelled = center.listen(to: Tick.self, on: .queue(queue)) { _ in ran.increment() }
        var owner: Probe? = Probe()
        center.listen(to: Tick.self, owner: owner!, on: .queue(queue)) { _, _ in ran.increment() }
        let executor = HeldExecutor()
        let actor = ModelActor(tag: 1, executor: executor)
        let cancelledOnActor = center.listen(to: Tick.self, isolatedTo: actor) { _, _ in ran.increment() }
        for n in 0..<3 { center.dispatch(Tick(n: n)) }
        let returned = Flag()
        let waiter = await startIdle(center, returned)
        cancelled.cancel()
        cancelledOnActor.cancel()
        owner = nil
        queue.resume()
        executor.queue.resume()
        await waiter.value
        #expect(ran.value == 0)
        #expect(center.pendingDeliveries.isEmpty)
        withExtendedLifetime(actor) {}
    }

    @Test("idle() on the main actor lets pending main-actor deliveries run and returns")
    @MainActor func idleOnTheMainActorDoesNotDeadlock() async {
        let center = EventCenter()
        let model = ScreenModel()
        let ordered = center.listen(to: PostWritten.self, owner: model, on: .mainOrdered) { model, post in
            model.titles.append(post.title)
        }
        let inlineWhenPossible = center.listen(to: Tick.self, on: .main) { tick in
            model.titles.append("tick \(tick.n)")
        }
        _ = await Task.detached { center.dispatch(Tick(n: 1)) }.value
        // Always enqueued, and the main actor is not given up before idle().
        center.dispatch(PostWritten(title: "on main"))
        #expect(!model.titles.contains("on main"))
        await center.idle()
        #expect(model.titles.sorted() == ["on main", "tick 1"])
        withExtendedLifetime((ordered, inlineWhenPossible)) {}
    }

    @Test("cancelling the waiting task makes idle() return and leaves no waiter behind")
    func cancellationReturns() async {
        let center = EventCenter()
        let ran = Counter()
        let held = makeHeldListener(.queue, center, ran)
        center.dispatch(Tick(n: 1))
        let returned = Flag()
        let waiter = await startIdle(center, returned)
        #expect(!returned.isSet)
        waiter.cancel()
        await waiter.value
        #expect(ran.value == 0, "idle() returned because it was cancelled, not because the delivery ran")
        #expect(center.pendingDeliveries.waiterCount == 0)
        // Already cancelled before it starts: returns at once, and registers nothing either.
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await center.idle()
        }
        await cancelledFirst.value
        #expect(center.pendingDeliveries.waiterCount == 0)
        held.release()
        await center.idle()
        #expect(ran.value == 1)
        withExtendedLifetime((held.subscription, held.keep)) {}
    }

    @Test("idle() calls racing dispatches from several threads, in every kind of context, all return")
    func idleRacingDispatchesFromSeveralThreads() async {
        let center = EventCenter()
        let onQueue = Counter()
        let onActor = Counter()
        let fromStream = Counter()
        let ledger = TickLedger()
        let queued = center.listen(to: Tick.self, on: .queue(DispatchQueue(label: "idle.race"))) { _ in
            onQueue.increment()
        }
        let isolated = center.listen(to: Tick.self, isolatedTo: ledger) { _, _ in onActor.increment() }
        let stream = center.events(of: Tick.self)
        let consumer = Task.detached {
            for await _ in stream { fromStream.increment() }
        }
        let stop = Flag()
        let idleCalls = Counter()
        let waiting = Task.detached {
            while !stop.isSet {
                await center.idle()
                idleCalls.increment()
                // idle() does not suspend when nothing is pending: leave the thread to others.
                await Task.yield()
            }
        }
        let perThread = 2_000
        await runOnThreads(4) { _ in
            for n in 0..<perThread { center.dispatch(Tick(n: n)) }
        }
        await center.idle()
        #expect(onQueue.value == 4 * perThread)
        #expect(onActor.value == 4 * perThread)
        #expect(await eventually { fromStream.value == 4 * perThread })
        stop.set()
        await waiting.value
        consumer.cancel()
        await consumer.value
        #expect(idleCalls.value > 0)
        #expect(center.pendingDeliveries.waiterCount == 0)
        withExtendedLifetime((queued, isolated)) {}
    }

    // MARK: Streams

    @Test("an event buffered in a stream keeps idle() waiting until the consumer takes it")
    func bufferedStreamEventsWaitUntilTaken() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self)
        center.dispatch(Tick(n: 1))
        center.dispatch(Tick(n: 2))
        let returned = Flag()
        let waiter = await startIdle(center, returned)
        await waitToShowNothingArrives()
        #expect(!returned.isSet, "idle() returned while events were buffered")
        // Dispatched after idle() began: not waited for.
        center.dispatch(Tick(n: 3))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.n == 1)
        // The record is updated in the same step as the take: no waiting needed to see it.
        #expect(center.pendingDeliveries.waiterCount == 1, "idle() was let go with an event still buffered")
        #expect(await iterator.next()?.n == 2)
        #expect(center.pendingDeliveries.waiterCount == 0, "idle() still waits for an event buffered after it began")
        await waiter.value
        #expect(await iterator.next()?.n == 3)
        #expect(center.pendingDeliveries.isEmpty)
    }

    @Test("a named stream's buffered events count like typed ones")
    func namedStreamEventsWaitUntilTaken() async {
        let center = EventCenter()
        let stream = center.events(named: "idle.stream")
        center.dispatch("idle.stream", data: 1)
        let returned = Flag()
        let waiter = await startIdle(center, returned)
        #expect(!returned.isSet)
        for await event in stream {
            #expect(event.name == "idle.stream")
            break
        }
        await waiter.value
        #expect(center.pendingDeliveries.isEmpty)
    }

    @Test("events a buffering policy discards count as done")
    func discardedEventsCountAsDone() async {
        let center = EventCenter()
        let oldest = center.events(of: Tick.self, bufferingPolicy: .dropOldest(capacity: 1))
        let newest = center.events(of: Tick.self, bufferingPolicy: .dropNewest(capacity: 1))
        center.dispatch(Tick(n: 1))
        let returned = Flag()
        let waiter = await startIdle(center, returned)
        // Replaces the event `idle()` waits for in `oldest`; `newest` drops it.
        center.dispatch(Tick(n: 2))
        #expect(center.pendingDeliveries.waiterCount == 1, "`newest` still holds its first event")
        var newestIterator = newest.makeAsyncIterator()
        #expect(await newestIterator.next()?.n == 1)
        #expect(center.pendingDeliveries.waiterCount == 0, "the event waited for in `oldest` was dropped")
        await waiter.value
        var oldestIterator = oldest.makeAsyncIterator()
        #expect(await oldestIterator.next()?.n == 2)
    }

    @Test("a stream let go, never iterated, with events buffered does not keep idle() waiting")
    func droppedStreamReleasesIdle() async {
        let center = EventCenter()
        var stream: EventStream<Tick>? = center.events(of: Tick.self)
        center.dispatch(Tick(n: 1))
        let returned = Flag()
        let waiter = await startIdle(center, returned)
        #expect(!returned.isSet)
        #expect(stream != nil)
        stream = nil
        await waiter.value
        #expect(center.pendingDeliveries.isEmpty)
    }

    @Test("a stream whose consuming task is cancelled does not keep idle() waiting")
    func cancelledConsumerReleasesIdle() async {
        let center = EventCenter()
        let stream = center.events(of: Tick.self)
        let firstTaken = Flag()
        let gate = DispatchSemaphore(value: 0)
        let consumer = Task.detached {
            for await _ in stream {
                firstTaken.set()
                // Holds the consumer inside its loop body, so that the next events stay buffered.
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        gate.wait()
                        continuation.resume()
                    }
                }
            }
        }
        center.dispatch(Tick(n: 1))
        _ = await eventually { firstTaken.isSet }
        center.dispatch(Tick(n: 2))
        center.dispatch(Tick(n: 3))
        let returned = Flag()
        let waiter = await startIdle(center, returned)
        #expect(!returned.isSet)
        consumer.cancel()
        gate.signal()
        await consumer.value
        await waiter.value
        #expect(center.pendingDeliveries.isEmpty)
    }
}
