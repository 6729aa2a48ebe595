extension EventCenter {
    // MARK: Listening

    /// Calls `handler` with every event that a `type` is, until the returned subscription is
    /// cancelled or deinitialized.
    ///
    /// ```swift
    /// let subscription = center.listen(to: PostWritten.self) { post in
    ///     print("new post:", post.title)
    /// }
    /// ```
    ///
    /// What `type` is decides what the listener hears:
    /// - an ``Event`` type: its own dispatches (a dispatch of another type, even a subclass, is
    ///   not heard);
    /// - a protocol, as `(any CartEvent).self`, or a class that is not itself an `Event`: every
    ///   event whose type is one (a *family*; see <doc:Families>); `(any Event).self` hears
    ///   everything, named events included;
    /// - ``NamedEvent``: every named event, whatever its name (to hear one name, pass an
    ///   ``EventName``);
    /// - ``Sent``, as `Sent<PostWritten>.self`: what its event type hears, each event handed
    ///   over with the ``Sender`` that dispatched it.
    ///
    /// Keep the subscription (in a property, or with `store(in:)`): dropping it stops the
    /// listener. The handler runs on the thread that dispatches unless `delivery` says
    /// otherwise, so it is `@Sendable`; see ``EventCenter`` for ordering and reentrancy rules.
    /// A listener that may stop an event from reaching the listeners after it is registered
    /// with ``intercept(_:from:priority:once:receivingCurrent:file:line:_:)-(E.Type,_,_,_,_,_,_,_)``.
    ///
    /// - Parameters:
    ///   - type: What to hear (see above).
    ///   - delivery: Where the handler runs; see ``Delivery``. Defaults to the dispatching thread.
    ///     For `@MainActor` handlers pass ``MainActorDelivery/main``; for an actor, use
    ///     `listen(to:isolatedTo:)`.
    ///   - sender: When given, only events dispatched `from:` this very object are heard. It is
    ///     held weakly; once it deinitializes the listener ends.
    ///   - priority: Higher runs earlier; ties run in registration order. Defaults to 0.
    ///   - once: When true, the listener ends after its first event (even under concurrent dispatch).
    ///   - receivingCurrent: When true, the listener first receives the current values it hears
    ///     (kept by `dispatch(_:keepingCurrent:)`) in its own context, before
    ///     any newer event. Defaults to false.
    ///   - coalescing: Merges bursts of events into fewer deliveries; see ``Coalescing``. Needs
    ///     another context than the posting thread: with `on: .postingThread` (the default) and
    ///     a non-nil value the program stops with a precondition failure, so pass
    ///     `on: .background`, `.queue(_:)` or `.operationQueue(_:)`. Defaults to nil (every
    ///     event is delivered).
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    ///   - handler: Receives each event.
    // Inlinable so that the record's class, generic over `E`, is instantiated where `E` is known:
    // otherwise every call looks its metadata up in the runtime's generic cache. The tests of
    // what `E` is fold away there too.
    @inlinable
    public func listen<E: Sendable>(
        to type: E.Type,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: consuming @escaping @Sendable (E) throws -> Void
    ) -> Subscription {
        let callSite = CallSite(fileID: file, line: line)
        // The usual listener, an event type's own closure on the dispatching thread, is stored as
        // is; every other goes through the general path.
        guard delivery.isPostingThread, coalescing == nil, E.self is any Event.Type, E.self != NamedEvent.self else {
            return listen(
                type, in: delivery, sender: sender, priority: priority, once: once, receivingCurrent: receivingCurrent,
                coalescing: coalescing, callSite: callSite, handler)
        }
        // The handler and the record are handed on rather than copied (`consuming`, `consume`):
        // each copy was a retain and a release per registration.
        let record = EventOnlyHandlerRecord<E>(
            registry: registry, once: once, callSite: callSite,
            details: priority.value == 0 && sender == nil ? nil : .make(priority: priority, sender: sender),
            body: handler)
        return register(consume record, receivingCurrent: receivingCurrent)
    }

    /// The closure form of `listen` for every listener but an event type's own on the
    /// dispatching thread.
    @usableFromInline
    func listen<E: Sendable>(
        _ type: E.Type, in delivery: Delivery, sender: AnyObject?, priority: Priority, once: Bool,
        receivingCurrent: Bool, coalescing: Coalescing?, callSite: CallSite,
        _ handler: @escaping @Sendable (E) throws -> Void
    ) -> Subscription {
        let options = ListenerOptions(
            sender: sender, priority: priority, once: once, callSite: callSite, receivingCurrent: receivingCurrent,
            coalescing: coalescing)
        return register(hearing: type, options: options, place: .delivery(delivery.kind)) { _, event, _ in
            try handler(event)
        }
    }

    // MARK: Owner-bound listeners

    /// Calls `handler` with every event that a `type` is, for as long as `owner` lives.
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
    /// on whichever thread dispatches. What `type` hears is as for `listen(to:)`: an event
    /// type, a family, ``NamedEvent`` or ``Sent``.
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
    ///   - type: What to hear, as for `listen(to:)`.
    ///   - owner: The object whose lifetime bounds the listener; held weakly.
    ///   - key: Any `Hashable & Sendable` value (a string, an enum case) that names the
    ///     registration. Leave it out for a registration without a key, which is always distinct.
    ///   - delivery: Where the handler runs; see ``Delivery``. Defaults to the dispatching thread.
    ///   - sender: When given, only events dispatched `from:` this object are heard (held weakly).
    ///   - priority: Higher runs earlier; ties run in registration order.
    ///   - once: When true, the listener ends after its first event.
    ///   - receivingCurrent: When true, the listener first receives the current values it hears
    ///     in its own context, before any newer event; see ``CurrentValueScope``.
    ///   - coalescing: Merges bursts of events into fewer deliveries; see ``Coalescing``. Needs
    ///     another context than the posting thread, as for `listen(to:)`.
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    ///   - handler: Receives the owner and each event.
    // `key` defaults to a value of its own type, `Never?.none`, rather than being optional: a
    // key of an optional type whose value is nil stays a key, as it was before a default
    // existed.
    @discardableResult
    public func listen<E: Sendable, Owner: AnyObject & Sendable>(
        to type: E.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, E) throws -> Void
    ) -> Subscription {
        let options = ListenerOptions(
            owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), receivingCurrent: receivingCurrent, coalescing: coalescing)
        if delivery.isPostingThread, coalescing == nil, case .events(let eventKey) = Hearing(of: type),
            eventKey == EventKey(E.self)
        {
            return registerOwned(type, owner: owner, options: options) { owner, event, _ in try handler(owner, event) }
        }
        return register(hearing: type, options: options, place: .delivery(delivery.kind)) { owner, event, _ in
            try handler(Self.typedOwner(owner, as: Owner.self), event)
        }
    }

    // MARK: Registration

    /// Registers an owner-bound listener of an event type's own list on the posting thread: its
    /// record calls `body` with the owner already typed (no wrapper closure per call).
    func registerOwned<E: Sendable, Owner: AnyObject & Sendable>(
        _ type: E.Type, owner: Owner, options: ListenerOptions,
        body: @escaping @Sendable (Owner, E, Sender?) throws -> Void
    ) -> Subscription {
        let record = OwnerHandlerRecord<E, Owner>(
            registry: registry, once: options.once, callSite: options.callSite, owner: owner,
            details: .make(
                eventKey: nil, priority: options.priority, key: options.key, owner: nil, sender: options.sender),
            body: body)
        return register(record, receivingCurrent: options.receivingCurrent)
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
