/// A single-threaded statement of the center's documented rules (`EventCenter` rules 1-9, the
/// rules of `Subscription`, of `Delivery` for queued contexts, of removal and of named events):
/// given the same operations as the real center, it says which handlers run, in which order,
/// with which event and sender, what `dispatch` returns, what `listenerCount` and `isActive`
/// report.
///
/// It is written from the documentation, not from the implementation. Where the documentation
/// leaves a point open, the model settles it as the center does, and the run keeps away from
/// what depends on the implementation:
/// - An object is alive as long as anything holds it, and a queued delivery holds the sender it
///   was dispatched from (its handler is handed that sender), so a sender outlives the events it
///   still has queued.
/// - A dead owner or sender is noticed when the center is asked (`listenerCount`, `isActive`),
///   which the run does after every operation: the model notices it there too.
/// - An actor is released only with nothing queued for it: a delivery waiting for an actor
///   needs the actor to run on, so whether it keeps the actor alive is the implementation's
///   business.
final class ReferenceModel {
    enum State { case active, cancelled, consumed, ownerGone, senderGone }

    /// A delivery waiting in a listener's own queue for its executor to run.
    struct Job {
        let event: Int
        let sender: Int?
    }

    /// A registration. A class, so that the model's tables share it rather than copy it.
    final class Listener {
        let spec: ModelListenerSpec
        var state: State = .active
        /// Registration order across every list (named listeners merge two lists by it).
        let sequence: Int
        var pending: [Job] = []
        var subscriptionHeld = true

        init(spec: ModelListenerSpec, sequence: Int) {
            self.spec = spec
            self.sequence = sequence
        }

        var isOwnerBound: Bool { spec.owner != nil }

        /// Whether `self` runs before `other` in a dispatch: higher priority, then earlier.
        func runsBefore(_ other: Listener) -> Bool {
            spec.priority != other.spec.priority ? spec.priority > other.spec.priority : sequence < other.sequence
        }
    }

    /// A living object: held by the driver, and by whatever else is using it (a dispatch in
    /// progress, a handler call, a queued delivery). It dies when nothing holds it.
    private struct Life {
        let kind: ModelObjectKind
        var heldByDriver = true
        var holds = 0
    }

    private(set) var listeners: [Int: Listener] = [:]
    /// Every listener not forgotten, in registration order (the generator picks from it).
    private(set) var registered: [Listener] = []
    /// Each target's listeners in delivery order (until forgotten).
    private var lists: [ModelTarget: [Listener]] = [:]
    private var living: [Int: Life] = [:]
    /// The tags the driver holds, by kind, oldest first.
    private var held: [ModelObjectKind: [Int]] = [:]
    private var nextEvent = 1
    private var nextSequence = 0
    private var nextNestedListener = ModelLimits.firstNestedListener
    private var depth = 0
    private var entries: [ModelEntry] = []
    /// Whether dispatches happen on the main actor, where `.main` listeners run inline while
    /// nothing of theirs is queued.
    let dispatchesOnMainActor: Bool

    /// Whether the dispatch in progress runs on the main actor.
    private var onMainActorNow: Bool

    init(dispatchesOnMainActor: Bool) {
        self.dispatchesOnMainActor = dispatchesOnMainActor
        onMainActorNow = dispatchesOnMainActor
    }

    // MARK: Queries used by the generator

    func isAlive(_ tag: Int) -> Bool { living[tag] != nil }
    /// How many registered listeners are active.
    private(set) var activeListenerCount = 0
    func isHeldByDriver(_ tag: Int) -> Bool { living[tag]?.heldByDriver == true }
    func kind(of tag: Int) -> ModelObjectKind? { living[tag]?.kind }
    /// The objects of `kind` the driver holds, oldest first.
    func heldTags(of kind: ModelObjectKind) -> [Int] { held[kind] ?? [] }
    func hasPending(on executor: ModelExecutor) -> Bool {
        registered.contains { $0.spec.context.executor == executor && !$0.pending.isEmpty }
    }
    func hasPending(for owner: Int) -> Bool {
        registered.contains { $0.spec.owner == owner && !$0.pending.isEmpty }
    }
    /// Listeners that have ended, with nothing queued: nothing can tell them from forgotten
    /// ones. In registration order.
    func forgettable() -> [Int] {
        registered.filter { $0.state != .active && $0.pending.isEmpty }.map(\.spec.id)
    }
    /// How many listeners are registered and not forgotten.
    var registeredCount: Int { registered.count }
    func forget(_ id: Int) {
        guard let listener = listeners.removeValue(forKey: id) else { return }
        registered.removeAll { $0 === listener }
        lists[listener.spec.target]?.removeAll { $0 === listener }
    }

    // MARK: Operations

    func apply(_ operation: ModelOperation) -> ModelOutcome {
        entries = []
        var outcome = ModelOutcome()
        switch operation {
        case .create(let tag, let kind):
            precondition(living[tag] == nil, "tags are never reused")
            living[tag] = Life(kind: kind)
            held[kind, default: []].append(tag)
        case .release(let tag):
            letDriverGo(tag)
        case .listen(let spec):
            outcome.registeredAs = listen(spec)
        case .dispatch(let target, let sender):
            outcome.delivered = dispatch(target, sender: sender).delivered
        case .dispatchFromAnotherThread(let target, let sender):
            onMainActorNow = false
            outcome.delivered = dispatch(target, sender: sender).delivered
            onMainActorNow = dispatchesOnMainActor
        case .cancel(let id):
            if let listener = listeners[id], listener.subscriptionHeld { cancel(listener) }
        case .drop(let id):
            drop(id)
        case .remove(let removal):
            remove(removal)
        case .drain(let executor):
            drain(executor)
        }
        outcome.entries = entries
        return outcome
    }

    /// What the center reports after an operation. Asking `listenerCount` and `isActive` is
    /// what notices dead owners and senders (rules 2 and 4), so the model notices them here too.
    func observe() -> ModelObservation {
        for listener in registered where listener.state == .active {
            if let owner = listener.spec.owner, !isAlive(owner) {
                end(listener, .ownerGone)
            } else if let sender = listener.spec.sender, !isAlive(sender) {
                end(listener, .senderGone)
            }
        }
        var counts = [0, 0, 0, 0, 0]
        var observation = ModelObservation()
        for listener in registered {
            let active = listener.state == .active
            if active { counts[listener.spec.target.rawValue] += 1 }
            if listener.subscriptionHeld {
                observation.held.append(listener.spec.id)
                observation.active.append(active)
            }
        }
        // A name's count includes the listeners of every name.
        observation.counts = [counts[0], counts[1], counts[2] + counts[4], counts[3] + counts[4], counts[4]]
        return observation
    }

    // MARK: Objects

    private func letDriverGo(_ tag: Int) {
        guard let life = living[tag], life.heldByDriver else { return }
        living[tag]!.heldByDriver = false
        held[life.kind]?.removeAll { $0 == tag }
        dieIfUnheld(tag)
    }

    private func hold(_ tag: Int?) {
        guard let tag, living[tag] != nil else { return }
        living[tag]!.holds += 1
    }

    private func letGo(_ tag: Int?) {
        guard let tag, living[tag] != nil else { return }
        living[tag]!.holds -= 1
        dieIfUnheld(tag)
    }

    private func dieIfUnheld(_ tag: Int) {
        if let life = living[tag], !life.heldByDriver, life.holds == 0 { living[tag] = nil }
    }

    // MARK: Registering (rule 3)

    /// Registers `spec`, or finds the live registration it duplicates. Returns the listener whose
    /// subscription `listen` returns, or nil when an object it names is already gone (the driver
    /// cannot pass it, so nothing is registered).
    private func listen(_ spec: ModelListenerSpec) -> Int? {
        if let owner = spec.owner, !isAlive(owner) { return nil }
        if let sender = spec.sender, !isAlive(sender) { return nil }
        if spec.key != nil {
            let duplicate = (lists[spec.target] ?? []).first { other in
                other.state == .active && other.spec.owner == spec.owner && other.spec.key == spec.key
                    && other.spec.sender == spec.sender
            }
            if let duplicate { return duplicate.spec.id }
        }
        let listener = Listener(spec: spec, sequence: nextSequence)
        nextSequence += 1
        listeners[spec.id] = listener
        registered.append(listener)
        activeListenerCount += 1
        var list = lists[spec.target] ?? []
        list.insert(listener, at: list.lastIndex { $0.runsBefore(listener) }.map { $0 + 1 } ?? 0)
        lists[spec.target] = list
        return spec.id
    }

    // MARK: Dispatching (rules 1, 2, 4, 5, 6)

    /// The listeners a dispatch to `target` walks, in delivery order: higher priority first,
    /// ties in registration order; a name's listeners merged with those of every name.
    private func snapshot(for target: ModelTarget) -> [Listener] {
        let own = lists[target] ?? []
        guard target.isNamed, let every = lists[.allNames], !every.isEmpty else { return own }
        var merged: [Listener] = []
        merged.reserveCapacity(own.count + every.count)
        var (i, j) = (0, 0)
        while i < own.count || j < every.count {
            if j == every.count || (i < own.count && own[i].runsBefore(every[j])) {
                merged.append(own[i])
                i += 1
            } else {
                merged.append(every[j])
                j += 1
            }
        }
        return merged
    }

    private func dispatch(_ target: ModelTarget, sender requested: Int?) -> (event: Int, delivered: Int) {
        let sender = requested.flatMap { isAlive($0) ? $0 : nil }
        let event = nextEvent
        nextEvent += 1
        depth += 1
        hold(sender)
        var delivered = 0
        for listener in snapshot(for: target) {
            let spec = listener.spec
            if let filter = spec.sender {
                guard isAlive(filter) else {
                    retire(listener, .senderGone)
                    continue
                }
                guard filter == sender else { continue }
            }
            if let owner = spec.owner, !isAlive(owner) {
                retire(listener, .ownerGone)
                continue
            }
            // The claim: a once listener is consumed by its first delivery.
            guard listener.state == .active else { continue }
            if spec.once { end(listener, .consumed) }
            delivered += 1
            switch spec.context {
            case .posting:
                hold(spec.owner)
                entries.append(ran(spec, event: event, sender: sender))
                perform(spec.action)
                letGo(spec.owner)
            case .main where onMainActorNow && listener.pending.isEmpty:
                entries.append(ran(spec, event: event, sender: sender))
            default:
                hold(sender)
                listener.pending.append(Job(event: event, sender: sender))
            }
        }
        letGo(sender)
        depth -= 1
        return (event, delivered)
    }

    private func ran(_ spec: ModelListenerSpec, event: Int, sender: Int?) -> ModelEntry {
        .ran(listener: spec.id, event: event, sender: spec.seesSender ? (sender ?? 0) : -1, owner: spec.owner ?? 0)
    }

    private func retire(_ listener: Listener, _ state: State) {
        if listener.state == .active { end(listener, state) }
    }

    /// Every change of state goes through here, which keeps ``activeListenerCount``.
    private func end(_ listener: Listener, _ state: State) {
        if listener.state == .active && state != .active { activeListenerCount -= 1 }
        listener.state = state
    }

    /// What a posting-thread handler does after recording its call.
    private func perform(_ action: ModelAction) {
        switch action {
        case .none:
            break
        case .dispatch(let target, let sender):
            guard depth < ModelLimits.maximumDepth else { return }
            let (event, delivered) = dispatch(target, sender: sender)
            entries.append(.nestedReturn(event: event, delivered: delivered))
        case .cancel(let id):
            if let listener = listeners[id], listener.subscriptionHeld { cancel(listener) }
        case .drop(let id):
            drop(id)
        case .remove(let removal):
            remove(removal)
        case .listen(let template):
            var spec = template
            spec.id = nextNestedListener
            nextNestedListener += 1
            entries.append(.registered(listener: spec.id, as: listen(spec) ?? 0))
        case .kill(let tag):
            letDriverGo(tag)
        }
    }

    // MARK: Ending (rule 7, removal, subscriptions)

    /// `cancel()`, and what every removal does to each listener it matches: the listener ends,
    /// and a `once` listener's event still queued is not delivered either.
    private func cancel(_ listener: Listener) {
        if listener.state == .active || (listener.spec.once && listener.state == .consumed) {
            end(listener, .cancelled)
        }
    }

    /// Dropping the subscription: a closure listener ends with it, an owner-bound one does not.
    private func drop(_ id: Int) {
        guard let listener = listeners[id], listener.subscriptionHeld else { return }
        if !listener.isOwnerBound { cancel(listener) }
        listener.subscriptionHeld = false
    }

    private func remove(_ removal: ModelRemoval) {
        guard isAlive(removal.owner) else { return }
        for listener in registered
        where listener.spec.owner == removal.owner
            && removal.matches(target: listener.spec.target, key: listener.spec.key)
        {
            cancel(listener)
        }
    }

    // MARK: Queued contexts (rules of `Delivery`)

    /// Runs what `executor` holds: each listener's events in the order they were queued, each
    /// skipped if the listener has ended by its turn (a once listener's own event excepted,
    /// unless it was cancelled or removed) or its owner is gone.
    private func drain(_ executor: ModelExecutor) {
        for listener in registered where listener.spec.context.executor == executor && !listener.pending.isEmpty {
            let jobs = listener.pending
            listener.pending = []
            for job in jobs {
                let accepts = listener.state == .active || (listener.spec.once && listener.state == .consumed)
                if accepts {
                    if let owner = listener.spec.owner, !isAlive(owner) {
                        retire(listener, .ownerGone)
                    } else {
                        entries.append(ran(listener.spec, event: job.event, sender: job.sender))
                    }
                }
                letGo(job.sender)
            }
        }
    }
}

/// Bounds shared by the model, the driver and the generator.
enum ModelLimits {
    /// Nested dispatches go this many levels deep at most (counting the top-level one).
    static let maximumDepth = 3
    /// Listeners registered from inside handlers take identifiers from here on, so that they
    /// never collide with the top-level ones the generator numbers.
    static let firstNestedListener = 1_000_000_000
}
