extension EventCenter {
    // MARK: Main-actor listeners

    /// Calls a `@MainActor` handler with every event that a `type` is (as for `listen(to:)`: an
    /// event type, a family, ``NamedEvent`` or ``Sent``).
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
    /// event's turn comes skips it. Pass `coalescing:` to merge bursts into fewer deliveries (see
    /// ``Coalescing``; with ``Coalescing/mainActorTurn`` the handler is always enqueued, even
    /// with `.main`). Otherwise the same rules and parameters as the posting-thread closure form
    /// `listen(to:) { event in }`.
    public func listen<E: Sendable>(
        to type: E.Type,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (E) throws -> Void
    ) -> Subscription {
        let options = ListenerOptions(
            sender: sender, priority: priority, once: once, callSite: CallSite(fileID: file, line: line),
            receivingCurrent: receivingCurrent, coalescing: coalescing)
        return register(hearing: type, options: options, place: .mainActor(delivery)) { _, event, _ in
            try MainActor.assumeIsolated { try handler(event) }
        }
    }

    /// Calls a `@MainActor` handler with every event that a `type` is, for as long as `owner` lives.
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
    public func listen<E: Sendable, Owner: AnyObject & Sendable>(
        to type: E.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (Owner, E) throws -> Void
    ) -> Subscription {
        let options = ListenerOptions(
            owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), receivingCurrent: receivingCurrent, coalescing: coalescing)
        return register(hearing: type, options: options, place: .mainActor(delivery)) { owner, event, _ in
            let owner = Self.typedOwner(owner, as: Owner.self)
            try MainActor.assumeIsolated { try handler(owner, event) }
        }
    }

    // MARK: Actor listeners

    /// Calls `handler` isolated to `actor` with every event that a `type` is, for as long as the
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
    /// remove it with `remove(actor, key:)`. Pass `coalescing:` to merge bursts into fewer
    /// deliveries (see ``Coalescing``).
    @discardableResult
    public func listen<E: Sendable, A: Actor>(
        to type: E.Type,
        isolatedTo actor: A,
        key: some Hashable & Sendable = Never?.none,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (isolated A, E) throws -> Void
    ) -> Subscription {
        let options = ListenerOptions(
            key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), receivingCurrent: receivingCurrent, coalescing: coalescing)
        return register(hearing: type, actor: actor, options: options) { actor, event, _ in try handler(actor, event) }
    }
}
