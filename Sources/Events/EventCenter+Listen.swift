extension EventCenter {
    // MARK: Closure listeners

    /// Calls `handler` with every event of type `E`, until the returned subscription is cancelled
    /// or deinitialized.
    ///
    /// ```swift
    /// let subscription = center.listen(to: PostWritten.self) { post in
    ///     print("new post:", post.title)
    /// }
    /// ```
    ///
    /// Keep the subscription (in a property, or with `store(in:)`):
    /// dropping it stops the listener. The handler runs on the thread that dispatches, so it is
    /// `@Sendable`; see ``EventCenter`` for ordering and reentrancy rules.
    ///
    /// - Parameters:
    ///   - type: The event type to hear.
    ///   - delivery: Where the handler runs; see ``Delivery``. Defaults to the dispatching thread.
    ///   - sender: When given, only events dispatched `from:` this very object are heard. It is
    ///     held weakly; once it deinitializes the listener ends.
    ///   - priority: Higher runs earlier; ties run in registration order. Defaults to 0.
    ///   - once: When true, the listener ends after its first event (even under concurrent dispatch).
    ///   - receivingCurrent: When true, the listener first receives the current values of `E`
    ///     (kept by `dispatch(_:from:keepingCurrent:file:line:)`) in its own context, before any
    ///     newer event. Defaults to false.
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    ///   - handler: Receives each event.
    // Inlinable so that the record's class, generic over `E`, is instantiated where `E` is known:
    // otherwise every call looks its metadata up in the runtime's generic cache.
    @inlinable
    public func listen<E: Event>(
        to type: E.Type,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: consuming @escaping @Sendable (E) throws -> Void
    ) -> Subscription {
        let callSite = CallSite(fileID: file, line: line)
        guard delivery.isPostingThread else {
            return listen(
                type, in: delivery, sender: sender, priority: priority, once: once,
                receivingCurrent: receivingCurrent, callSite: callSite, handler)
        }
        // The handler and the record are handed on rather than copied (`consuming`, `consume`):
        // each copy was a retain and a release per registration.
        let record = EventOnlyHandlerRecord<E>(
            registry: registry, once: once, callSite: callSite,
            details: priority.value == 0 && sender == nil ? nil : .make(priority: priority, sender: sender),
            body: handler)
        return register(consume record, receivingCurrent: receivingCurrent)
    }

    /// The closure form of `listen` for a listener in another context.
    @usableFromInline
    func listen<E: Event>(
        _ type: E.Type, in delivery: Delivery, sender: AnyObject?, priority: Priority, once: Bool,
        receivingCurrent: Bool = false, callSite: CallSite, _ handler: @escaping @Sendable (E) throws -> Void
    ) -> Subscription {
        register(
            type, owner: nil, key: nil, sender: sender, priority: priority, once: once, callSite: callSite,
            delivery: delivery.kind, receivingCurrent: receivingCurrent
        ) { _, event, _ in try handler(event) }
    }

    /// Calls `handler` with every event of type `E` and the ``Sender`` that dispatched it (nil
    /// when it was dispatched without `from:`).
    ///
    /// ```swift
    /// let subscription = center.listen(to: PostWritten.self) { post, sender in
    ///     print(post.title, "from", sender?.description ?? "nobody")
    /// }
    /// ```
    ///
    /// Same rules and parameters as the closure form `listen(to:) { event in }`.
    public func listen<E: Event>(
        to type: E.Type,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (E, Sender?) throws -> Void
    ) -> Subscription {
        register(
            type, owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery.kind, receivingCurrent: receivingCurrent
        ) { _, event, sender in try handler(event, sender) }
    }

    // MARK: Owner-bound listeners

    /// Calls `handler` with every event of type `E` for as long as `owner` lives.
    ///
    /// The owner is held weakly and handed to the handler as its first argument, so the handler
    /// never needs to capture it and no retain cycle can form:
    ///
    /// ```swift
    /// final class FeedModel: Sendable {
    ///     init(center: EventCenter) {
    ///         center.listen(to: PostWritten.self, owner: self) { model, post in
    ///             model.show(post)
    ///         }
    ///     }
    ///     func show(_ post: PostWritten) { ... }
    /// }
    /// ```
    ///
    /// The listener ends when the owner deinitializes (it is never called afterwards), when
    /// the returned subscription is cancelled, or on ``remove(_:)`` and its variants. Dropping
    /// the subscription does not end it. The owner must be `Sendable`, because the handler runs
    /// on whichever thread dispatches.
    ///
    /// A `key` names the registration for removal and makes a repeated registration a no-op: a
    /// registration with the same owner, key, event type and sender as a live one is ignored,
    /// the existing subscription is returned and the new handler, priority and `once` are
    /// discarded. This makes it safe to register from code that runs repeatedly (a
    /// `viewWillAppear`, for example):
    ///
    /// ```swift
    /// center.listen(to: PostWritten.self, owner: self, key: "refresh") { model, _ in model.reload() }
    /// center.listen(to: PostWritten.self, owner: self, key: "refresh") { model, _ in model.reload() }
    /// // still one listener
    /// center.remove(self, key: "refresh")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The event type to hear.
    ///   - owner: The object whose lifetime bounds the listener; held weakly.
    ///   - key: Any `Hashable & Sendable` value (a string, an enum case) that names the
    ///     registration. Leave it out for a registration without a key, which is always distinct.
    ///   - delivery: Where the handler runs; see ``Delivery``. Defaults to the dispatching thread.
    ///   - sender: When given, only events dispatched `from:` this object are heard (held weakly).
    ///   - priority: Higher runs earlier; ties run in registration order.
    ///   - once: When true, the listener ends after its first event.
    ///   - receivingCurrent: When true, the listener first receives the current values of `E`
    ///     in its own context, before any newer event; see ``CurrentValueScope``.
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    ///   - handler: Receives the owner and each event.
    // `key` defaults to a value of its own type, `Never?.none`, rather than being optional: a
    // key of an optional type whose value is nil stays a key, as it was before a default
    // existed.
    @discardableResult
    public func listen<E: Event, Owner: AnyObject & Sendable>(
        to type: E.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, E) throws -> Void
    ) -> Subscription {
        registerOwned(
            type, owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery.kind, receivingCurrent: receivingCurrent
        ) { owner, event, _ in try handler(owner, event) }
    }

    /// The owner-bound form whose handler also receives the ``Sender``; with a `key`, a
    /// repeated registration is ignored, as for the form without the sender.
    @discardableResult
    public func listen<E: Event, Owner: AnyObject & Sendable>(
        to type: E.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, E, Sender?) throws -> Void
    ) -> Subscription {
        registerOwned(
            type, owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery.kind, receivingCurrent: receivingCurrent,
            body: handler)
    }

    // MARK: Registration

    /// Registers a listener whose handler runs in `delivery`'s context: `run` is called there.
    func register<E: Event>(
        _ type: E.Type,
        eventKey: EventKey = EventKey(E.self),
        owner: (any AnyObject & Sendable)?,
        key: ListenerKey?,
        sender: AnyObject?,
        priority: Priority,
        once: Bool,
        callSite: CallSite,
        delivery: Delivery.Kind = .postingThread,
        receivingCurrent: Bool = false,
        run: @escaping @Sendable (AnyObject?, E, Sender?) throws -> Void
    ) -> Subscription {
        let route: (any AsyncRoute<E>)?
        if case .postingThread = delivery {
            route = nil
        } else {
            route = SerialRoute(mailbox: makeMailbox(for: delivery), inlineOnMainThread: false, run: run)
        }
        return register(
            type, eventKey: eventKey, owner: owner, key: key, sender: sender, priority: priority, once: once,
            callSite: callSite, handler: route == nil ? run : nil, route: route, context: ListenerContext(delivery),
            receivingCurrent: receivingCurrent)
    }

    /// Creates the record and puts it in the registry, or returns the live duplicate (rule 3).
    func register<E: Event>(
        _ type: E.Type,
        eventKey: EventKey = EventKey(E.self),
        owner: (any AnyObject & Sendable)?,
        key: ListenerKey?,
        sender: AnyObject?,
        priority: Priority,
        once: Bool,
        callSite: CallSite,
        handler: (@Sendable (AnyObject?, E, Sender?) throws -> Void)?,
        route: (any AsyncRoute<E>)?,
        context: ListenerContext? = nil,
        receivingCurrent: Bool = false
    ) -> Subscription {
        precondition((handler == nil) != (route == nil), "a listener has a handler or a route")
        // Only named listeners need a sequence: their lists are merged with the list of every
        // name. A typed key is implied by the record's class.
        let isTyped = eventKey == EventKey(E.self)
        let details = ListenerDetails.make(
            eventKey: isTyped ? nil : eventKey, sequence: isTyped ? 0 : nextSequence(), priority: priority, key: key,
            owner: owner, sender: sender)
        let record: ListenerRecord
        if let route {
            // Actor routes say which actor; every other route's registration passes its context.
            let context = context ?? (route as? any ActorBoundRoute).map { .actor($0.actorType) }
            record = RoutedRecord<E>(
                registry: registry, once: once, callSite: callSite, details: details, route: route,
                context: context ?? .background)
        } else {
            record = HandlerRecord<E>(
                registry: registry, once: once, callSite: callSite, details: details,
                handler: handler.unsafelyUnwrapped)
        }
        return register(record, receivingCurrent: receivingCurrent)
    }

    /// Registers an owner-bound listener. On the posting thread its record calls `body` with the
    /// owner already typed (no wrapper closure per call); elsewhere it goes through a route.
    func registerOwned<E: Event, Owner: AnyObject & Sendable>(
        _ type: E.Type, owner: Owner, key: ListenerKey?, sender: AnyObject?, priority: Priority, once: Bool,
        callSite: CallSite, delivery: Delivery.Kind, receivingCurrent: Bool = false,
        body: @escaping @Sendable (Owner, E, Sender?) throws -> Void
    ) -> Subscription {
        guard case .postingThread = delivery else {
            return register(
                type, owner: owner, key: key, sender: sender, priority: priority, once: once, callSite: callSite,
                delivery: delivery, receivingCurrent: receivingCurrent
            ) { owner, event, sender in
                // A checked cast: this runs once per queued delivery, next to a hop to another
                // context, where an unchecked one would not show.
                try body(owner! as! Owner, event, sender)
            }
        }
        let record = OwnerHandlerRecord<E, Owner>(
            registry: registry, once: once, callSite: callSite, owner: owner,
            details: .make(eventKey: nil, priority: priority, key: key, owner: nil, sender: sender), body: body)
        return register(record, receivingCurrent: receivingCurrent)
    }

    /// Puts `record` in the registry, or returns the live duplicate of a keyed owner-bound one.
    /// With `receivingCurrent`, the listener first receives the current values of its event.
    @usableFromInline
    func register(_ record: __owned ListenerRecord, receivingCurrent: Bool = false) -> Subscription {
        if _slowPath(receivingCurrent || flowControl.holdsEvents) {
            return registerReceivingKept(record, receivingCurrent: receivingCurrent)
        }
        if record.key == nil {
            // Without a key a registration is always distinct (rule 3): the usual case.
            if registry.insert(record).sweepDue { registry.sweep() }
        } else if let existing = insertUnlessDuplicate(record) {
            return Subscription(record: existing)
        }
        if _slowPath(isObserved) { observeRegistration(record) }
        return Subscription(record: record)
    }

    /// Inserts a keyed `record`, or returns the live registration it duplicates (rule 3). Kept
    /// out of `register`, so that the usual registration does not pay for its frame.
    private func insertUnlessDuplicate(_ record: ListenerRecord) -> ListenerRecord? {
        var sweepDue = false
        if let key = record.key, let slot = record.duplicateSlot, let owner = record.owner {
            let sender = record.sender
            // Optimistic: compare candidates outside the lock (key `==` is user code), then
            // insert only if the list did not change meanwhile; otherwise look again.
            while true {
                let (records, version) = registry.duplicateCandidates(in: slot)
                if let existing = records.first(where: { $0.isDuplicate(owner: owner, key: key, sender: sender) }) {
                    return existing
                }
                let result = registry.insert(record, ifVersion: version)
                if result.inserted {
                    sweepDue = result.sweepDue
                    break
                }
            }
        } else {
            sweepDue = registry.insert(record).sweepDue
        }
        if sweepDue { registry.sweep() }
        return nil
    }
}
