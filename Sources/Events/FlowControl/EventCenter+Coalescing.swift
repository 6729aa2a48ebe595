extension EventCenter {
    /// The message of the precondition that stops a coalesced posting-thread registration.
    static let coalescingNeedsContext =
        "coalescing needs a delivery context: pass on: .background, .queue(_:) or .operationQueue(_:), "
        + "on: .main or .mainOrdered with a @MainActor handler, or listen isolatedTo: an actor"

    /// Registers a coalesced listener whose handler runs in `delivery`'s context.
    func registerCoalesced<E: Sendable>(
        _ type: E.Type, eventKey: EventKey, options: ListenerOptions, delivery: Delivery.Kind, coalescing: Coalescing,
        run: @escaping @Sendable (AnyObject?, E, Sender?) throws -> Void
    ) -> Subscription {
        if case .postingThread = delivery { preconditionFailure(Self.coalescingNeedsContext) }
        let context = SerialCoalescedContext<E>(
            mailbox: makeMailbox(for: delivery), isMainActor: false, inlineOnMainThread: false, run: run)
        return registerCoalesced(
            type, eventKey: eventKey, options: options, coalescer: Coalescer(mode: coalescing.mode, context: context),
            context: ListenerContext(delivery))
    }

    func registerCoalescedOnMainActor<E: Sendable>(
        _ type: E.Type, eventKey: EventKey, options: ListenerOptions, delivery: MainActorDelivery,
        coalescing: Coalescing, run: @escaping @Sendable (AnyObject?, E, Sender?) throws -> Void
    ) -> Subscription {
        let context = SerialCoalescedContext<E>(
            mailbox: makeMainMailbox(), isMainActor: true, inlineOnMainThread: delivery == .main, run: run)
        return registerCoalesced(
            type, eventKey: eventKey, options: options, coalescer: Coalescer(mode: coalescing.mode, context: context),
            context: .mainActor(delivery))
    }

    func registerCoalesced<E: Sendable, A: Actor>(
        _ type: E.Type, eventKey: EventKey, actor: A, options: ListenerOptions, coalescing: Coalescing,
        handler: @escaping @Sendable (isolated A, E, Sender?) throws -> Void
    ) -> Subscription {
        let context = ActorCoalescedContext<E, A>(handler: handler)
        return registerCoalesced(
            type, eventKey: eventKey, options: options, coalescer: Coalescer(mode: coalescing.mode, context: context),
            context: .actor(TypeIdentity(A.self)))
    }

    private func registerCoalesced<E: Sendable>(
        _ type: E.Type, eventKey: EventKey, options: ListenerOptions, coalescer: Coalescer<E>,
        context: ListenerContext
    ) -> Subscription {
        register(
            CoalescedRecord<E>(
                registry: registry, once: options.once, callSite: options.callSite,
                details: details(of: type, eventKey: eventKey, options: options), coalescer: coalescer,
                context: context),
            receivingCurrent: options.receivingCurrent)
    }
}
