extension EventCenter {
    // MARK: Main-actor listeners

    /// Calls a `@MainActor` handler with every event of type `E`.
    ///
    /// The compiler knows the handler is main-actor isolated, so it can update UI state directly,
    /// whatever thread dispatches:
    ///
    /// ```swift
    /// @MainActor final class StatusLabel {
    ///     var text = ""
    /// }
    /// let label = StatusLabel()
    /// let subscription = center.listen(to: DownloadFinished.self, on: .main) { finished in
    ///     label.text = "Downloaded \(finished.name)"
    /// }
    /// ```
    ///
    /// See ``MainActorDelivery`` for when the handler runs inline and when it is enqueued. Events
    /// reach the listener in dispatch order (per-listener FIFO); a listener cancelled before an
    /// event's turn comes skips it. Otherwise the same rules and parameters as
    /// the posting-thread closure form `listen(to:) { event in }`.
    public func listen<E: Event>(
        to type: E.Type,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (E) throws -> Void
    ) -> Subscription {
        registerOnMainActor(
            type, owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery, receivingCurrent: receivingCurrent
        ) { _, event, _ in
            try MainActor.assumeIsolated { try handler(event) }
        }
    }

    /// The main-actor closure form whose handler also receives the ``Sender``.
    public func listen<E: Event>(
        to type: E.Type,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (E, Sender?) throws -> Void
    ) -> Subscription {
        registerOnMainActor(
            type, owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery, receivingCurrent: receivingCurrent
        ) { _, event, sender in
            try MainActor.assumeIsolated { try handler(event, sender) }
        }
    }

    /// Calls a `@MainActor` handler with every event of type `E` for as long as `owner` lives.
    ///
    /// Made for view controllers and view models: a `@MainActor` class can be the owner, and the
    /// handler receives it isolated, with no capture and no warning:
    ///
    /// ```swift
    /// @MainActor final class FeedViewController {
    ///     var titles: [String] = []
    ///     func viewDidLoad(center: EventCenter) {
    ///         center.listen(to: PostWritten.self, owner: self, on: .main) { controller, post in
    ///             controller.titles.append(post.title)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// An owner that is gone when an event's turn comes is skipped, even if it was alive when the
    /// event was dispatched. With a `key`, a repeated registration with the same owner, key,
    /// event type and sender is ignored (see the posting-thread owner-bound form).
    @discardableResult
    public func listen<E: Event, Owner: AnyObject & Sendable>(
        to type: E.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (Owner, E) throws -> Void
    ) -> Subscription {
        registerOnMainActor(
            type, owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery, receivingCurrent: receivingCurrent,
            handler: handler)
    }

    /// Registers an owner-bound main-actor listener. A function of its own, generic over the
    /// event and the owner alone, so that the wrapper closure it builds, called on every
    /// delivery, does not carry the generic context of the caller's key.
    private func registerOnMainActor<E: Event, Owner: AnyObject & Sendable>(
        _ type: E.Type, owner: Owner, key: ListenerKey?, sender: AnyObject?, priority: Priority, once: Bool,
        callSite: CallSite, delivery: MainActorDelivery, receivingCurrent: Bool,
        handler: @escaping @MainActor @Sendable (Owner, E) throws -> Void
    ) -> Subscription {
        registerOnMainActor(
            type, owner: owner, key: key, sender: sender, priority: priority, once: once, callSite: callSite,
            delivery: delivery, receivingCurrent: receivingCurrent
        ) { owner, event, _ in
            // Unchecked: a checked cast is a runtime call that weighs on a main-actor delivery
            // made inline on the main thread. Safe because the owner handed here is the one
            // loaded from the listener's own record (inline, or when a queued delivery's turn
            // comes), which holds the `Owner` given at registration, and it is handed on only
            // when it is not nil.
            let owner = unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self)
            try MainActor.assumeIsolated { try handler(owner, event) }
        }
    }

    func registerOnMainActor<E: Event>(
        _ type: E.Type, eventKey: EventKey = EventKey(E.self), owner: (any AnyObject & Sendable)?, key: ListenerKey?,
        sender: AnyObject?,
        priority: Priority, once: Bool, callSite: CallSite, delivery: MainActorDelivery, receivingCurrent: Bool = false,
        run: @escaping @Sendable (AnyObject?, E, Sender?) throws -> Void
    ) -> Subscription {
        let route = SerialRoute(mailbox: makeMainMailbox(), inlineOnMainThread: delivery == .main, run: run)
        return register(
            type, eventKey: eventKey, owner: owner, key: key, sender: sender, priority: priority, once: once,
            callSite: callSite, handler: nil, route: route, context: .mainActor(delivery),
            receivingCurrent: receivingCurrent)
    }

    // MARK: Actor listeners

    /// Calls `handler` isolated to `actor` with every event of type `E`, for as long as the
    /// actor lives.
    ///
    /// The handler's first parameter is the actor, `isolated`, so it reads and writes the
    /// actor's state synchronously, checked by the compiler:
    ///
    /// ```swift
    /// actor Inventory {
    ///     var stock: [String: Int] = [:]
    ///     func start(_ center: EventCenter) {
    ///         center.listen(to: ItemSold.self, isolatedTo: self) { inventory, sale in
    ///             inventory.stock[sale.sku, default: 0] -= 1
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// The actor is held weakly, like an owner: the listener ends when it deinitializes, and an
    /// event whose turn comes after that is skipped. Events reach the handler one at a time in
    /// dispatch order (per-listener FIFO), even though each call is an actor hop. With a `key`,
    /// a repeated registration with the same actor, key, event type and sender is ignored;
    /// remove it with `remove(actor, key:)`.
    @discardableResult
    public func listen<E: Event, A: Actor>(
        to type: E.Type,
        isolatedTo actor: A,
        key: some Hashable & Sendable = Never?.none,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (isolated A, E) throws -> Void
    ) -> Subscription {
        register(
            type, owner: actor, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), handler: nil,
            route: ActorRoute<E, A> { actor, event, _ in try handler(actor, event) }, receivingCurrent: receivingCurrent
        )
    }
}
