// `listenToAllNames` in the contexts that `listen(to: name)` has beyond a `Delivery`: the main
// actor (closure and owner-bound) and an actor. The records live in the list of `.anyName`, so
// these listeners take part in the merged order of every named dispatch like the others.

extension EventCenter {
    /// Calls a `@MainActor` handler with every named event, whatever its name: a main-actor log
    /// view or a debugging overlay.
    ///
    /// ```swift
    /// @MainActor final class EventConsole {
    ///     var lines: [String] = []
    /// }
    /// let console = EventConsole()
    /// let logging = center.listenToAllNames(on: .main) { event in
    ///     console.lines.append(event.name.rawValue)
    /// }
    /// ```
    ///
    /// Scheduling as described by ``MainActorDelivery``; otherwise the rules of
    /// `listenToAllNames { event in }`: it hears named events only, merged with the listeners of
    /// each name into one order, and a `once` listener hears one event in total.
    public func listenToAllNames(
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (NamedEvent) throws -> Void
    ) -> Subscription {
        registerOnMainActor(
            NamedEvent.self, eventKey: .anyName, owner: nil, key: nil, sender: sender, priority: priority,
            once: once, callSite: CallSite(fileID: file, line: line), delivery: delivery,
            receivingCurrent: receivingCurrent, coalescing: coalescing
        ) { _, event, _ in
            try MainActor.assumeIsolated { try handler(event) }
        }
    }

    /// Calls a `@MainActor` handler with every named event for as long as `owner` (typically a
    /// main-actor view or view model) lives.
    ///
    /// ```swift
    /// @MainActor final class EventConsoleController {
    ///     var lines: [String] = []
    ///     func viewDidLoad(center: EventCenter) {
    ///         center.listenToAllNames(owner: self, key: "console", on: .main) { controller, event in
    ///             controller.lines.append(event.name.rawValue)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// The owner is held weakly and handed to the handler isolated; an owner that is gone when
    /// an event's turn comes is skipped. With a `key`, a repeated registration with the same
    /// owner, key and sender is ignored and returns the existing subscription. End it early
    /// with ``removeListenersToAllNames(of:key:)``, ``removeListenersToAllNames(of:)`` or
    /// ``remove(_:)``.
    @discardableResult
    public func listenToAllNames<Owner: AnyObject & Sendable>(
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
        _ handler: @escaping @MainActor @Sendable (Owner, NamedEvent) throws -> Void
    ) -> Subscription {
        registerAllNamesOnMainActor(
            owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery, receivingCurrent: receivingCurrent,
            coalescing: coalescing, handler: handler)
    }

    /// Calls `handler` isolated to `actor` with every named event, for as long as the actor
    /// lives (held weakly, like an owner).
    ///
    /// ```swift
    /// actor EventArchive {
    ///     var names: [String] = []
    ///     func start(_ center: EventCenter) {
    ///         center.listenToAllNames(isolatedTo: self, key: "archive") { archive, event in
    ///             archive.names.append(event.name.rawValue)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Events reach the handler one at a time, in dispatch order. With a `key`, a repeated
    /// registration with the same actor, key and sender is ignored; remove it with
    /// ``removeListenersToAllNames(of:key:)``.
    @discardableResult
    public func listenToAllNames<A: Actor>(
        isolatedTo actor: A,
        key: some Hashable & Sendable = Never?.none,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (isolated A, NamedEvent) throws -> Void
    ) -> Subscription {
        if let coalescing {
            return registerCoalesced(
                NamedEvent.self, eventKey: .anyName, actor: actor, key: ListenerKey.given(key), sender: sender,
                priority: priority, once: once, callSite: CallSite(fileID: file, line: line), coalescing: coalescing,
                receivingCurrent: receivingCurrent
            ) { actor, event, _ in try handler(actor, event) }
        }
        return register(
            NamedEvent.self, eventKey: .anyName, owner: actor, key: ListenerKey.given(key), sender: sender,
            priority: priority, once: once, callSite: CallSite(fileID: file, line: line), handler: nil,
            route: ActorRoute<NamedEvent, A> { actor, event, _ in try handler(actor, event) },
            receivingCurrent: receivingCurrent)
    }

    /// Registers an owner-bound main-actor listener of every name. A function of its own,
    /// generic over the owner alone, so that the wrapper closure it builds, called on every
    /// delivery, does not carry the generic context of the caller's key.
    private func registerAllNamesOnMainActor<Owner: AnyObject & Sendable>(
        owner: Owner, key: ListenerKey?, sender: AnyObject?, priority: Priority, once: Bool, callSite: CallSite,
        delivery: MainActorDelivery, receivingCurrent: Bool, coalescing: Coalescing?,
        handler: @escaping @MainActor @Sendable (Owner, NamedEvent) throws -> Void
    ) -> Subscription {
        registerOnMainActor(
            NamedEvent.self, eventKey: .anyName, owner: owner, key: key, sender: sender, priority: priority,
            once: once, callSite: callSite, delivery: delivery, receivingCurrent: receivingCurrent,
            coalescing: coalescing
        ) { owner, event, _ in
            // Unchecked, as in the other owner-bound main-actor forms: the owner handed here is
            // the one loaded from this listener's own record, which holds the `Owner` given at
            // registration, and it is handed on only when it is not nil.
            let owner = unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self)
            try MainActor.assumeIsolated { try handler(owner, event) }
        }
    }
}
