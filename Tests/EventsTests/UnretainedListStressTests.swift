import Foundation
import Synchronization
import Testing

@testable import Events

/// The registry's lists hold listeners without an owner unretained: their subscriptions keep
/// them alive and take them out of the list before letting go. These races retire or drop
/// listeners from several threads at once, so that a record freed while still listed (or freed
/// twice) shows up under the address sanitizer, and a missing happens-before under the thread
/// sanitizer. Sized to finish in a few seconds under the sanitizers on two cores; their threads
/// are waited for without holding a thread of the concurrency pool.
@Suite("Unretained listener lists under concurrency")
struct UnretainedListStressTests {
    @Test func onceAndSenderListenersDroppedWhileOtherThreadsDispatchPurgeAndSweep() async {
        let center = EventCenter()
        let capturesFreed = Counter()
        let capturesMade = Counter()
        let stop = Atomic<Bool>(false)
        let steady = Counter()
        let steadySubscription = center.listen(to: Tick.self) { _ in steady.increment() }
        await runOnThreads(5) { thread in
            switch thread {
            case 0, 1:
                // Dispatchers: consume once listeners and find dead senders, then purge.
                while !stop.load(ordering: .relaxed) {
                    center.dispatch(Tick(n: thread))
                    _ = center.listenerCount(for: Tick.self)
                }
            case 2:
                // Once listeners dropped right after (or before) they fire.
                for n in 0..<800 {
                    let capture = Probe { capturesFreed.increment() }
                    capturesMade.increment()
                    var subscription: Subscription? = center.listen(to: Tick.self, once: true) { _ in
                        _ = capture.name
                    }
                    if n % 3 == 0 { yieldThread() }
                    if n % 5 == 0 { subscription?.cancel() }
                    subscription = nil
                }
            case 3:
                // Sender-filtered listeners whose sender dies first; many of them, so sweeps run.
                for n in 0..<800 {
                    let capture = Probe { capturesFreed.increment() }
                    capturesMade.increment()
                    var sender: Probe? = Probe("sender")
                    var subscription: Subscription? = center.listen(to: Tick.self, from: sender!) { _ in
                        _ = capture.name
                    }
                    if n % 2 == 0 { center.dispatch(Tick(n: n), from: sender!) }
                    sender = nil
                    if n % 3 == 0 { yieldThread() }
                    if n % 7 == 0 { _ = subscription?.isActive }
                    subscription = nil
                }
                stop.store(true, ordering: .relaxed)
            default:
                // Owner-bound registrations whose owners die: they count towards sweeps and
                // are purged by dispatch and by `remove`.
                while !stop.load(ordering: .relaxed) {
                    let owner = Probe()
                    center.listen(to: Tick.self, owner: owner) { _, _ in }
                    center.listen(to: Tick.self, owner: owner, key: 1) { _, _ in }
                    if Bool.random() { center.remove(owner) }
                }
            }
        }
        #expect(capturesFreed.value == capturesMade.value)
        #expect(center.listenerCount(for: Tick.self) == 1)
        #expect(storedRecords(center, Tick.self) == 1)
        withExtendedLifetime(steadySubscription) {}
    }

    @Test func aCenterDeinitializingWhileItsSubscriptionsAreCancelledAndDropped() async {
        for round in 0..<60 {
            let capturesFreed = Counter()
            var center: EventCenter? = EventCenter()
            let owner = Probe()
            var subscriptions: [Subscription] = []
            for n in 0..<20 {
                let capture = Probe { capturesFreed.increment() }
                switch n % 5 {
                case 0: subscriptions.append(center!.listen(to: Tick.self) { _ in _ = capture.name })
                case 1: subscriptions.append(center!.listen(to: Tick.self, once: true) { _ in _ = capture.name })
                case 2: subscriptions.append(center!.listen(to: "name") { _ in _ = capture.name })
                case 3:
                    subscriptions.append(
                        center!.listen(to: Tick.self, owner: owner, key: n) { _, _ in _ = capture.name })
                default:
                    subscriptions.append(center!.listen(to: Tock.self, from: owner) { _ in _ = capture.name })
                }
            }
            center!.dispatch(Tick(n: round))
            let shared = SharedBox<[Subscription]>(subscriptions)
            subscriptions = []
            let centerBox = SharedBox<EventCenter?>(center)
            center = nil
            await runOnThreads(3) { thread in
                if thread == 0 {
                    centerBox.withLock { $0 = nil }
                    return
                }
                while let subscription = shared.withLock({ $0.popLast() }) {
                    if thread == 1 { subscription.cancel() }
                }
            }
            #expect(capturesFreed.value == 20)
        }
    }

    @Test func cancelAndDropRacingDispatchFreeEveryListenerOnce() async {
        let center = EventCenter()
        let stop = Atomic<Bool>(false)
        let capturesFreed = Counter()
        await runOnThreads(3) { thread in
            if thread < 2 {
                while !stop.load(ordering: .relaxed) { center.dispatch(Tick(n: 0)) }
                return
            }
            for _ in 0..<1_500 {
                let capture = Probe { capturesFreed.increment() }
                let subscription = center.listen(to: Tick.self) { _ in
                    _ = capture.name
                }
                yieldThread()
                if Bool.random() { subscription.cancel() }
            }
            stop.store(true, ordering: .relaxed)
        }
        #expect(capturesFreed.value == 1_500)
        #expect(storedRecords(center, Tick.self) == 0)
    }

    @Test func aForwardingBridgeDroppedWhileNotificationsArePostedStopsAndIsFreed() async {
        let notificationCenter = NotificationCenter()
        let name = Notification.Name("UnretainedListStressTests.bridge")
        let center = EventCenter()
        let received = Counter()
        let listener = center.listen(to: EventName(name)) { _ in received.increment() }
        let stop = Atomic<Bool>(false)
        await runOnThreads(3) { thread in
            if thread < 2 {
                while !stop.load(ordering: .relaxed) { notificationCenter.post(name: name, object: nil) }
                return
            }
            for n in 0..<200 {
                var bridge: Subscription? = center.forwardNotifications(named: name, from: notificationCenter)
                if n % 2 == 0 { yieldThread() }
                if n % 3 == 0 { bridge?.cancel() }
                bridge = nil
            }
            stop.store(true, ordering: .relaxed)
        }
        let before = received.value
        notificationCenter.post(name: name, object: nil)
        #expect(received.value == before, "every bridge stopped forwarding")
        #expect(storedRecords(center, NotificationForwarding.self) == 0)
        withExtendedLifetime(listener) {}
    }
}

/// An event that holds an object, to count that the stream's ring destroys each event once.
private struct Parcel: Event {
    let probe: Probe
}

extension UnretainedListStressTests {
    @Test func streamsFedFromSeveralThreadsAndEndedMidBurstDestroyEveryEventOnce() async {
        let center = EventCenter()
        let made = Counter()
        let freed = Counter()
        for round in 0..<15 {
            let policy: EventBufferingPolicy =
                switch round % 3 {
                case 0: .unbounded
                case 1: .dropOldest(capacity: 7)
                default: .dropNewest(capacity: 20)
                }
            let stream = center.events(of: Parcel.self, bufferingPolicy: policy)
            let stop = round % 4
            let consumer = Task {
                var taken = 0
                for await _ in stream {
                    taken += 1
                    if taken == 50 + round * 3 { break }
                    if stop == 0, taken == 30 { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return taken
            }
            await runOnThreads(2) { _ in
                for _ in 0..<150 {
                    made.increment()
                    center.dispatch(Parcel(probe: Probe { freed.increment() }))
                }
            }
            // A bounded policy may leave fewer events than the consumer waits for: end it.
            consumer.cancel()
            _ = await consumer.value
        }
        #expect(center.listenerCount(for: Parcel.self) == 0)
        #expect(freed.value == made.value)
    }
}

/// A value shared between test threads behind a lock.
private final class SharedBox<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
