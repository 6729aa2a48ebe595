import Dispatch
import Foundation
import Synchronization

@testable import Events

/// An owner whose deinitialization is the moment its listener ends.
final class StampedOwner: Sendable {
    let watch: ListenerWatch
    let clock: StampClock

    init(watch: ListenerWatch, clock: StampClock) {
        self.watch = watch
        self.clock = clock
    }

    deinit { watch.ended(at: clock.next()) }
}

/// The listeners, threads and contexts of the concurrent variant: permanent listeners that
/// must count every matching dispatch exactly, and churning ones, registered and ended while
/// two threads dispatch, that must never run after they ended.
final class ConcurrentHarness: Sendable {
    static let name: EventName = "concurrent.model"

    let center = EventCenter()
    let clock = StampClock()
    let dispatchers: Int
    let seed: UInt64
    let serialQueue = DispatchQueue(label: "swift-events.concurrent.serial")
    let concurrentQueue = DispatchQueue(label: "swift-events.concurrent.concurrent", attributes: .concurrent)
    let operationQueue: OperationQueue
    let actorExecutor = HeldExecutor()
    let senders = [ModelObject(tag: 1), ModelObject(tag: 2)]
    let permanentOwner: StampedOwner
    let permanentActor: ModelActor

    private let lock = Lock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var watches: [ListenerWatch] = []
    nonisolated(unsafe) private var probes: [MailboxProbe] = []
    nonisolated(unsafe) private var permanent: [(watch: ListenerWatch, counts: (Int, Int) -> Bool)] = []
    /// The permanent listeners that are not `once`, which every matching dispatch must reach.
    var reachedBy: (_ target: Int, _ sender: Int) -> Int {
        let permanent = lock.withLock { self.permanent }
        return { target, sender in
            permanent.reduce(0) { $0 + (!$1.watch.once && $1.counts(target, sender) ? 1 : 0) }
        }
    }
    nonisolated(unsafe) private var subscriptions: [Subscription] = []
    nonisolated(unsafe) private var dispatched: [[[Int]]] = []
    nonisolated(unsafe) private var problems: [String] = []
    let dispatchersDone = Atomic<Int>(0)
    let churned = Atomic<Int>(0)

    init(seed: UInt64, dispatchers: Int) {
        self.seed = seed
        self.dispatchers = dispatchers
        operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 3
        actorExecutor.queue.resume()
        permanentActor = ModelActor(tag: 4, executor: actorExecutor)
        permanentOwner = StampedOwner(
            watch: ListenerWatch("the permanent owner", dispatchers: dispatchers), clock: clock)
        dispatched = Array(repeating: [[0, 0, 0], [0, 0, 0]], count: dispatchers)
    }

    func record(_ problem: String) { lock.withLock { problems.append(problem) } }

    // MARK: Listening

    struct Registration {
        var context: ModelContext
        var named = false
        var owner: (any AnyObject & Sendable)?
        var key: Int?
        var sender: AnyObject?
        var once = false
    }

    /// Registers a listener that reports to `watch`, and keeps a probe of its mailbox.
    func listen(_ registration: Registration, watch: ListenerWatch) -> Subscription {
        let subscription = register(registration, watch: watch)
        lock.withLock {
            watches.append(watch)
            if let probe = MailboxProbe(subscription.record) { probes.append(probe) }
        }
        return subscription
    }

    private func register(_ r: Registration, watch: ListenerWatch) -> Subscription {
        let clock = clock
        let typed: @Sendable (StampedEvent) -> Void = { watch.ran($0, clock: clock) }
        let named: @Sendable (NamedEvent) -> Void = { event in
            guard let stamped = try? event.data(as: StampedEvent.self) else { return }
            watch.ran(stamped, clock: clock)
        }
        let (sender, once) = (r.sender, r.once)
        switch r.context {
        case .actor:
            let actor = r.owner as! ModelActor
            if r.named {
                return center.listen(to: Self.name, isolatedTo: actor, from: sender, once: once) { _, e in named(e) }
            }
            if let key = r.key {
                return center.listen(to: StampedEvent.self, isolatedTo: actor, key: key, from: sender, once: once) {
                    _, e in typed(e)
                }
            }
            return center.listen(to: StampedEvent.self, isolatedTo: actor, from: sender, once: once) { _, e in typed(e)
            }
        case .main, .mainOrdered:
            let delivery: MainActorDelivery = r.context == .main ? .main : .mainOrdered
            if let owner = r.owner as? StampedOwner {
                if r.named {
                    return center.listen(to: Self.name, owner: owner, on: delivery, from: sender, once: once) {
                        @MainActor _, e in named(e)
                    }
                }
                if let key = r.key {
                    return center.listen(
                        to: StampedEvent.self, owner: owner, key: key, on: delivery, from: sender, once: once
                    ) { @MainActor _, e in typed(e) }
                }
                return center.listen(to: StampedEvent.self, owner: owner, on: delivery, from: sender, once: once) {
                    @MainActor _, e in typed(e)
                }
            }
            if r.named {
                return center.listen(to: Self.name, on: delivery, from: sender, once: once) { @MainActor e in named(e) }
            }
            return center.listen(to: StampedEvent.self, on: delivery, from: sender, once: once) { @MainActor e in
                typed(e)
            }
        default:
            let delivery: Delivery =
                switch r.context {
                case .serialQueue: .queue(serialQueue)
                case .concurrentQueue: .queue(concurrentQueue)
                case .operationQueue: .operationQueue(operationQueue)
                case .background: .background
                default: .postingThread
                }
            if let owner = r.owner as? StampedOwner {
                switch (r.named, r.key) {
                case (true, let key?):
                    return center.listen(to: Self.name, owner: owner, key: key, on: delivery, from: sender, once: once)
                    {
                        _, e in named(e)
                    }
                case (true, nil):
                    return center.listen(to: Self.name, owner: owner, on: delivery, from: sender, once: once) {
                        _, e in named(e)
                    }
                case (false, let key?):
                    return center.listen(
                        to: StampedEvent.self, owner: owner, key: key, on: delivery, from: sender, once: once
                    ) { _, e in typed(e) }
                case (false, nil):
                    return center.listen(to: StampedEvent.self, owner: owner, on: delivery, from: sender, once: once) {
                        _, e in typed(e)
                    }
                }
            }
            if r.named { return center.listen(to: Self.name, on: delivery, from: sender, once: once, named) }
            return center.listen(to: StampedEvent.self, on: delivery, from: sender, once: once, typed)
        }
    }

    /// Listeners that live through the whole run. `expects(target, sender)` says whether a
    /// dispatch to a target (0: the type, 1: the name) from a sender (0: none, 1 and 2: the
    /// senders) must reach it.
    func registerPermanentListeners(contexts: [ModelContext]) {
        func add(_ name: String, _ r: Registration, expects: @escaping (Int, Int) -> Bool) {
            let watch = ListenerWatch(name, once: r.once, dispatchers: dispatchers)
            let subscription = listen(r, watch: watch)
            lock.withLock {
                subscriptions.append(subscription)
                permanent.append((watch, expects))
            }
        }
        for context in contexts {
            let owner: (any AnyObject & Sendable)? = context == .actor ? permanentActor : nil
            add("permanent listener on \(context)", Registration(context: context, owner: owner)) { t, _ in t == 0 }
            add("permanent once listener on \(context)", Registration(context: context, owner: owner, once: true)) {
                _, _ in false
            }
        }
        add("permanent owner-bound listener", Registration(context: .posting, owner: permanentOwner)) { t, _ in t == 0 }
        add("permanent listener of sender 1", Registration(context: .posting, sender: senders[0])) { t, s in
            t == 0 && s == 1
        }
        add("permanent named listener", Registration(context: .posting, named: true)) { t, _ in t == 1 }
        add("permanent named listener on the serial queue", Registration(context: .serialQueue, named: true)) {
            t, _ in t == 1
        }
    }

    // MARK: Threads

    /// Dispatches `count` events from thread `dispatcher`, most of them typed, from no sender or
    /// one of two; more (up to ten times as many) until `minimumChurn` listeners have churned,
    /// so that a slow churn still meets enough dispatches.
    func dispatch(from dispatcher: Int, count: Int, minimumChurn: Int) {
        let reachedBy = reachedBy
        let floors = (0..<2).map { target in (0..<3).map { reachedBy(target, $0) } }
        var random = ModelRandom(seed: seed &+ UInt64(dispatcher))
        var counts = [[0, 0, 0], [0, 0, 0]]
        var sequence = 0
        while sequence < count || (churned.load(ordering: .relaxed) < minimumChurn && sequence < count * 10) {
            defer { sequence += 1 }
            let target = random.chance(80) ? 0 : 1
            let senderIndex = random.below(3)
            let sender: AnyObject? = senderIndex == 0 ? nil : senders[senderIndex - 1]
            let event = StampedEvent(dispatcher: dispatcher, sequence: sequence, began: clock.next())
            let delivered =
                target == 0
                ? center.dispatch(event, from: sender) : center.dispatch(Self.name, from: sender, data: event)
            counts[target][senderIndex] += 1
            let floor = floors[target][senderIndex]
            if delivered < floor {
                record("a dispatch returned \(delivered), below the \(floor) permanent listeners it must reach")
            }
        }
        lock.withLock { dispatched[dispatcher] = counts }
        dispatchersDone.add(1, ordering: .sequentiallyConsistent)
    }

    /// Registers and ends listeners until the dispatchers are done: every context, with and
    /// without owner, key, sender and once, ended by `cancel()`, by dropping the subscription,
    /// by each removal, or by the owner's death, from this thread or from the listener's own
    /// serial executor.
    func churn(_ churner: Int, contexts: [ModelContext]) {
        var random = ModelRandom(seed: seed &+ 1_000 &+ UInt64(churner))
        while dispatchersDone.load(ordering: .sequentiallyConsistent) < dispatchers {
            churnOne(&random, contexts: contexts)
            churned.add(1, ordering: .relaxed)
        }
    }

    private func churnOne(_ random: inout ModelRandom, contexts: [ModelContext]) {
        let context = random.pick(contexts)
        var r = Registration(context: context)
        r.named = random.chance(25)
        r.once = random.chance(30)
        if random.chance(20) { r.sender = senders[random.below(2)] }
        let ownerBound = context == .actor || random.chance(50)
        let keyable = !(r.named && (context == .actor || context == .main || context == .mainOrdered))
        if ownerBound && keyable && random.chance(40) { r.key = random.below(3) }
        let serial = [.serialQueue, .background, .actor, .main, .mainOrdered].contains(context)
        let onExecutor = serial && random.chance(50)
        // 0: cancel(), 1: dropping the subscription or a removal, 2: a removal, 3: the owner's
        // death (a cancel() for an actor, which the churner keeps alive).
        let ending = random.below(ownerBound ? 4 : 2)
        // Removals that match this listener: by owner, by owner and target, and with its key,
        // by key and by key and target.
        let removal = random.below(r.key == nil ? 2 : 4)
        let endingName: String =
            switch (ending, ownerBound, context == .actor) {
            case (0, _, _), (3, _, true): "cancel()"
            case (1, false, _): "dropping its subscription"
            case (3, _, false): "its owner's deinit"
            default:
                ["remove(owner)", "remove(owner, for:)", "remove(owner, key:)", "remove(owner, key:, for:)"][removal]
            }
        let watch = ListenerWatch(
            describe(r, ownerBound: ownerBound) + ", ended by " + endingName + (onExecutor ? " on its executor" : ""),
            once: r.once, dispatchers: dispatchers)
        let owner = OwnerBox()
        if context == .actor {
            owner.object = ModelActor(tag: 0, executor: actorExecutor)
        } else if ownerBound {
            owner.object = StampedOwner(watch: watch, clock: clock)
        }
        r.owner = owner.object
        let subscription = SubscriptionBox(listen(r, watch: watch))
        r.owner = nil
        for _ in 0..<random.below(4) { sched_yield() }

        let center = center
        switch ending {
        case 0:
            run({ subscription.value?.cancel() }, on: context, onExecutor: onExecutor, watch: watch)
        case 1 where !ownerBound:
            run({ subscription.value = nil }, on: context, onExecutor: onExecutor, watch: watch)
        case 3 where context != .actor:
            // The owner's deinit stamps the end itself, wherever the last reference goes: not
            // necessarily on the executor, since a dispatch in progress holds the owner while
            // it hands the event over.
            run({ owner.object = nil }, on: context, onExecutor: onExecutor, watch: nil)
        case 3:
            run({ subscription.value?.cancel() }, on: context, onExecutor: onExecutor, watch: watch)
        default:
            let (named, key) = (r.named, r.key ?? 0)
            let removed = owner.object!
            run(
                {
                    switch (removal, named) {
                    case (0, _): center.remove(removed)
                    case (1, false): center.remove(removed, for: StampedEvent.self)
                    case (1, true): center.remove(removed, for: Self.name)
                    case (2, _): center.remove(removed, key: key)
                    case (_, false): center.remove(removed, key: key, for: StampedEvent.self)
                    case (_, true): center.remove(removed, key: key, for: Self.name)
                    }
                }, on: context, onExecutor: onExecutor, watch: watch)
        }
        subscription.value = nil
        owner.object = nil
    }

    /// Runs `ending`, then stamps the end: here, or in a block on the listener's own serial
    /// executor, waited for.
    private func run(
        _ ending: @escaping () -> Void, on context: ModelContext, onExecutor: Bool, watch: ListenerWatch? = nil
    ) {
        guard onExecutor else {
            ending()
            if let watch { watch.ended(at: clock.next()) }
            return
        }
        let done = DispatchSemaphore(value: 0)
        let clock = clock
        let work = UncheckedBlock {
            ending()
            if let watch { watch.ended(at: clock.next(), onExecutor: true) }
            done.signal()
        }
        switch context {
        case .serialQueue: serialQueue.async { work.run() }
        case .background: center.backgroundQueue.async { work.run() }
        case .actor: actorExecutor.queue.async { work.run() }
        default: DispatchQueue.main.async { work.run() }
        }
        done.wait()
    }

    private func describe(_ r: Registration, ownerBound: Bool) -> String {
        var parts = ["to: \(r.named ? "a name" : "a type")"]
        if ownerBound { parts.append(r.context == .actor ? "isolatedTo: an actor" : "owner: an object") }
        if let key = r.key { parts.append("key: \(key)") }
        if r.context != .posting && r.context != .actor { parts.append("on: \(r.context)") }
        if r.sender != nil { parts.append("from: a sender") }
        if r.once { parts.append("once: true") }
        return "listen(" + parts.joined(separator: ", ") + ")"
    }

    // MARK: Checking

    /// Waits until every queued delivery has had its turn. Suspends between looks rather than
    /// spinning on the thread: a thread of the concurrency pool (two on a 2-core machine) held
    /// here while the main actor works through its backlog starved every other suite's timed
    /// waits. The bound is generous: the main-actor model runs of the same suite hold the main
    /// actor for minutes on a loaded machine.
    func settle() async -> Bool {
        let all = lock.withLock { probes }
        return await eventually(timeout: .seconds(240)) { all.allSatisfy(\.isIdle) }
    }

    /// Everything that went wrong: broken rules of churned listeners, and permanent listeners
    /// whose count is not exactly what was dispatched to them.
    func violations() -> [String] {
        let watches = lock.withLock { self.watches }
        let permanent = lock.withLock { self.permanent }
        let dispatched = lock.withLock { self.dispatched }
        var found = lock.withLock { problems }
        for watch in watches { found += watch.violations() }
        for (watch, expects) in permanent {
            var expected = 0
            for counts in dispatched {
                for target in 0..<2 {
                    for sender in 0..<3 where expects(target, sender) { expected += counts[target][sender] }
                }
            }
            if watch.once { expected = 1 }
            let calls = watch.calls.load(ordering: .relaxed)
            if calls != expected { found.append("\(watch.name) ran \(calls) times, not \(expected)") }
        }
        return found
    }

    var dispatchedCount: Int { lock.withLock { dispatched.joined().joined().reduce(0, +) } }
    var watchCount: Int { lock.withLock { watches.count } }

    /// Lets go of the permanent listeners.
    func finish() {
        let subscriptions = lock.withLock {
            defer { self.subscriptions = [] }
            return self.subscriptions
        }
        for subscription in subscriptions { subscription.cancel() }
    }
}

/// The churning thread's only strong reference to a listener's owner, so that a block on
/// another executor can drop it.
private final class OwnerBox: @unchecked Sendable {
    // Why @unchecked is safe: used by the churning thread, and by a block on another executor
    // only while that thread waits on a semaphore for the block to finish.
    var object: (any AnyObject & Sendable)?
}

/// The churning thread's only reference to a subscription, for the same reason.
private final class SubscriptionBox: @unchecked Sendable {
    // Why @unchecked is safe: as for `OwnerBox`.
    var value: Subscription?
    init(_ value: Subscription) { self.value = value }
}

/// A block handed to another executor while the thread that made it waits for it to finish.
private struct UncheckedBlock: @unchecked Sendable {
    // Why @unchecked is safe: the block runs exactly once, on one executor, while the thread
    // that captured its state blocks on a semaphore until it has run; nothing touches that
    // state concurrently.
    let body: () -> Void
    func run() { body() }
}
