extension EventCenter {
    // The forms below differ from the usual `listen` only in their handler's result. They are
    // disfavored so that a closure that could be read either way (one that ends in
    // `fatalError()`, say) keeps choosing the usual form, as it did before they existed; a
    // closure that returns a `Propagation` can only match these.

    // MARK: Typed listeners that may stop propagation

    /// Calls `handler` with every event of type `E` on the dispatching thread; the handler's
    /// ``Propagation`` says whether the listeners after it receive the event.
    ///
    /// ```swift
    /// let validator = center.listen(to: Checkout.self, priority: .high) { checkout in
    ///     checkout.total > 0 ? .continue : .stop
    /// }
    /// ```
    ///
    /// Give such a listener a higher ``Priority`` than the listeners it guards: it can only
    /// stop those after it. Rules: ``Propagation``; the other parameters and rules are those of
    /// `listen(to:on:from:priority:once:file:line:_:)`. There is no `on:` parameter: only a
    /// listener on the dispatching thread can decide before the next listener is reached.
    @_disfavoredOverload
    public func listen<E: Event>(
        to type: E.Type,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (E) throws -> Propagation
    ) -> Subscription {
        registerStopping(
            type, eventKey: EventKey(E.self), owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line)
        ) { _, event, _ in try handler(event) }
    }

    /// The form of `listen(to:from:priority:once:file:line:_:)` that may stop propagation and
    /// whose handler also receives the ``Sender``.
    @_disfavoredOverload
    public func listen<E: Event>(
        to type: E.Type,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (E, Sender?) throws -> Propagation
    ) -> Subscription {
        registerStopping(
            type, eventKey: EventKey(E.self), owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line)
        ) { _, event, sender in try handler(event, sender) }
    }

    /// An owner-bound listener on the dispatching thread whose handler may stop propagation.
    ///
    /// ```swift
    /// center.listen(to: Checkout.self, owner: validator, key: "limits", priority: .high) { validator, checkout in
    ///     validator.accepts(checkout) ? .continue : .stop
    /// }
    /// ```
    ///
    /// Owner and key rules are those of the usual owner-bound `listen`; propagation rules are
    /// ``Propagation``'s.
    @_disfavoredOverload @discardableResult
    public func listen<E: Event, Owner: AnyObject & Sendable>(
        to type: E.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, E) throws -> Propagation
    ) -> Subscription {
        registerStopping(
            type, eventKey: EventKey(E.self), owner: owner, key: ListenerKey.given(key), sender: sender,
            priority: priority, once: once, callSite: CallSite(fileID: file, line: line)
        ) { owner, event, _ in try handler(Self.typedOwner(owner, as: Owner.self), event) }
    }

    /// The owner-bound form that may stop propagation and whose handler also receives the
    /// ``Sender``.
    @_disfavoredOverload @discardableResult
    public func listen<E: Event, Owner: AnyObject & Sendable>(
        to type: E.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, E, Sender?) throws -> Propagation
    ) -> Subscription {
        registerStopping(
            type, eventKey: EventKey(E.self), owner: owner, key: ListenerKey.given(key), sender: sender,
            priority: priority, once: once, callSite: CallSite(fileID: file, line: line)
        ) { owner, event, sender in try handler(Self.typedOwner(owner, as: Owner.self), event, sender) }
    }

    // MARK: Named listeners that may stop propagation

    /// Calls `handler` with every event named `name` on the dispatching thread; the handler's
    /// ``Propagation`` says whether the listeners after it receive the event.
    ///
    /// ```swift
    /// let gate = center.listen(to: "checkout", priority: .high) { event in
    ///     try event.data(as: Int.self) == 0 ? .stop : .continue
    /// }
    /// ```
    ///
    /// Listeners of every name (`listenToAllNames`) are merged with the listeners of the name
    /// by priority, so a stop holds them back too when they come after it.
    @_disfavoredOverload
    public func listen(
        to name: EventName,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (NamedEvent) throws -> Propagation
    ) -> Subscription {
        registerStopping(
            NamedEvent.self, eventKey: .name(name.rawValue), owner: nil, key: nil, sender: sender,
            priority: priority, once: once, callSite: CallSite(fileID: file, line: line)
        ) { _, event, _ in try handler(event) }
    }

    /// An owner-bound listener of events named `name`, on the dispatching thread, whose
    /// handler may stop propagation.
    @_disfavoredOverload @discardableResult
    public func listen<Owner: AnyObject & Sendable>(
        to name: EventName,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, NamedEvent) throws -> Propagation
    ) -> Subscription {
        registerStopping(
            NamedEvent.self, eventKey: .name(name.rawValue), owner: owner, key: ListenerKey.given(key),
            sender: sender, priority: priority, once: once, callSite: CallSite(fileID: file, line: line)
        ) { owner, event, _ in try handler(Self.typedOwner(owner, as: Owner.self), event) }
    }

    /// A listener of every named event, on the dispatching thread, whose handler may stop
    /// propagation to the listeners after it (of that name and of every name).
    @_disfavoredOverload
    public func listenToAllNames(
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (NamedEvent) throws -> Propagation
    ) -> Subscription {
        registerStopping(
            NamedEvent.self, eventKey: .anyName, owner: nil, key: nil, sender: sender, priority: priority,
            once: once, callSite: CallSite(fileID: file, line: line)
        ) { _, event, _ in try handler(event) }
    }

    /// An owner-bound listener of every named event, on the dispatching thread, whose handler
    /// may stop propagation.
    @_disfavoredOverload @discardableResult
    public func listenToAllNames<Owner: AnyObject & Sendable>(
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, NamedEvent) throws -> Propagation
    ) -> Subscription {
        registerStopping(
            NamedEvent.self, eventKey: .anyName, owner: owner, key: ListenerKey.given(key), sender: sender,
            priority: priority, once: once, callSite: CallSite(fileID: file, line: line)
        ) { owner, event, _ in try handler(Self.typedOwner(owner, as: Owner.self), event) }
    }

    // MARK: Dispatching with a result

    /// Delivers `event` as ``dispatch(_:from:file:line:)`` does, and says whether a listener
    /// stopped its propagation, and which.
    ///
    /// ```swift
    /// let result = center.dispatchWithResult(Checkout(total: 0))
    /// if result.isStopped { showError() }
    /// ```
    @discardableResult
    public func dispatchWithResult<E: Event>(
        _ event: E, from sender: AnyObject? = nil, file: StaticString = #fileID, line: UInt = #line
    ) -> DispatchResult {
        let listeners = registry.snapshot(for: EventKey(E.self))
        if isObserved {
            let outcome = observedDispatch(
                event, to: listeners, from: sender, callSite: CallSite(fileID: file, line: line))
            return DispatchResult(received: outcome.delivered, stopper: outcome.stoppedBy)
        }
        guard let listeners else { return DispatchResult(received: 0, stopper: nil) }
        let outcome = deliverStoppable(event, to: listeners, from: sender)
        return DispatchResult(received: outcome.delivered, stopper: outcome.stoppedBy)
    }

    /// Dispatches an event named `name` as `dispatch(_:from:data:payload:file:line:)` does, and
    /// says whether a listener stopped its propagation, and which.
    @discardableResult
    public func dispatchWithResult(
        _ name: EventName,
        from sender: AnyObject? = nil,
        data: (any Sendable)? = nil,
        payload: Payload = Payload(),
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> DispatchResult {
        let listeners = registry.namedSnapshot(for: name)
        let event = NamedEvent(
            name: name, sender: sender.map(Sender.init), data: data.map { .value($0) }, payload: payload)
        if isObserved {
            let outcome = observedDispatch(
                event, to: listeners, from: sender, callSite: CallSite(fileID: file, line: line))
            return DispatchResult(received: outcome.delivered, stopper: outcome.stoppedBy)
        }
        guard let listeners else { return DispatchResult(received: 0, stopper: nil) }
        let outcome = deliverStoppable(event, to: listeners, from: sender)
        return DispatchResult(received: outcome.delivered, stopper: outcome.stoppedBy)
    }

    // MARK: Registration

    /// Creates the record of a listener that may stop propagation and puts it in the registry.
    func registerStopping<E: Event>(
        _ type: E.Type, eventKey: EventKey, owner: (any AnyObject & Sendable)?, key: ListenerKey?,
        sender: AnyObject?, priority: Priority, once: Bool, callSite: CallSite,
        handler: @escaping @Sendable (AnyObject?, E, Sender?) throws -> Propagation
    ) -> Subscription {
        let isTyped = eventKey == EventKey(E.self)
        let details = ListenerDetails.make(
            eventKey: isTyped ? nil : eventKey, sequence: isTyped ? 0 : nextSequence(), priority: priority, key: key,
            owner: owner, sender: sender)
        return register(
            StoppingHandlerRecord<E>(
                registry: registry, once: once, callSite: callSite, details: details, handler: handler))
    }

    /// The owner that the dispatch loop passes to a handler, with its registered type.
    static func typedOwner<Owner: AnyObject>(_ owner: AnyObject?, as type: Owner.Type) -> Owner {
        // Unchecked: the dispatch loop passes the owner it loaded from the record's details,
        // which hold the very `Owner` registered, and only after checking it is not nil.
        unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self)
    }
}
