extension EventCenter {
    /// The message of the precondition that stops a coalesced posting-thread registration.
    static let coalescingNeedsContext =
        "coalescing needs a delivery context: pass on: .background, .queue(_:) or .operationQueue(_:), "
        + "on: .main or .mainOrdered with a @MainActor handler, or listen isolatedTo: an actor"

    /// Registers a coalesced listener whose handler runs in `delivery`'s context.
    func registerCoalesced<E: Event>(
        _ type: E.Type, eventKey: EventKey, owner: (any AnyObject & Sendable)?, key: ListenerKey?, sender: AnyObject?,
        priority: Priority, once: Bool, callSite: CallSite, delivery: Delivery.Kind, coalescing: Coalescing,
        receivingCurrent: Bool = false, run: @escaping @Sendable (AnyObject?, E, Sender?) throws -> Void
    ) -> Subscription {
        if case .postingThread = delivery { preconditionFailure(Self.coalescingNeedsContext) }
        let context = SerialCoalescedContext<E>(
            mailbox: makeMailbox(for: delivery), isMainActor: false, inlineOnMainThread: false, run: run)
        return registerCoalesced(
            type, eventKey: eventKey, owner: owner, key: key, sender: sender, priority: priority, once: once,
            callSite: callSite, coalescer: Coalescer(mode: coalescing.mode, context: context),
            context: ListenerContext(delivery), receivingCurrent: receivingCurrent)
    }

    /// Registers a coalesced main-actor listener.
    func registerCoalescedOnMainActor<E: Event>(
        _ type: E.Type, eventKey: EventKey, owner: (any AnyObject & Sendable)?, key: ListenerKey?, sender: AnyObject?,
        priority: Priority, once: Bool, callSite: CallSite, delivery: MainActorDelivery, coalescing: Coalescing,
        receivingCurrent: Bool = false, run: @escaping @Sendable (AnyObject?, E, Sender?) throws -> Void
    ) -> Subscription {
        let context = SerialCoalescedContext<E>(
            mailbox: makeMainMailbox(), isMainActor: true, inlineOnMainThread: delivery == .main, run: run)
        return registerCoalesced(
            type, eventKey: eventKey, owner: owner, key: key, sender: sender, priority: priority, once: once,
            callSite: callSite, coalescer: Coalescer(mode: coalescing.mode, context: context),
            context: .mainActor(delivery), receivingCurrent: receivingCurrent)
    }

    /// Registers a coalesced listener isolated to `actor`.
    func registerCoalesced<E: Event, A: Actor>(
        _ type: E.Type, eventKey: EventKey, actor: A, key: ListenerKey?, sender: AnyObject?, priority: Priority,
        once: Bool, callSite: CallSite, coalescing: Coalescing, receivingCurrent: Bool = false,
        handler: @escaping @Sendable (isolated A, E, Sender?) throws -> Void
    ) -> Subscription {
        let context = ActorCoalescedContext<E, A>(handler: handler)
        return registerCoalesced(
            type, eventKey: eventKey, owner: actor, key: key, sender: sender, priority: priority, once: once,
            callSite: callSite, coalescer: Coalescer(mode: coalescing.mode, context: context),
            context: .actor(TypeIdentity(A.self)), receivingCurrent: receivingCurrent)
    }

    /// Creates the record of a coalesced listener and puts it in the registry, or returns the
    /// live duplicate (rule 3), as `register` does for every other routed listener.
    private func registerCoalesced<E: Event>(
        _ type: E.Type, eventKey: EventKey, owner: (any AnyObject & Sendable)?, key: ListenerKey?, sender: AnyObject?,
        priority: Priority, once: Bool, callSite: CallSite, coalescer: Coalescer<E>, context: ListenerContext,
        receivingCurrent: Bool
    ) -> Subscription {
        let isTyped = eventKey == EventKey(E.self)
        let details = ListenerDetails.make(
            eventKey: isTyped ? nil : eventKey, sequence: isTyped ? 0 : nextSequence(), priority: priority, key: key,
            owner: owner, sender: sender)
        return register(
            CoalescedRecord<E>(
                registry: registry, once: once, callSite: callSite, details: details, coalescer: coalescer,
                context: context),
            receivingCurrent: receivingCurrent)
    }
}
