/// A small, fast, seedable generator (xoshiro256**, seeded through SplitMix64), with choices
/// written here rather than through the standard library's `random(in:using:)`, so that a seed
/// names the same run on every toolchain.
struct ModelRandom {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init(seed: UInt64) {
        var mixer = seed
        func splitMix() -> UInt64 {
            mixer &+= 0x9E37_79B9_7F4A_7C15
            var z = mixer
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    mutating func next() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = state.3 << 45 | state.3 >> 19
        return result
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next() % UInt64(bound))
    }

    /// True `percent` times in a hundred.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    /// An element of `choices`, or nil when there is none.
    mutating func pickIfAny<T>(_ choices: [T]) -> T? { choices.isEmpty ? nil : pick(choices) }
}

/// Chooses the next operation from the model's state alone (never from the real center), so
/// that a seed and an operation count always produce the same run.
struct ModelGenerator {
    var random: ModelRandom
    /// The contexts listeners may be registered in, posting thread first.
    let contexts: [ModelContext]
    private var nextTag = 1
    private var nextListener = 1

    init(seed: UInt64, contexts: [ModelContext]) {
        random = ModelRandom(seed: seed)
        self.contexts = contexts
    }

    private var executors: [ModelExecutor] {
        var executors: [ModelExecutor] = []
        for context in contexts {
            if let executor = context.executor, !executors.contains(executor) { executors.append(executor) }
        }
        return executors
    }

    private var usesActors: Bool { contexts.contains(.actor) }

    mutating func next(for model: ReferenceModel) -> ModelOperation {
        for kind in [ModelObjectKind.owner, .sender] + (usesActors ? [.actor] : [])
        where model.heldTags(of: kind).count < 2 {
            return create(kind)
        }
        // The population stays between a few and a few dozen live listeners: enough for orders
        // and removals to matter, few enough that every step stays cheap.
        let population = model.activeListenerCount
        let crowded = population > 16
        let weights: [(Int, Int)] = [
            (0, 34), (1, population < 5 ? 40 : crowded ? 2 : 18), (2, crowded ? 20 : 8), (3, 3),
            (4, crowded ? 14 : 8), (5, crowded ? 8 : 3), (6, 10), (7, 2),
        ]
        var roll = random.below(weights.reduce(0) { $0 + $1.1 })
        var choice = 0
        for (kind, weight) in weights {
            if roll < weight {
                choice = kind
                break
            }
            roll -= weight
        }
        switch choice {
        case 0 where contexts.contains(.main) && random.chance(20):
            return .dispatchFromAnotherThread(random.pick(ModelTarget.dispatchable), sender: dispatchSender(model))
        case 0:
            return .dispatch(random.pick(ModelTarget.dispatchable), sender: dispatchSender(model))
        case 1:
            return .listen(listenerSpec(model, id: takeListenerID(), mayAct: true))
        case 2:
            return .cancel(listener: someListener(model))
        case 3:
            return .drop(listener: someListener(model))
        case 4:
            return .remove(removal(model))
        case 5:
            return release(model) ?? .dispatch(.a, sender: nil)
        case 6 where executors.isEmpty:
            return .dispatch(random.pick(ModelTarget.dispatchable), sender: dispatchSender(model))
        case 6:
            let busy = executors.filter { model.hasPending(on: $0) }
            return .drain(random.chance(85) ? random.pickIfAny(busy) ?? random.pick(executors) : random.pick(executors))
        default:
            let kind = random.pick([.owner, .sender] + (usesActors ? [ModelObjectKind.actor] : []))
            return model.heldTags(of: kind).count < 4 ? create(kind) : .dispatch(.b, sender: nil)
        }
    }

    private mutating func create(_ kind: ModelObjectKind) -> ModelOperation {
        defer { nextTag += 1 }
        return .create(tag: nextTag, kind: kind)
    }

    private mutating func takeListenerID() -> Int {
        defer { nextListener += 1 }
        return nextListener
    }

    private mutating func dispatchSender(_ model: ReferenceModel) -> Int? {
        random.chance(45) ? random.pickIfAny(model.heldTags(of: .sender)) : nil
    }

    private mutating func someListener(_ model: ReferenceModel) -> Int {
        random.pickIfAny(model.registered)?.spec.id ?? 0
    }

    /// Releases an object the driver holds. An actor is released only with nothing queued for
    /// it: a delivery waiting for an actor keeps it alive (it needs the actor to run on), which
    /// the documentation leaves to the implementation.
    private mutating func release(_ model: ReferenceModel) -> ModelOperation? {
        var tags = model.heldTags(of: .owner) + model.heldTags(of: .sender)
        tags += model.heldTags(of: .actor).filter { !model.hasPending(for: $0) }
        return random.pickIfAny(tags).map { .release(tag: $0) }
    }

    private mutating func removal(_ model: ReferenceModel) -> ModelRemoval {
        // Usually the owner of a listener, so that removals find something to end.
        let owners = model.registered.compactMap(\.spec.owner)
        let candidates = model.heldTags(of: .owner) + model.heldTags(of: .actor)
        let owner =
            random.chance(75)
            ? random.pickIfAny(owners) ?? random.pickIfAny(candidates) ?? 1
            : random.pickIfAny(candidates) ?? 1
        let key = random.below(3)
        let kind: ModelRemoval.Kind
        switch random.below(6) {
        case 0: kind = .all
        case 1: kind = .target(random.pick(ModelTarget.dispatchable))
        case 2: kind = .key(key)
        case 3: kind = .keyAndTarget(key, random.pick(ModelTarget.dispatchable))
        case 4: kind = .allNames
        default: kind = .allNamesKey(key)
        }
        return ModelRemoval(owner: owner, kind: kind)
    }

    /// A registration of one of the shapes the public API offers.
    mutating func listenerSpec(_ model: ReferenceModel, id: Int, mayAct: Bool) -> ModelListenerSpec {
        if random.chance(12), let duplicate = duplicateOfKeyed(model, id: id, mayAct: mayAct) { return duplicate }
        var context = random.chance(50) ? .posting : random.pick(contexts)
        let actors = model.heldTags(of: .actor)
        if context == .actor && actors.isEmpty { context = .posting }
        let owners = model.heldTags(of: .owner)
        var spec = ModelListenerSpec(
            id: id, target: .a, context: context, owner: nil, key: nil, sender: nil,
            priority: random.pick([-5, 0, 0, 0, 1, 5]), once: random.chance(20), takesSender: false, action: .none)
        switch context {
        case .actor:
            spec.target = random.pick(ModelTarget.dispatchable)
            spec.owner = random.pick(actors)
            if spec.target.isTyped && random.chance(45) { spec.key = random.below(3) }
        case .main, .mainOrdered:
            spec.target = random.pick(ModelTarget.dispatchable)
            if random.chance(45) { spec.owner = random.pickIfAny(owners) }
            if spec.owner != nil && spec.target.isTyped && random.chance(45) { spec.key = random.below(3) }
            spec.takesSender = spec.owner == nil && spec.target.isTyped && random.chance(40)
        default:
            spec.target = random.pick(ModelTarget.allCases)
            if random.chance(45) { spec.owner = random.pickIfAny(owners) }
            if spec.owner != nil && random.chance(45) { spec.key = random.below(3) }
            spec.takesSender = spec.target.isTyped && random.chance(40)
        }
        if random.chance(25) { spec.sender = random.pickIfAny(model.heldTags(of: .sender)) }
        if mayAct && context == .posting && random.chance(35) { spec.action = action(model, self: id, once: spec.once) }
        return spec
    }

    /// A registration with the identity (owner, key, target, sender) of a keyed one, live or
    /// not, in a context that shape allows; priority, once and handler may differ.
    private mutating func duplicateOfKeyed(_ model: ReferenceModel, id: Int, mayAct: Bool) -> ModelListenerSpec? {
        guard var spec = random.pickIfAny(model.registered.filter { $0.spec.key != nil })?.spec else { return nil }
        spec.id = id
        spec.priority = random.pick([-5, 0, 0, 1, 5])
        spec.once = random.chance(20)
        spec.action = .none
        if spec.context != .actor {
            var allowed = contexts.filter { $0 != .actor }
            if !spec.target.isTyped { allowed = allowed.filter { $0 != .main && $0 != .mainOrdered } }
            spec.context = random.pick(allowed)
            spec.takesSender =
                spec.target.isTyped && spec.context != .main && spec.context != .mainOrdered && random.chance(40)
        }
        if mayAct && spec.context == .posting && random.chance(35) {
            spec.action = action(model, self: id, once: spec.once)
        }
        return spec
    }

    /// What a listener's handler does besides recording. `once`: whether that listener is a
    /// `once` listener, which acts at most once.
    private mutating func action(_ model: ReferenceModel, self id: Int, once: Bool) -> ModelAction {
        switch random.below(20) {
        case 0..<8:
            return .dispatch(random.pick(ModelTarget.dispatchable), sender: dispatchSender(model))
        case 8..<11:
            return .cancel(listener: random.chance(30) ? id : someListener(model))
        case 11:
            return .drop(listener: random.chance(30) ? id : someListener(model))
        case 12..<15:
            return .remove(removal(model))
        case 15..<18:
            var template = listenerSpec(model, id: 0, mayAct: false)
            template.action = .none
            // A permanent listener registers on every event it gets: what it registers ends
            // after one event, or some seeds grow the population without bound (a run that
            // never ends). Its random draws are the same either way.
            if !once { template.once = true }
            return .listen(template)
        default:
            let tags = model.heldTags(of: .owner) + model.heldTags(of: .sender)
            return random.pickIfAny(tags).map { .kill(tag: $0) } ?? .none
        }
    }
}
