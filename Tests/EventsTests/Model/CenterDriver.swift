import Dispatch
import Foundation
import Synchronization

@testable import Events

/// Runs the model's operations on a real `EventCenter` and reports what an observer sees.
///
/// Every queued context is held: the dispatch queues and the center's background queue are
/// suspended, the operation queue is suspended, the actors run on a ``HeldExecutor``, and in a
/// main-actor run the main queue waits behind the run itself. A `drain` operation lets one of
/// them run until every listener's mailbox on it is idle, then holds it again; so a queued
/// delivery runs exactly when the model says its turn comes.
final class CenterDriver: @unchecked Sendable {
    // Why @unchecked is safe: every stored `var` is touched only by the thread that runs the
    // operations (posting-thread handlers run on it too, inside `dispatch`). Handlers that run
    // in other contexts touch `sink` only, which has its own lock.

    let center = EventCenter()
    let sink = EntrySink()
    let actorExecutor = HeldExecutor()
    let serialQueue = DispatchQueue(label: "swift-events.model.serial")
    let concurrentQueue = DispatchQueue(label: "swift-events.model.concurrent", attributes: .concurrent)
    let operationQueue = OperationQueue()
    /// Where `dispatchFromAnotherThread` dispatches: not the main queue, not the caller's thread.
    private let otherThread = DispatchQueue(label: "swift-events.model.other-thread")
    /// Whether the operations run on the main actor (where `.main` listeners may run inline).
    let onMainActor: Bool

    /// The executors currently held back.
    private var held: Set<ModelExecutor> = []
    private var strongObjects: [Int: AnyObject] = [:]
    private var weakObjects: [Int: WeakObject] = [:]
    private(set) var subscriptions: [Int: Subscription] = [:]
    /// The record of every listener the model has not forgotten, and the other way round. The
    /// records are kept, so that no new record takes the address of one while it is mapped.
    private var records: [Int: ListenerRecord] = [:]
    private var listenerOfRecord: [ObjectIdentifier: Int] = [:]
    private var probes: [ModelExecutor: [Int: MailboxProbe]] = [:]
    private var depth = 0
    private var nextEvent = 1
    private var nextNestedListener = ModelLimits.firstNestedListener
    /// Set when the driver itself could not do what it had to (an executor that never settled).
    private(set) var harnessFailure: String?

    /// `observed`: with every diagnostic on and a tracer installed, so that dispatch takes the
    /// observed loop, which must keep every rule the plain one keeps.
    init(onMainActor: Bool, observed: Bool = false) {
        self.onMainActor = onMainActor
        if observed {
            center.diagnostics = .development
            center.diagnostics.slowListenerScope = .everyContext
            center.warningHandler = { _ in }
            center.tracer = CountingTracer()
        }
        operationQueue.maxConcurrentOperationCount = 2
        serialQueue.suspend()
        concurrentQueue.suspend()
        operationQueue.isSuspended = true
        center.backgroundQueue.suspend()
        held = [.serialQueue, .concurrentQueue, .operationQueue, .background, .actors]
    }

    // MARK: Operations

    /// Applies `operation` (anything but draining the main queue, see ``drainMainQueue()``) and
    /// returns what it produced.
    func apply(_ operation: ModelOperation) -> ModelOutcome {
        var outcome = ModelOutcome()
        switch operation {
        case .create(let tag, let kind):
            let object: AnyObject =
                kind == .actor ? ModelActor(tag: tag, executor: actorExecutor) : ModelObject(tag: tag)
            strongObjects[tag] = object
            weakObjects[tag] = WeakObject(object)
        case .release(let tag):
            strongObjects[tag] = nil
        case .listen(let spec):
            outcome.registeredAs = listen(spec)
        case .dispatch(let target, let sender):
            outcome.delivered = dispatch(target, sender: sender).delivered
        case .dispatchFromAnotherThread(let target, let sender):
            // This thread waits, so the driver is still used by one thread at a time.
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var delivered = 0
            otherThread.async {
                delivered = self.dispatch(target, sender: sender).delivered
                done.signal()
            }
            done.wait()
            outcome.delivered = delivered
        case .cancel(let id):
            subscriptions[id]?.cancel()
        case .drop(let id):
            drop(id)
        case .remove(let removal):
            remove(removal)
        case .drain(let executor):
            drain(executor)
        }
        settleActors()
        outcome.entries = sink.take()
        return outcome
    }

    /// What the center reports: `listenerCount` of every target, `isActive` of the
    /// subscriptions of `held` (which must be all the driver holds).
    func observe(held: [Int]) -> ModelObservation {
        var observation = ModelObservation()
        observation.counts = [
            center.listenerCount(for: ModelEventA.self), center.listenerCount(for: ModelEventB.self),
            center.listenerCount(for: ModelTarget.name0.eventName),
            center.listenerCount(for: ModelTarget.name1.eventName), center.listenerCount(for: NamedEvent.self),
        ]
        observation.held = held
        observation.active = held.map { subscriptions[$0]?.isActive }
        if subscriptions.count != held.count {
            // A subscription the model does not know of: show it as held but unexpected.
            let extra = subscriptions.keys.filter { !held.contains($0) }.sorted()
            observation.held += extra
            observation.active += extra.map { subscriptions[$0]?.isActive }
        }
        return observation
    }

    /// Lets go of a listener the model has forgotten (ended, nothing queued).
    func forget(_ id: Int) {
        subscriptions[id] = nil
        if let record = records.removeValue(forKey: id) { listenerOfRecord[ObjectIdentifier(record)] = nil }
    }

    func object(_ tag: Int?) -> AnyObject? {
        guard let tag else { return nil }
        guard let object = weakObjects[tag]?.object else {
            weakObjects[tag] = nil
            return nil
        }
        return object
    }

    private func listen(_ spec: ModelListenerSpec) -> Int? {
        let owner = object(spec.owner)
        let sender = object(spec.sender)
        if spec.owner != nil && owner == nil { return nil }
        if spec.sender != nil && sender == nil { return nil }
        let subscription = register(spec, owner: owner, sender: sender)
        let recordID = ObjectIdentifier(subscription.record)
        if let existing = listenerOfRecord[recordID] { return existing }
        listenerOfRecord[recordID] = spec.id
        records[spec.id] = subscription.record
        subscriptions[spec.id] = subscription
        if let executor = spec.context.executor, let probe = MailboxProbe(subscription.record) {
            probes[executor, default: [:]][spec.id] = probe
        }
        return spec.id
    }

    /// Lets go of the subscription only: the record stays mapped until the model forgets it.
    private func drop(_ id: Int) {
        subscriptions[id] = nil
    }

    private func dispatch(_ target: ModelTarget, sender tag: Int?) -> (event: Int, delivered: Int) {
        let sender = object(tag)
        let event = nextEvent
        nextEvent += 1
        depth += 1
        defer { depth -= 1 }
        switch target {
        case .a: return (event, center.dispatch(ModelEventA(id: event), from: sender))
        case .b: return (event, center.dispatch(ModelEventB(id: event), from: sender))
        case .name0, .name1: return (event, center.dispatch(target.eventName, from: sender, data: event))
        case .allNames: preconditionFailure("nothing is dispatched to every name")
        }
    }

    private func remove(_ removal: ModelRemoval) {
        guard let owner = object(removal.owner) else { return }
        switch removal.kind {
        case .all:
            center.remove(owner)
        case .target(.a):
            center.remove(owner, for: ModelEventA.self)
        case .target(.b):
            center.remove(owner, for: ModelEventB.self)
        case .target(let name):
            center.remove(owner, for: name.eventName)
        case .key(let key):
            center.remove(owner, key: key)
        case .keyAndTarget(let key, .a):
            center.remove(owner, key: key, for: ModelEventA.self)
        case .keyAndTarget(let key, .b):
            center.remove(owner, key: key, for: ModelEventB.self)
        case .keyAndTarget(let key, let name):
            center.remove(owner, key: key, for: name.eventName)
        case .allNames:
            center.remove(owner, for: NamedEvent.self)
        case .allNamesKey(let key):
            center.remove(owner, key: key, for: NamedEvent.self)
        }
    }

    // MARK: Handlers

    /// A posting-thread handler ran: record it, then do its action (rule 6).
    func postingRan(listener: Int, event: Int, sender: Int, owner: Int, action: ModelAction) {
        sink.record(.ran(listener: listener, event: event, sender: sender, owner: owner))
        switch action {
        case .none:
            break
        case .dispatch(let target, let sender):
            guard depth < ModelLimits.maximumDepth else { return }
            let (event, delivered) = dispatch(target, sender: sender)
            sink.record(.nestedReturn(event: event, delivered: delivered))
        case .cancel(let id):
            subscriptions[id]?.cancel()
        case .drop(let id):
            drop(id)
        case .remove(let removal):
            remove(removal)
        case .listen(let template):
            var spec = template
            spec.id = nextNestedListener
            nextNestedListener += 1
            sink.record(.registered(listener: spec.id, as: listen(spec) ?? 0))
        case .kill(let tag):
            strongObjects[tag] = nil
        }
    }

    // MARK: Held executors

    private func isIdle(_ executor: ModelExecutor) -> Bool {
        probes[executor]?.values.allSatisfy(\.isIdle) ?? true
    }

    /// Forgets the probes of forgotten listeners that have nothing left to run.
    private func pruneProbes(_ executor: ModelExecutor) {
        probes[executor] = probes[executor]?.filter { records[$0.key] != nil || !$0.value.isIdle }
    }

    private func drain(_ executor: ModelExecutor) {
        switch executor {
        case .serialQueue: drain(serialQueue, as: executor)
        case .concurrentQueue: drain(concurrentQueue, as: executor)
        case .background: drain(center.backgroundQueue, as: executor)
        case .operationQueue:
            operationQueue.isSuspended = false
            var rounds = 0
            repeat {
                operationQueue.waitUntilAllOperationsAreFinished()
                rounds += 1
            } while !isIdle(executor) && rounds < 10_000
            operationQueue.isSuspended = true
            if !isIdle(executor) { harnessFailure = "the operation queue's mailboxes never became idle" }
        case .actors:
            actorExecutor.queue.resume()
            if !waitUntil({ isIdle(.actors) }) { harnessFailure = "the actor listeners' mailboxes never became idle" }
            actorExecutor.queue.suspend()
        case .main:
            preconditionFailure("the main queue is drained by awaiting drainMainQueue()")
        }
        pruneProbes(executor)
    }

    private func drain(_ queue: DispatchQueue, as executor: ModelExecutor) {
        queue.resume()
        var rounds = 0
        // A mailbox runs a bounded batch per block, then queues its next block behind ours.
        repeat {
            queue.sync(flags: .barrier) {}
            rounds += 1
        } while !isIdle(executor) && rounds < 10_000
        queue.suspend()
        if !isIdle(executor) { harnessFailure = "the mailboxes on the \(executor) never became idle" }
    }

    /// Lets the main queue run until every main-actor listener's mailbox is idle; the caller
    /// holds the main actor otherwise, which is what holds those listeners back.
    @MainActor
    func drainMainQueue() async -> ModelOutcome {
        var rounds = 0
        while !isIdle(.main) && rounds < 10_000 {
            await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
            rounds += 1
        }
        if !isIdle(.main) { harnessFailure = "the main-actor listeners' mailboxes never became idle" }
        pruneProbes(.main)
        settleActors()
        return ModelOutcome(entries: sink.take())
    }

    /// Waits until every actor listener with work has it waiting at the held executor, so that
    /// what a delivery checks before its turn has been checked before the next operation.
    private func settleActors() {
        guard let actorProbes = probes[.actors], !actorProbes.isEmpty else { return }
        let settled = waitUntil {
            let busy = actorProbes.values.reduce(0) { $0 + ($1.isIdle ? 0 : 1) }
            return actorExecutor.waiting.load(ordering: .sequentiallyConsistent) == busy
        }
        if !settled { harnessFailure = "the actor listeners never settled at their executor" }
    }

    /// Lets every held executor run to the end and lets go of everything: a suspended queue must
    /// not be released. Call once, last (after draining the main queue in a main-actor run).
    func finish() {
        for executor in held {
            switch executor {
            case .serialQueue: serialQueue.resume()
            case .concurrentQueue: concurrentQueue.resume()
            case .operationQueue: operationQueue.isSuspended = false
            case .background: center.backgroundQueue.resume()
            case .actors: actorExecutor.queue.resume()
            case .main: break
            }
        }
        held = []
        _ = waitUntil { ModelExecutor.allCases.allSatisfy { $0 == .main || isIdle($0) } }
        operationQueue.waitUntilAllOperationsAreFinished()
        subscriptions = [:]
        records = [:]
        listenerOfRecord = [:]
        strongObjects = [:]
        probes = [:]
    }
}

/// A weak reference, to find an object the driver no longer holds while something else does.
final class WeakObject {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

/// The tag of the object that sent an event, as a handler sees it (0: none).
func modelTag(of sender: Sender?) -> Int {
    sender?.object(as: ModelObject.self)?.tag ?? 0
}

/// A tracer that reads each trace and keeps a count, for runs of the observed loop.
final class CountingTracer: EventTracer {
    let dispatches = Counter()
    let deliveries = Counter()
    func didDispatch(_ trace: DispatchTrace) { dispatches.increment() }
    func didRunQueuedDelivery(_ trace: DeliveryTrace) { deliveries.increment() }
}
