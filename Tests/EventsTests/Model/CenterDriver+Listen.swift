import Events

// The driver's `listen`: one call per shape of registration the model knows, each through the
// public overload a user would write, with a handler that records what it was handed.

extension CenterDriver {
    func register(_ spec: ModelListenerSpec, owner: AnyObject?, sender: AnyObject?) -> Subscription {
        switch spec.target {
        case .a: registerTyped(ModelEventA.self, spec, owner: owner, sender: sender)
        case .b: registerTyped(ModelEventB.self, spec, owner: owner, sender: sender)
        case .name0, .name1, .allNames: registerNamed(spec, owner: owner, sender: sender)
        }
    }

    func delivery(for context: ModelContext) -> Delivery {
        switch context {
        case .posting: .postingThread
        case .serialQueue: .queue(serialQueue)
        case .concurrentQueue: .queue(concurrentQueue)
        case .operationQueue: .operationQueue(operationQueue)
        case .background: .background
        case .actor, .main, .mainOrdered: preconditionFailure("\(context) is not a Delivery")
        }
    }

    private func registerTyped<E: ModelEvent>(
        _ type: E.Type, _ spec: ModelListenerSpec, owner: AnyObject?, sender: AnyObject?
    ) -> Subscription {
        let id = spec.id
        let sink = sink
        let priority = Priority(spec.priority)
        let once = spec.once
        switch spec.context {
        case .actor:
            let actor = owner as! ModelActor
            let handler: @Sendable (isolated ModelActor, E) throws -> Void = { actor, event in
                sink.record(.ran(listener: id, event: event.id, sender: -1, owner: actor.tag))
            }
            if let key = spec.key {
                return center.listen(
                    to: type, isolatedTo: actor, key: key, from: sender, priority: priority, once: once, handler)
            }
            return center.listen(to: type, isolatedTo: actor, from: sender, priority: priority, once: once, handler)
        case .main, .mainOrdered:
            let delivery: MainActorDelivery = spec.context == .main ? .main : .mainOrdered
            if let owner = owner as? ModelObject {
                let handler: @MainActor @Sendable (ModelObject, E) throws -> Void = { owner, event in
                    sink.record(.ran(listener: id, event: event.id, sender: -1, owner: owner.tag))
                }
                if let key = spec.key {
                    return center.listen(
                        to: type, owner: owner, key: key, on: delivery, from: sender, priority: priority, once: once,
                        handler)
                }
                return center.listen(
                    to: type, owner: owner, on: delivery, from: sender, priority: priority, once: once, handler)
            }
            if spec.takesSender {
                let handler: @MainActor @Sendable (Sent<E>) throws -> Void = { sent in
                    sink.record(.ran(listener: id, event: sent.event.id, sender: modelTag(of: sent.sender), owner: 0))
                }
                return center.listen(
                    to: Sent<E>.self, on: delivery, from: sender, priority: priority, once: once, handler)
            }
            let handler: @MainActor @Sendable (E) throws -> Void = { event in
                sink.record(.ran(listener: id, event: event.id, sender: -1, owner: 0))
            }
            return center.listen(to: type, on: delivery, from: sender, priority: priority, once: once, handler)
        default:
            let delivery = delivery(for: spec.context)
            // A posting-thread handler reports to the driver, which may act (rule 6); a queued
            // one, on another thread, only records.
            let posting = spec.context == .posting
            let action = spec.action
            if let owner = owner as? ModelObject {
                if spec.takesSender {
                    let handler: @Sendable (ModelObject, Sent<E>) throws -> Void =
                        posting
                        ? { @Sendable [weak self] owner, sent in
                            self?.postingRan(
                                listener: id, event: sent.event.id, sender: modelTag(of: sent.sender),
                                owner: owner.tag, action: action)
                        }
                        : { @Sendable owner, sent in
                            sink.record(
                                .ran(
                                    listener: id, event: sent.event.id, sender: modelTag(of: sent.sender),
                                    owner: owner.tag))
                        }
                    if let key = spec.key {
                        return center.listen(
                            to: Sent<E>.self, owner: owner, key: key, on: delivery, from: sender, priority: priority,
                            once: once, handler)
                    }
                    return center.listen(
                        to: Sent<E>.self, owner: owner, on: delivery, from: sender, priority: priority, once: once,
                        handler)
                }
                let handler: @Sendable (ModelObject, E) throws -> Void =
                    posting
                    ? { @Sendable [weak self] owner, event in
                        self?.postingRan(listener: id, event: event.id, sender: -1, owner: owner.tag, action: action)
                    }
                    : { @Sendable owner, event in
                        sink.record(.ran(listener: id, event: event.id, sender: -1, owner: owner.tag))
                    }
                if let key = spec.key {
                    return center.listen(
                        to: type, owner: owner, key: key, on: delivery, from: sender, priority: priority, once: once,
                        handler)
                }
                return center.listen(
                    to: type, owner: owner, on: delivery, from: sender, priority: priority, once: once, handler)
            }
            if spec.takesSender {
                let handler: @Sendable (Sent<E>) throws -> Void =
                    posting
                    ? { @Sendable [weak self] sent in
                        self?.postingRan(
                            listener: id, event: sent.event.id, sender: modelTag(of: sent.sender), owner: 0,
                            action: action)
                    }
                    : { @Sendable sent in
                        sink.record(
                            .ran(listener: id, event: sent.event.id, sender: modelTag(of: sent.sender), owner: 0))
                    }
                return center.listen(
                    to: Sent<E>.self, on: delivery, from: sender, priority: priority, once: once, handler)
            }
            let handler: @Sendable (E) throws -> Void =
                posting
                ? { @Sendable [weak self] event in
                    self?.postingRan(listener: id, event: event.id, sender: -1, owner: 0, action: action)
                }
                : { @Sendable event in sink.record(.ran(listener: id, event: event.id, sender: -1, owner: 0)) }
            return center.listen(to: type, on: delivery, from: sender, priority: priority, once: once, handler)
        }
    }

    private func registerNamed(_ spec: ModelListenerSpec, owner: AnyObject?, sender: AnyObject?) -> Subscription {
        let id = spec.id
        let sink = sink
        let priority = Priority(spec.priority)
        let once = spec.once
        let entry: @Sendable (NamedEvent, _ owner: Int) -> ModelEntry = { event, owner in
            .ran(
                listener: id, event: (try? event.data(as: Int.self)) ?? -1, sender: modelTag(of: event.sender),
                owner: owner)
        }
        switch spec.context {
        case .actor:
            let name = spec.target.eventName
            return center.listen(
                to: name, isolatedTo: owner as! ModelActor, from: sender, priority: priority, once: once
            ) { actor, event in sink.record(entry(event, actor.tag)) }
        case .main, .mainOrdered:
            let name = spec.target.eventName
            let delivery: MainActorDelivery = spec.context == .main ? .main : .mainOrdered
            if let owner = owner as? ModelObject {
                return center.listen(to: name, owner: owner, on: delivery, from: sender, priority: priority, once: once)
                {
                    @MainActor owner, event in sink.record(entry(event, owner.tag))
                }
            }
            return center.listen(to: name, on: delivery, from: sender, priority: priority, once: once) {
                @MainActor event in sink.record(entry(event, 0))
            }
        default:
            let delivery = delivery(for: spec.context)
            let posting = spec.context == .posting
            let action = spec.action
            if let owner = owner as? ModelObject {
                let handler: @Sendable (ModelObject, NamedEvent) throws -> Void =
                    posting
                    ? { @Sendable [weak self] owner, event in
                        guard case .ran(let listener, let event, let sender, let owner) = entry(event, owner.tag)
                        else { return }
                        self?.postingRan(listener: listener, event: event, sender: sender, owner: owner, action: action)
                    }
                    : { @Sendable owner, event in sink.record(entry(event, owner.tag)) }
                switch (spec.target, spec.key) {
                case (.allNames, let key?):
                    return center.listen(
                        to: NamedEvent.self,
                        owner: owner, key: key, on: delivery, from: sender, priority: priority, once: once, handler)
                case (.allNames, nil):
                    return center.listen(
                        to: NamedEvent.self,
                        owner: owner, on: delivery, from: sender, priority: priority, once: once, handler)
                case (let name, let key?):
                    return center.listen(
                        to: name.eventName, owner: owner, key: key, on: delivery, from: sender, priority: priority,
                        once: once, handler)
                case (let name, nil):
                    return center.listen(
                        to: name.eventName, owner: owner, on: delivery, from: sender, priority: priority, once: once,
                        handler)
                }
            }
            let handler: @Sendable (NamedEvent) throws -> Void =
                posting
                ? { @Sendable [weak self] event in
                    guard case .ran(let listener, let event, let sender, _) = entry(event, 0) else { return }
                    self?.postingRan(listener: listener, event: event, sender: sender, owner: 0, action: action)
                }
                : { @Sendable event in sink.record(entry(event, 0)) }
            if spec.target == .allNames {
                return center.listen(
                    to: NamedEvent.self, on: delivery, from: sender, priority: priority, once: once, handler)
            }
            return center.listen(
                to: spec.target.eventName, on: delivery, from: sender, priority: priority, once: once, handler)
        }
    }
}
