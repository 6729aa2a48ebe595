extension EventCenter {
    // MARK: Listeners that may stop propagation

    /// Calls `handler` with every event that a `type` is, on the dispatching thread; the
    /// handler's ``Propagation`` says whether the listeners after it receive the event.
    ///
    /// ```swift
    /// let validator = center.intercept(Checkout.self, priority: .high) { checkout in
    ///     checkout.total > 0 ? .continue : .stop
    /// }
    /// ```
    ///
    /// Give an interceptor a higher ``Priority`` than the listeners it guards: it can only stop
    /// those after it. What `type` hears is as for `listen(to:)`: an event type, a family (as
    /// `(any CartEvent).self`), ``NamedEvent`` for every name, or ``Sent`` to have the sender
    /// too. The rules of stopping are those of ``Propagation``; the other parameters and rules
    /// are those of `listen(to:)`. There is no `on:` parameter: only a handler on the
    /// dispatching thread can decide before the next listener is reached.
    ///
    /// An interceptor has a name of its own so that it cannot be registered by mistake as a
    /// listener whose answer is thrown away.
    ///
    /// - Parameters:
    ///   - type: What to hear, as for `listen(to:)`.
    ///   - sender: When given, only events dispatched `from:` this very object are heard (held
    ///     weakly; once it deinitializes the interceptor ends).
    ///   - priority: Higher runs earlier; ties run in registration order. Defaults to 0.
    ///   - once: When true, the interceptor ends after its first event.
    ///   - receivingCurrent: When true, the interceptor first receives the current values it
    ///     hears, before any newer event (its answer to those stops nothing).
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    ///   - handler: Receives each event and says whether it goes on.
    public func intercept<E: Sendable>(
        _ type: E.Type,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (E) throws -> Propagation
    ) -> Subscription {
        let options = ListenerOptions(
            sender: sender, priority: priority, once: once, callSite: CallSite(fileID: file, line: line),
            receivingCurrent: receivingCurrent)
        return register(stopping: type, options: options) { _, event, _ in try handler(event) }
    }

    /// Calls `handler` with every event that a `type` is, on the dispatching thread, for as
    /// long as `owner` lives; the handler's ``Propagation`` says whether the listeners after it
    /// receive the event.
    ///
    /// ```swift
    /// final class CheckoutGuard: Sendable {
    ///     init(center: EventCenter) {
    ///         center.intercept(Checkout.self, owner: self, priority: .high) { _, checkout in
    ///             checkout.total > 0 ? .continue : .stop
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// The owner rules of `listen(to:owner:)` hold: the owner is held weakly and handed to the
    /// handler; with a `key`, a registration with the same owner, key, type and sender as a live
    /// one is ignored and returns the existing subscription. The rules of stopping are those of
    /// ``Propagation``.
    @discardableResult
    public func intercept<E: Sendable, Owner: AnyObject & Sendable>(
        _ type: E.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, E) throws -> Propagation
    ) -> Subscription {
        let options = ListenerOptions(
            owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), receivingCurrent: receivingCurrent)
        return register(stopping: type, options: options) { owner, event, _ in
            try handler(Self.typedOwner(owner, as: Owner.self), event)
        }
    }

    /// Calls `handler` with every event named `name`, on the dispatching thread; the handler's
    /// ``Propagation`` says whether the listeners after it receive the event.
    ///
    /// ```swift
    /// let gate = center.intercept("checkout", priority: .high) { event in
    ///     try event.data(as: Int.self) == 0 ? .stop : .continue
    /// }
    /// ```
    ///
    /// Listeners of every name (`listen(to: NamedEvent.self)`) are merged with the listeners of
    /// the name by priority, so a stop holds them back too when they come after it.
    public func intercept(
        _ name: EventName,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (NamedEvent) throws -> Propagation
    ) -> Subscription {
        let options = ListenerOptions(
            sender: sender, priority: priority, once: once, callSite: CallSite(fileID: file, line: line),
            receivingCurrent: receivingCurrent)
        return registerStopping(NamedEvent.self, eventKey: .name(name.rawValue), options: options) { _, event, _ in
            try handler(event)
        }
    }

    /// Calls `handler` with every event named `name`, on the dispatching thread, for as long as
    /// `owner` lives; the handler's ``Propagation`` says whether the listeners after it receive
    /// the event. The owner rules of `listen(to:owner:)` hold.
    @discardableResult
    public func intercept<Owner: AnyObject & Sendable>(
        _ name: EventName,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, NamedEvent) throws -> Propagation
    ) -> Subscription {
        let options = ListenerOptions(
            owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), receivingCurrent: receivingCurrent)
        return registerStopping(NamedEvent.self, eventKey: .name(name.rawValue), options: options) {
            owner, event, _ in try handler(Self.typedOwner(owner, as: Owner.self), event)
        }
    }
}
