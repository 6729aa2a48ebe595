extension EventCenter {
    // MARK: Listening to a family of events

    /// Calls `handler` with every event whose type is a `P`: conforms to the protocol `P`, or is
    /// the class `P` or a subclass of it. `listen(toAll: (any Event).self)` hears every event.
    ///
    /// ```swift
    /// protocol CartEvent: Event { var cartID: String { get } }
    /// struct ItemAdded: CartEvent { let cartID: String; let sku: String }
    /// struct CartEmptied: CartEvent { let cartID: String }
    ///
    /// let badge = center.listen(toAll: (any CartEvent).self) { event in
    ///     print("cart", event.cartID, "changed")
    /// }
    /// center.dispatch(ItemAdded(cartID: "c1", sku: "tea"))   // prints "cart c1 changed"
    /// center.dispatch(CartEmptied(cartID: "c1"))             // prints "cart c1 changed"
    /// ```
    ///
    /// Use it where one listener cares about a kind of event rather than one type: every cart
    /// change, every error event, and, with `(any Event).self`, everything (for logging).
    ///
    /// Rules (see <doc:Families> for the whole story):
    /// - Matching is by the event's type: a dispatch of `E` reaches the listener when `E` is a
    ///   `P` (for an instance of a class, its own class decides). It is decided once per type and
    ///   remembered; a family listened to later is taken into account by the next dispatch.
    /// - Order: family listeners run in one order with the listeners of the event's own type,
    ///   higher ``Priority`` first; at equal priority the event's own listeners run first, then
    ///   the family listeners, in registration order.
    /// - A listener of the event's own type that stops propagation (``Propagation/stop``)
    ///   keeps the family listeners after it from the event too.
    /// - `(any Event).self` also hears named events, as ``NamedEvent``s.
    /// - Every rule of ``EventCenter`` holds for family listeners: sender filter, owner
    ///   lifetime, `once` under concurrent dispatch, reentrancy, cancellation. `dispatch` counts
    ///   them in its result, `dispatchAndWait` in its report.
    /// - ``listenerCount(for:)-5ansq`` counts the listeners of one exact type, so not these; see
    ///   ``listenerCount(forAll:)``.
    ///
    /// - Parameters:
    ///   - family: The protocol (as `(any CartEvent).self`) or class whose events to hear.
    ///   - delivery: Where the handler runs; see ``Delivery``. Defaults to the dispatching thread.
    ///   - sender: When given, only events dispatched `from:` this very object are heard (held
    ///     weakly; once it deinitializes the listener ends).
    ///   - priority: Higher runs earlier; see the ordering rule above. Defaults to 0.
    ///   - once: When true, the listener ends after its first event (even under concurrent dispatch).
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    ///   - handler: Receives each event, as a `P`.
    public func listen<P>(
        toAll family: P.Type,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (P) throws -> Void
    ) -> Subscription {
        registerFamily(
            family, owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery.kind
        ) { _, event, _ in try handler(event) }
    }

    /// The family form whose handler also receives the ``Sender`` (nil when the event was
    /// dispatched without `from:`).
    ///
    /// ```swift
    /// let log = center.listen(toAll: (any Event).self) { event, sender in
    ///     print(event, "from", sender?.description ?? "nobody")
    /// }
    /// ```
    ///
    /// Same rules and parameters as `listen(toAll:) { event in }`.
    public func listen<P>(
        toAll family: P.Type,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (P, Sender?) throws -> Void
    ) -> Subscription {
        registerFamily(
            family, owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery.kind
        ) { _, event, sender in try handler(event, sender) }
    }

    /// Calls `handler` with every event whose type is a `P`, for as long as `owner` lives.
    ///
    /// ```swift
    /// final class CartBadge: Sendable {
    ///     init(center: EventCenter) {
    ///         center.listen(toAll: (any CartEvent).self, owner: self, key: "badge") { badge, event in
    ///             badge.refresh(for: event.cartID)
    ///         }
    ///     }
    ///     func refresh(for cartID: String) {}
    /// }
    /// ```
    ///
    /// The owner rules of `listen(to:owner:)` hold: the owner is held weakly and handed to the
    /// handler; the listener ends when it deinitializes (never called afterwards), when the
    /// subscription is cancelled, or on ``remove(_:)``, ``remove(_:forAll:)`` and their keyed
    /// variants; with a `key`, a registration with the same owner, key, family and sender as a
    /// live one is ignored and returns the existing subscription. The matching and ordering
    /// rules are those of `listen(toAll:) { event in }`.
    @discardableResult
    public func listen<P, Owner: AnyObject & Sendable>(
        toAll family: P.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, P) throws -> Void
    ) -> Subscription {
        registerFamily(
            family, owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery.kind
        ) { owner, event, _ in try handler(Self.typedOwner(owner, as: Owner.self), event) }
    }

    /// The owner-bound family form whose handler also receives the ``Sender``.
    @discardableResult
    public func listen<P, Owner: AnyObject & Sendable>(
        toAll family: P.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, P, Sender?) throws -> Void
    ) -> Subscription {
        registerFamily(
            family, owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery.kind
        ) { owner, event, sender in try handler(Self.typedOwner(owner, as: Owner.self), event, sender) }
    }

    // MARK: Main-actor family listeners

    /// Calls a `@MainActor` handler with every event whose type is a `P`.
    ///
    /// ```swift
    /// @MainActor final class CartIcon { var changes = 0 }
    /// let icon = CartIcon()
    /// let refresh = center.listen(toAll: (any CartEvent).self, on: .main) { _ in
    ///     icon.changes += 1
    /// }
    /// ```
    ///
    /// See ``MainActorDelivery`` for when the handler runs inline and when it is enqueued; events
    /// reach it in dispatch order. Otherwise the rules of `listen(toAll:) { event in }`.
    public func listen<P>(
        toAll family: P.Type,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (P) throws -> Void
    ) -> Subscription {
        registerFamilyOnMainActor(
            family, owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery
        ) { _, event, _ in
            try MainActor.assumeIsolated { try handler(event.event.member(of: P.self)) }
        }
    }

    /// The main-actor family form whose handler also receives the ``Sender``.
    public func listen<P>(
        toAll family: P.Type,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (P, Sender?) throws -> Void
    ) -> Subscription {
        registerFamilyOnMainActor(
            family, owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery
        ) { _, event, sender in
            try MainActor.assumeIsolated { try handler(event.event.member(of: P.self), sender) }
        }
    }

    /// Calls a `@MainActor` handler with every event whose type is a `P`, for as long as
    /// `owner` lives: for view models and view controllers.
    ///
    /// ```swift
    /// @MainActor final class CartScreen {
    ///     var changes = 0
    ///     func start(_ center: EventCenter) {
    ///         center.listen(toAll: (any CartEvent).self, owner: self, on: .main) { screen, _ in
    ///             screen.changes += 1
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// An owner that is gone when an event's turn comes is skipped. With a `key`, a repeated
    /// registration with the same owner, key, family and sender is ignored.
    @discardableResult
    public func listen<P, Owner: AnyObject & Sendable>(
        toAll family: P.Type,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (Owner, P) throws -> Void
    ) -> Subscription {
        registerFamilyOnMainActor(
            family, owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery
        ) { owner, event, _ in
            let owner = Self.typedOwner(owner, as: Owner.self)
            try MainActor.assumeIsolated { try handler(owner, event.event.member(of: P.self)) }
        }
    }

    // MARK: Inspecting and removing

    /// How many family listeners of exactly `family` would currently receive an event of one
    /// of its types from some sender. Listeners of other families (a listener of
    /// `(any Event).self` for `(any CartEvent).self`) are not counted.
    public func listenerCount<P>(forAll family: P.Type) -> Int {
        liveListenerCount(for: Family<P>.key)
    }

    /// Ends the family listeners of `family` that `owner` registered, whatever their key.
    public func remove<P>(_ owner: AnyObject, forAll family: P.Type) {
        removeListeners(of: owner, in: Family<P>.key) { _ in true }
    }

    /// Ends the family listener of `family` that `owner` registered with `key`.
    public func remove<P>(_ owner: AnyObject, key: some Hashable & Sendable, forAll family: P.Type) {
        let key = ListenerKey(key)
        removeListeners(of: owner, in: Family<P>.key) { $0.key == key }
    }

    // MARK: Registration

    /// Registers a family listener whose handler runs in `delivery`'s context.
    func registerFamily<P>(
        _ family: P.Type, owner: (any AnyObject & Sendable)?, key: ListenerKey?, sender: AnyObject?,
        priority: Priority, once: Bool, callSite: CallSite, delivery: Delivery.Kind,
        run: @escaping @Sendable (AnyObject?, P, Sender?) throws -> Void
    ) -> Subscription {
        let details = familyDetails(P.self, owner: owner, key: key, sender: sender, priority: priority)
        let record: ListenerRecord
        if case .postingThread = delivery {
            record = FamilyHandlerRecord<P>(
                registry: registry, once: once, callSite: callSite, details: details, handler: run)
        } else {
            let route = SerialRoute<FamilyEvent>(mailbox: makeMailbox(for: delivery), inlineOnMainThread: false) {
                owner, event, sender in
                try run(owner, event.event.member(of: P.self), sender)
            }
            record = FamilyRoutedRecord<P>(
                registry: registry, once: once, callSite: callSite, details: details, route: route,
                context: ListenerContext(delivery))
        }
        return registerFamily(record, of: P.self)
    }

    /// Registers a main-actor family listener; `run` is called on the main actor.
    func registerFamilyOnMainActor<P>(
        _ family: P.Type, owner: (any AnyObject & Sendable)?, key: ListenerKey?, sender: AnyObject?,
        priority: Priority, once: Bool, callSite: CallSite, delivery: MainActorDelivery,
        run: @escaping @Sendable (AnyObject?, FamilyEvent, Sender?) throws -> Void
    ) -> Subscription {
        let route = SerialRoute<FamilyEvent>(
            mailbox: makeMainMailbox(), inlineOnMainThread: delivery == .main, run: run)
        let record = FamilyRoutedRecord<P>(
            registry: registry, once: once, callSite: callSite,
            details: familyDetails(P.self, owner: owner, key: key, sender: sender, priority: priority),
            route: route, context: .mainActor(delivery))
        return registerFamily(record, of: P.self)
    }

    /// The details of a family listener: its list's key, and a sequence, which orders family
    /// listeners of different families at equal priority by registration.
    private func familyDetails<P>(
        _ family: P.Type, owner: (any AnyObject & Sendable)?, key: ListenerKey?, sender: AnyObject?,
        priority: Priority
    ) -> ListenerDetails? {
        .make(
            eventKey: Family<P>.key, sequence: nextSequence(), priority: priority, key: key, owner: owner,
            sender: sender)
    }

    /// Files the family, puts `record` in the registry (or finds its duplicate), then sets the
    /// family flag, after the record is in: see `FamilyIndex` for why that order keeps the flag
    /// right.
    private func registerFamily<P>(_ record: ListenerRecord, of family: P.Type) -> Subscription {
        // Filed first: a dispatch that begins after this registration returns finds the family
        // in the index, so its matches are worked out again.
        registry.families.add(FamilyKindOf<P>())
        let subscription = register(record)
        registry.countFamilyLists(adding: Family<P>.key)
        registry.families.markPresent(in: self)
        return subscription
    }
}
