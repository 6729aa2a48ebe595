extension EventCenter {
    /// Calls a `@MainActor` handler with every event dispatched under `name`.
    ///
    /// ```swift
    /// let subscription = center.listen(to: .rectangleCreated, on: .main) { event in
    ///     canvas.addRectangle(for: event)   // main-actor state, checked by the compiler
    /// }
    /// ```
    ///
    /// Scheduling as described by ``MainActorDelivery``; `coalescing:` merges bursts into fewer
    /// deliveries (see ``Coalescing``). Otherwise the rules of `listen(to: name) { event in }`.
    public func listen(
        to name: EventName,
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
        let options = ListenerOptions(
            sender: sender, priority: priority, once: once, callSite: CallSite(fileID: file, line: line),
            receivingCurrent: receivingCurrent, coalescing: coalescing)
        return registerEvents(
            NamedEvent.self, eventKey: .name(name.rawValue), options: options, place: .mainActor(delivery)
        ) { _, event, _ in
            try MainActor.assumeIsolated { try handler(event) }
        }
    }

    /// Calls a `@MainActor` handler with every event dispatched under `name` for as long as
    /// `owner` (typically a main-actor view controller) lives.
    ///
    /// ```swift
    /// center.listen(to: .colorChanged, owner: self, on: .main) { controller, event in
    ///     controller.view.backgroundColor = try event[.color]
    /// }
    /// ```
    ///
    /// With a `key`, a repeated registration with the same owner, key, name and sender is
    /// ignored and returns the existing subscription (see the posting-thread owner-bound form);
    /// remove it with `remove(owner, key:, for: name)`.
    @discardableResult
    public func listen<Owner: AnyObject & Sendable>(
        to name: EventName,
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
        let options = ListenerOptions(
            owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), receivingCurrent: receivingCurrent, coalescing: coalescing)
        return registerEvents(
            NamedEvent.self, eventKey: .name(name.rawValue), options: options, place: .mainActor(delivery)
        ) { owner, event, _ in
            let owner = Self.typedOwner(owner, as: Owner.self)
            try MainActor.assumeIsolated { try handler(owner, event) }
        }
    }
}

extension EventCenter {
    /// Calls `handler` isolated to `actor` with every event dispatched under `name`, for as long
    /// as the actor lives (held weakly, like an owner).
    ///
    /// ```swift
    /// actor AuditLog {
    ///     var lines: [String] = []
    ///     func start(_ center: EventCenter) {
    ///         center.listen(to: "user.signedIn", isolatedTo: self) { log, event in
    ///             log.lines.append(event.name.rawValue)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Events reach the handler one at a time, in dispatch order; `coalescing:` merges bursts
    /// into fewer deliveries (see ``Coalescing``). With a `key`, a repeated registration with the
    /// same actor, key, name and sender is ignored; remove it with `remove(actor, key:, for: name)`.
    @discardableResult
    public func listen<A: Actor>(
        to name: EventName,
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
        let options = ListenerOptions(
            key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), receivingCurrent: receivingCurrent, coalescing: coalescing)
        return registerEvents(NamedEvent.self, eventKey: .name(name.rawValue), actor: actor, options: options) {
            actor, event, _ in try handler(actor, event)
        }
    }

    /// The events dispatched under `name` as an `AsyncSequence`, with the rules of
    /// ``events(of:from:bufferingPolicy:receivingCurrent:file:line:)``.
    ///
    /// ```swift
    /// for await event in center.events(named: "download.progress", bufferingPolicy: .dropOldest(capacity: 1)) {
    ///     print(try event.data(as: Double.self))
    /// }
    /// ```
    public func events(
        named name: EventName,
        from sender: AnyObject? = nil,
        bufferingPolicy: EventBufferingPolicy = .unbounded,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> EventStream<NamedEvent> {
        makeStream(
            of: NamedEvent.self, eventKey: .name(name.rawValue), sender: sender, bufferingPolicy: bufferingPolicy,
            receivingCurrent: receivingCurrent, callSite: CallSite(fileID: file, line: line))
    }
}
