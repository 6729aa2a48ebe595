// Spellings that earlier versions offered and that the current API says in fewer ways. Each one
// still compiles and does what it did, forwarding to its replacement, and its deprecation
// message names that replacement. They are listed in the "Deprecated spellings" article, out of
// the topic groups of the types they extend.

// MARK: - Handlers that take the sender

extension EventCenter {
    /// Deprecated: listen to `Sent<E>.self`, whose value holds the event and its sender.
    @available(*, deprecated, message: "listen to Sent<E>.self instead: its value holds the event and its sender")
    public func listen<E: Event>(
        to type: E.Type,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (E, Sender?) throws -> Void
    ) -> Subscription {
        listen(
            to: Sent<E>.self, on: delivery, from: sender, priority: priority, once: once,
            receivingCurrent: receivingCurrent, coalescing: coalescing, file: file, line: line
        ) { sent in try handler(sent.event, sent.sender) }
    }

    /// Deprecated: listen to `Sent<E>.self` with the owner, whose value holds the event and its
    /// sender.
    @available(*, deprecated, message: "listen to Sent<E>.self instead: its value holds the event and its sender")
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
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, E, Sender?) throws -> Void
    ) -> Subscription {
        listen(
            to: Sent<E>.self, owner: owner, key: key, on: delivery, from: sender, priority: priority, once: once,
            receivingCurrent: receivingCurrent, coalescing: coalescing, file: file, line: line
        ) { owner, sent in try handler(owner, sent.event, sent.sender) }
    }

    /// Deprecated: listen to `Sent<E>.self` on the main actor, whose value holds the event and
    /// its sender.
    @available(*, deprecated, message: "listen to Sent<E>.self instead: its value holds the event and its sender")
    public func listen<E: Event>(
        to type: E.Type,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (E, Sender?) throws -> Void
    ) -> Subscription {
        listen(
            to: Sent<E>.self, on: delivery, from: sender, priority: priority, once: once,
            receivingCurrent: receivingCurrent, coalescing: coalescing, file: file, line: line
        ) { sent in try handler(sent.event, sent.sender) }
    }
}

// MARK: - Families as `toAll:`

// These keep their own meaning for a class that is itself an `Event`: `toAll:` heard its
// subclasses too, where `listen(to:)` hears that class alone. For a protocol, as
// `(any CartEvent).self`, `listen(to:)` hears the same events.

extension EventCenter {
    /// Deprecated: `listen(to:)` hears a family when given a protocol, as `(any CartEvent).self`.
    @available(
        *, deprecated, renamed: "listen(to:on:from:priority:once:file:line:_:)",
        message:
            "listen(to:) hears a family when given a protocol, as (any P).self; a class that is itself an Event is heard alone there"
    )
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
        register(
            family: family, options: .legacyFamily(sender, priority, once, file, line), place: .delivery(delivery.kind)
        ) { _, event, _ in try handler(event) }
    }

    /// Deprecated: listen to `Sent<any P>.self`, whose value holds the event and its sender.
    @available(*, deprecated, message: "listen to Sent<any P>.self instead: its value holds the event and its sender")
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
        register(
            family: family, options: .legacyFamily(sender, priority, once, file, line), place: .delivery(delivery.kind)
        ) { _, event, sender in try handler(event, sender) }
    }

    /// Deprecated: `listen(to:owner:)` hears a family when given a protocol.
    @available(
        *, deprecated, renamed: "listen(to:owner:key:on:from:priority:once:file:line:_:)",
        message:
            "listen(to:) hears a family when given a protocol, as (any P).self; a class that is itself an Event is heard alone there"
    )
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
        register(
            family: family, options: .legacyFamily(sender, priority, once, file, line, owner: owner, key: key),
            place: .delivery(delivery.kind)
        ) { owner, event, _ in try handler(Self.typedOwner(owner, as: Owner.self), event) }
    }

    /// Deprecated: listen to `Sent<any P>.self` with the owner.
    @available(*, deprecated, message: "listen to Sent<any P>.self instead: its value holds the event and its sender")
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
        register(
            family: family, options: .legacyFamily(sender, priority, once, file, line, owner: owner, key: key),
            place: .delivery(delivery.kind)
        ) { owner, event, sender in try handler(Self.typedOwner(owner, as: Owner.self), event, sender) }
    }

    /// Deprecated: `listen(to:on:)` hears a family on the main actor when given a protocol.
    @available(
        *, deprecated, renamed: "listen(to:on:from:priority:once:file:line:_:)",
        message:
            "listen(to:) hears a family when given a protocol, as (any P).self; a class that is itself an Event is heard alone there"
    )
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
        register(
            family: family, options: .legacyFamily(sender, priority, once, file, line), place: .mainActor(delivery)
        ) { _, event, _ in
            // Sendable by construction: the event came from a dispatch, which takes `Sendable`
            // values only; `P` merely names what it is.
            nonisolated(unsafe) let event = event
            try MainActor.assumeIsolated { try handler(event) }
        }
    }

    /// Deprecated: listen to `Sent<any P>.self` on the main actor.
    @available(*, deprecated, message: "listen to Sent<any P>.self instead: its value holds the event and its sender")
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
        register(
            family: family, options: .legacyFamily(sender, priority, once, file, line), place: .mainActor(delivery)
        ) { _, event, sender in
            // Sendable by construction, as above.
            nonisolated(unsafe) let event = event
            try MainActor.assumeIsolated { try handler(event, sender) }
        }
    }

    /// Deprecated: `listen(to:owner:on:)` hears a family on the main actor when given a protocol.
    @available(
        *, deprecated, renamed: "listen(to:owner:key:on:from:priority:once:file:line:_:)",
        message:
            "listen(to:) hears a family when given a protocol, as (any P).self; a class that is itself an Event is heard alone there"
    )
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
        register(
            family: family, options: .legacyFamily(sender, priority, once, file, line, owner: owner, key: key),
            place: .mainActor(delivery)
        ) { owner, event, _ in
            let owner = Self.typedOwner(owner, as: Owner.self)
            // Sendable by construction, as above.
            nonisolated(unsafe) let event = event
            try MainActor.assumeIsolated { try handler(owner, event) }
        }
    }

    /// Deprecated: `listenerCount(for:)` counts a family's listeners when given a protocol.
    @available(*, deprecated, renamed: "listenerCount(for:)")
    public func listenerCount<P>(forAll family: P.Type) -> Int {
        liveListenerCount(for: Family<P>.key)
    }

    /// Deprecated: `remove(_:for:)` ends an owner's family listeners when given a protocol.
    @available(*, deprecated, renamed: "remove(_:for:)")
    public func remove<P>(_ owner: AnyObject, forAll family: P.Type) {
        removeListeners(of: owner, in: Family<P>.key) { _ in true }
    }

    /// Deprecated: `remove(_:key:for:)` ends an owner's keyed family listener when given a
    /// protocol.
    @available(*, deprecated, renamed: "remove(_:key:for:)")
    public func remove<P>(_ owner: AnyObject, key: some Hashable & Sendable, forAll family: P.Type) {
        let key = ListenerKey(key)
        removeListeners(of: owner, in: Family<P>.key) { $0.key == key }
    }
}

extension ListenerOptions {
    /// The options of a `toAll:` registration, which had fewer parameters.
    static func legacyFamily(
        _ sender: AnyObject?, _ priority: Priority, _ once: Bool, _ file: StaticString, _ line: UInt,
        owner: (any AnyObject & Sendable)? = nil, key: some Hashable & Sendable = Never?.none
    ) -> ListenerOptions {
        ListenerOptions(
            owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line))
    }
}

// MARK: - Every name as `listenToAllNames`

extension EventCenter {
    /// Deprecated: listen to `NamedEvent.self`, which hears every named event.
    @available(*, deprecated, renamed: "listen(to:on:from:priority:once:receivingCurrent:coalescing:file:line:_:)")
    public func listenToAllNames(
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (NamedEvent) throws -> Void
    ) -> Subscription {
        listen(
            to: NamedEvent.self, on: delivery, from: sender, priority: priority, once: once,
            receivingCurrent: receivingCurrent, coalescing: coalescing, file: file, line: line, handler)
    }

    /// Deprecated: listen to `NamedEvent.self` with the owner.
    @available(
        *, deprecated, renamed: "listen(to:owner:key:on:from:priority:once:receivingCurrent:coalescing:file:line:_:)"
    )
    @discardableResult
    public func listenToAllNames<Owner: AnyObject & Sendable>(
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
        _ handler: @escaping @Sendable (Owner, NamedEvent) throws -> Void
    ) -> Subscription {
        listen(
            to: NamedEvent.self, owner: owner, key: key, on: delivery, from: sender, priority: priority, once: once,
            receivingCurrent: receivingCurrent, coalescing: coalescing, file: file, line: line, handler)
    }

    /// Deprecated: listen to `NamedEvent.self` on the main actor.
    @available(*, deprecated, renamed: "listen(to:on:from:priority:once:receivingCurrent:coalescing:file:line:_:)")
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
        listen(
            to: NamedEvent.self, on: delivery, from: sender, priority: priority, once: once,
            receivingCurrent: receivingCurrent, coalescing: coalescing, file: file, line: line, handler)
    }

    /// Deprecated: listen to `NamedEvent.self` with the owner, on the main actor.
    @available(
        *, deprecated, renamed: "listen(to:owner:key:on:from:priority:once:receivingCurrent:coalescing:file:line:_:)"
    )
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
        listen(
            to: NamedEvent.self, owner: owner, key: key, on: delivery, from: sender, priority: priority, once: once,
            receivingCurrent: receivingCurrent, coalescing: coalescing, file: file, line: line, handler)
    }

    /// Deprecated: listen to `NamedEvent.self` isolated to the actor.
    @available(
        *, deprecated,
        renamed: "listen(to:isolatedTo:key:from:priority:once:receivingCurrent:coalescing:file:line:_:)"
    )
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
        listen(
            to: NamedEvent.self, isolatedTo: actor, key: key, from: sender, priority: priority, once: once,
            receivingCurrent: receivingCurrent, coalescing: coalescing, file: file, line: line, handler)
    }

    /// Deprecated: `remove(_:for:)` with `NamedEvent.self` ends an owner's listeners of every name.
    @available(*, deprecated, message: "use remove(owner, for: NamedEvent.self)")
    public func removeListenersToAllNames(of owner: AnyObject) {
        remove(owner, for: NamedEvent.self)
    }

    /// Deprecated: `remove(_:key:for:)` with `NamedEvent.self`.
    @available(*, deprecated, message: "use remove(owner, key: key, for: NamedEvent.self)")
    public func removeListenersToAllNames(of owner: AnyObject, key: some Hashable & Sendable) {
        remove(owner, key: key, for: NamedEvent.self)
    }

    /// Deprecated: `remove(_:for:)` with `NamedEvent.self`.
    @available(*, deprecated, message: "use remove(owner, for: NamedEvent.self)")
    public func removeAllNamesListeners(of owner: AnyObject) {
        remove(owner, for: NamedEvent.self)
    }

    /// Deprecated: `remove(_:key:for:)` with `NamedEvent.self`.
    @available(*, deprecated, message: "use remove(owner, key: key, for: NamedEvent.self)")
    public func removeAllNamesListeners(of owner: AnyObject, key: some Hashable & Sendable) {
        remove(owner, key: key, for: NamedEvent.self)
    }

    /// Deprecated: `removeAllListeners(for:)` with `NamedEvent.self`.
    @available(*, deprecated, message: "use removeAllListeners(for: NamedEvent.self)")
    public func removeAllListenersToAllNames() {
        removeAllListeners(for: NamedEvent.self)
    }

    /// Deprecated: `listenerCount(for:)` with `NamedEvent.self`.
    @available(*, deprecated, message: "use listenerCount(for: NamedEvent.self)")
    public var allNamesListenerCount: Int {
        listenerCount(for: NamedEvent.self)
    }
}

// MARK: - Listeners that stop propagation, as `listen`

// Each shape comes twice. The form generic over its result matches any closure whose body is a
// `Propagation`, such as `{ _ in Propagation.stop }`: without it that closure would become a
// plain listener whose answer is discarded, as a single-expression closure in a `Void` context
// is. It cannot match a closure that only throws or never returns (no `Void` or `Never`
// conforms), so those stay plain listeners, unambiguously. The disfavored concrete form takes
// the closures whose result needs the context to be read at all (`{ $0.ok ? .continue :
// .stop }`), and loses every tie to the plain form, as it did before `intercept` existed.

/// The result of a handler that may stop propagation: ``Propagation`` alone. Not API: it lets a
/// deprecated `listen` form tell a closure that returns a `Propagation` from one that returns
/// nothing.
public protocol _PropagationResult: Sendable {
    /// The answer as a ``Propagation``.
    var _propagation: Propagation { get }
}

extension Propagation: _PropagationResult {
    /// The answer itself.
    public var _propagation: Propagation { self }
}

extension EventCenter {
    static let stoppingNeedsPostingThread =
        "a listener that stops propagation runs on the dispatching thread: register it with intercept(_:), "
        + "without on:, coalescing: or isolatedTo:"

    /// Deprecated: ``intercept(_:from:priority:once:receivingCurrent:file:line:_:)-(E.Type,_,_,_,_,_,_,_)``.
    @available(*, deprecated, renamed: "intercept(_:from:priority:once:receivingCurrent:file:line:_:)")
    public func listen<E: Sendable, Answer: _PropagationResult>(
        to type: E.Type,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (E) throws -> Answer
    ) -> Subscription {
        precondition(delivery.isPostingThread && coalescing == nil, Self.stoppingNeedsPostingThread)
        return intercept(
            type, from: sender, priority: priority, once: once, receivingCurrent: receivingCurrent, file: file,
            line: line
        ) { try handler($0)._propagation }
    }

    /// Deprecated: ``intercept(_:from:priority:once:receivingCurrent:file:line:_:)-(E.Type,_,_,_,_,_,_,_)``.
    @available(*, deprecated, renamed: "intercept(_:from:priority:once:receivingCurrent:file:line:_:)")
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
        intercept(type, from: sender, priority: priority, once: once, file: file, line: line, handler)
    }

    /// Deprecated: ``intercept(_:from:priority:once:receivingCurrent:file:line:_:)-(E.Type,_,_,_,_,_,_,_)`` with
    /// `Sent<E>.self`, whose value holds the event and its sender.
    @available(*, deprecated, message: "use intercept(Sent<E>.self): its value holds the event and its sender")
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
        intercept(Sent<E>.self, from: sender, priority: priority, once: once, file: file, line: line) {
            try handler($0.event, $0.sender)
        }
    }

    /// Deprecated: ``intercept(_:owner:key:from:priority:once:receivingCurrent:file:line:_:)-(E.Type,_,_,_,_,_,_,_,_,_)``.
    @available(*, deprecated, renamed: "intercept(_:owner:key:from:priority:once:receivingCurrent:file:line:_:)")
    @discardableResult
    public func listen<E: Sendable, Owner: AnyObject & Sendable, Answer: _PropagationResult>(
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
        _ handler: @escaping @Sendable (Owner, E) throws -> Answer
    ) -> Subscription {
        precondition(delivery.isPostingThread && coalescing == nil, Self.stoppingNeedsPostingThread)
        return intercept(
            type, owner: owner, key: key, from: sender, priority: priority, once: once,
            receivingCurrent: receivingCurrent, file: file, line: line
        ) { try handler($0, $1)._propagation }
    }

    /// Deprecated: ``intercept(_:owner:key:from:priority:once:receivingCurrent:file:line:_:)-(E.Type,_,_,_,_,_,_,_,_,_)``.
    @available(*, deprecated, renamed: "intercept(_:owner:key:from:priority:once:receivingCurrent:file:line:_:)")
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
        intercept(
            type, owner: owner, key: key, from: sender, priority: priority, once: once, file: file, line: line, handler)
    }

    /// Deprecated: ``intercept(_:owner:key:from:priority:once:receivingCurrent:file:line:_:)-(E.Type,_,_,_,_,_,_,_,_,_)``
    /// with `Sent<E>.self`.
    @available(*, deprecated, message: "use intercept(Sent<E>.self, owner:): its value holds the event and its sender")
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
        intercept(
            Sent<E>.self, owner: owner, key: key, from: sender, priority: priority, once: once, file: file, line: line
        ) {
            try handler($0, $1.event, $1.sender)
        }
    }

    /// Deprecated: ``intercept(_:from:priority:once:receivingCurrent:file:line:_:)-(EventName,_,_,_,_,_,_,_)``.
    @available(*, deprecated, message: "use intercept(name)")
    public func listen<Answer: _PropagationResult>(
        to name: EventName,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (NamedEvent) throws -> Answer
    ) -> Subscription {
        precondition(delivery.isPostingThread && coalescing == nil, Self.stoppingNeedsPostingThread)
        return intercept(
            name, from: sender, priority: priority, once: once, receivingCurrent: receivingCurrent, file: file,
            line: line
        ) { try handler($0)._propagation }
    }

    /// Deprecated: `intercept(name)`.
    @available(*, deprecated, message: "use intercept(name)")
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
        intercept(name, from: sender, priority: priority, once: once, file: file, line: line, handler)
    }

    /// Deprecated: `intercept(name, owner:)`.
    @available(*, deprecated, message: "use intercept(name, owner:)")
    @discardableResult
    public func listen<Owner: AnyObject & Sendable, Answer: _PropagationResult>(
        to name: EventName,
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
        _ handler: @escaping @Sendable (Owner, NamedEvent) throws -> Answer
    ) -> Subscription {
        precondition(delivery.isPostingThread && coalescing == nil, Self.stoppingNeedsPostingThread)
        return intercept(
            name, owner: owner, key: key, from: sender, priority: priority, once: once,
            receivingCurrent: receivingCurrent, file: file, line: line
        ) { try handler($0, $1)._propagation }
    }

    /// Deprecated: `intercept(name, owner:)`.
    @available(*, deprecated, message: "use intercept(name, owner:)")
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
        intercept(
            name, owner: owner, key: key, from: sender, priority: priority, once: once, file: file, line: line, handler)
    }

    /// Deprecated: `intercept(NamedEvent.self)`, which hears every named event.
    @available(*, deprecated, message: "use intercept(NamedEvent.self)")
    @_disfavoredOverload
    public func listenToAllNames(
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (NamedEvent) throws -> Propagation
    ) -> Subscription {
        intercept(NamedEvent.self, from: sender, priority: priority, once: once, file: file, line: line, handler)
    }

    /// Deprecated: `intercept(NamedEvent.self, owner:)`.
    @available(*, deprecated, message: "use intercept(NamedEvent.self, owner:)")
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
        intercept(
            NamedEvent.self, owner: owner, key: key, from: sender, priority: priority, once: once, file: file,
            line: line, handler)
    }
}

// MARK: - Stopping where nothing can stop

// A handler on the main actor or on an actor runs after the dispatch has moved on, so its answer
// could stop nothing. These forms exist so that such a closure fails at once, with a message,
// instead of becoming a listener whose answer is thrown away.

extension EventCenter {
    /// Unusable: only a handler on the dispatching thread can stop propagation; see
    /// ``intercept(_:from:priority:once:receivingCurrent:file:line:_:)-(E.Type,_,_,_,_,_,_,_)``.
    @available(*, deprecated, message: "a main-actor listener cannot stop propagation: use intercept(_:)")
    public func listen<E: Sendable, Answer: _PropagationResult>(
        to type: E.Type,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (E) throws -> Answer
    ) -> Subscription {
        preconditionFailure(Self.stoppingNeedsPostingThread)
    }

    /// Unusable: only a handler on the dispatching thread can stop propagation.
    @available(*, deprecated, message: "a main-actor listener cannot stop propagation: use intercept(_:owner:)")
    @discardableResult
    public func listen<E: Sendable, Owner: AnyObject & Sendable, Answer: _PropagationResult>(
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
        _ handler: @escaping @MainActor @Sendable (Owner, E) throws -> Answer
    ) -> Subscription {
        preconditionFailure(Self.stoppingNeedsPostingThread)
    }

    /// Unusable: only a handler on the dispatching thread can stop propagation.
    @available(*, deprecated, message: "an actor listener cannot stop propagation: use intercept(_:owner:)")
    @discardableResult
    public func listen<E: Sendable, A: Actor, Answer: _PropagationResult>(
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
        _ handler: @escaping @Sendable (isolated A, E) throws -> Answer
    ) -> Subscription {
        preconditionFailure(Self.stoppingNeedsPostingThread)
    }

    /// Unusable: only a handler on the dispatching thread can stop propagation.
    @available(*, deprecated, message: "a main-actor listener cannot stop propagation: use intercept(name)")
    public func listen<Answer: _PropagationResult>(
        to name: EventName,
        on delivery: MainActorDelivery,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (NamedEvent) throws -> Answer
    ) -> Subscription {
        preconditionFailure(Self.stoppingNeedsPostingThread)
    }

    /// Unusable: only a handler on the dispatching thread can stop propagation.
    @available(*, deprecated, message: "a main-actor listener cannot stop propagation: use intercept(name, owner:)")
    @discardableResult
    public func listen<Owner: AnyObject & Sendable, Answer: _PropagationResult>(
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
        _ handler: @escaping @MainActor @Sendable (Owner, NamedEvent) throws -> Answer
    ) -> Subscription {
        preconditionFailure(Self.stoppingNeedsPostingThread)
    }

    /// Unusable: only a handler on the dispatching thread can stop propagation.
    @available(*, deprecated, message: "an actor listener cannot stop propagation: use intercept(name, owner:)")
    @discardableResult
    public func listen<A: Actor, Answer: _PropagationResult>(
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
        _ handler: @escaping @Sendable (isolated A, NamedEvent) throws -> Answer
    ) -> Subscription {
        preconditionFailure(Self.stoppingNeedsPostingThread)
    }
}
