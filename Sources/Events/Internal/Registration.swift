import Synchronization

// One way in: every public `listen` and `intercept` form describes its registration as
// `ListenerOptions` and a handler of the general shape (owner, value, sender), and says where
// the handler runs. What the listener hears follows from the type of value it takes (see
// `Hearing`): an event type's own list, every named event, a family, or the same with senders
// (`Sent`). Named forms pass their name's key instead. From there, one path per kind of handler
// builds the record and puts it in the registry.

/// Everything a registration asks for besides its handler and where it runs.
struct ListenerOptions {
    var owner: (any AnyObject & Sendable)?
    var key: ListenerKey?
    var sender: AnyObject?
    var priority: Priority
    var once: Bool
    var callSite: CallSite
    var receivingCurrent = false
    var coalescing: Coalescing?
    /// Set for family listeners: the family, for matching kept events and for diagnostics.
    var family: FamilyKind?

    init(
        owner: (any AnyObject & Sendable)? = nil, key: ListenerKey? = nil, sender: AnyObject?, priority: Priority,
        once: Bool, callSite: CallSite, receivingCurrent: Bool = false, coalescing: Coalescing? = nil
    ) {
        self.owner = owner
        self.key = key
        self.sender = sender
        self.priority = priority
        self.once = once
        self.callSite = callSite
        self.receivingCurrent = receivingCurrent
        self.coalescing = coalescing
    }
}

/// Where a handler of the general shape runs (actor listeners take their own path, since their
/// handler is isolated to the actor).
enum HandlerPlace {
    case delivery(Delivery.Kind)
    case mainActor(MainActorDelivery)
}

/// What a listener of values of `V` hears, decided by `V` itself.
enum Hearing {
    /// An event type hears its own dispatches; `NamedEvent` hears every named event.
    case events(EventKey)
    /// Any other type (a protocol as `any P`, a class) hears every event that is one.
    case family
    /// `Sent<W>` hears what `W` hears, and hands each event over with its sender.
    case sent(any SentUnwrapping.Type)

    init<V>(of type: V.Type) {
        if let sent = type as? any SentUnwrapping.Type {
            self = .sent(sent)
        } else if type == NamedEvent.self {
            self = .events(.anyName)
        } else if type is any Event.Type {
            self = .events(EventKey(type))
        } else {
            self = .family
        }
    }

    /// The list that listeners of values of `V` are in: where a removal or a count of them looks.
    static func listKey<V>(of type: V.Type) -> EventKey {
        switch Hearing(of: type) {
        case .events(let key): key
        case .family: Family<V>.key
        case .sent(let sent): sent.wrappedListKey
        }
    }
}

extension EventCenter {
    // MARK: Resolving what is heard

    /// Registers a listener of values of `V` whose handler runs at `place`.
    func register<V: Sendable>(
        hearing type: V.Type, options: ListenerOptions, place: HandlerPlace,
        run: @escaping @Sendable (AnyObject?, V, Sender?) throws -> Void
    ) -> Subscription {
        switch Hearing(of: type) {
        case .events(let key):
            return registerEvents(type, eventKey: key, options: options, place: place, run: run)
        case .sent(let sent):
            return sent.register(in: self, options: options, place: place, run: run)
        case .family:
            return register(family: type, options: options, place: place, run: run)
        }
    }

    /// Registers a listener of every event that is a `P` (a protocol or a class), whose handler
    /// runs at `place`.
    func register<P>(
        family type: P.Type, options: ListenerOptions, place: HandlerPlace,
        run: @escaping @Sendable (AnyObject?, P, Sender?) throws -> Void
    ) -> Subscription {
        var options = options
        options.family = FamilyKindOf<P>()
        return fileFamily(of: P.self) {
            registerEvents(FamilyEvent.self, eventKey: Family<P>.key, options: options, place: place) {
                owner, event, sender in try run(owner, event.event.member(of: P.self), sender)
            }
        }
    }

    /// Registers a listener of values of `V` whose handler runs isolated to `actor`.
    func register<V: Sendable, A: Actor>(
        hearing type: V.Type, actor: A, options: ListenerOptions,
        run: @escaping @Sendable (isolated A, V, Sender?) throws -> Void
    ) -> Subscription {
        switch Hearing(of: type) {
        case .events(let key):
            return registerEvents(type, eventKey: key, actor: actor, options: options, run: run)
        case .sent(let sent):
            return sent.register(in: self, actor: actor, options: options, run: run)
        case .family:
            var options = options
            options.family = FamilyKindOf<V>()
            return fileFamily(of: V.self) {
                registerEvents(FamilyEvent.self, eventKey: Family<V>.key, actor: actor, options: options) {
                    actor, event, sender in try run(actor, event.event.member(of: V.self), sender)
                }
            }
        }
    }

    /// Registers a posting-thread listener of values of `V` that may stop propagation.
    func register<V: Sendable>(
        stopping type: V.Type, options: ListenerOptions,
        run: @escaping @Sendable (AnyObject?, V, Sender?) throws -> Propagation
    ) -> Subscription {
        switch Hearing(of: type) {
        case .events(let key):
            return registerStopping(type, eventKey: key, options: options, handler: run)
        case .sent(let sent):
            return sent.register(in: self, stoppingWith: options, run: run)
        case .family:
            var options = options
            options.family = FamilyKindOf<V>()
            return fileFamily(of: V.self) {
                registerStopping(FamilyEvent.self, eventKey: Family<V>.key, options: options) {
                    owner, event, sender in try run(owner, event.event.member(of: V.self), sender)
                }
            }
        }
    }

    /// Files the family, puts its listener in the registry (or finds its duplicate), then sets
    /// the family flag, after the record is in: see `FamilyIndex` for why that order keeps the
    /// flag right.
    private func fileFamily<P>(of family: P.Type, register: () -> Subscription) -> Subscription {
        // Filed first: a dispatch that begins after this registration returns finds the family
        // in the index, so its matches are worked out again.
        registry.families.add(FamilyKindOf<P>())
        let subscription = register()
        registry.countFamilyLists(adding: Family<P>.key)
        registry.families.markPresent(in: self)
        return subscription
    }

    // MARK: Building the records

    /// The details of a record of `E` in the list of `eventKey`: a typed record's key follows
    /// from its class; any other (a name, every name, a family) is kept, with a sequence that
    /// orders it among the lists it is merged with.
    func details<E>(of type: E.Type, eventKey: EventKey, options: ListenerOptions) -> ListenerDetails? {
        let isTyped = eventKey == EventKey(E.self)
        return ListenerDetails.make(
            eventKey: isTyped ? nil : eventKey, sequence: isTyped ? 0 : nextSequence(), priority: options.priority,
            key: options.key, owner: options.owner, sender: options.sender, family: options.family)
    }

    /// Registers a listener of the list `eventKey`, whose handler runs at `place`.
    func registerEvents<E: Sendable>(
        _ type: E.Type, eventKey: EventKey, options: ListenerOptions, place: HandlerPlace,
        run: @escaping @Sendable (AnyObject?, E, Sender?) throws -> Void
    ) -> Subscription {
        let route: (any AsyncRoute<E>)?
        let context: ListenerContext
        switch place {
        case .delivery(let delivery):
            if let coalescing = options.coalescing {
                return registerCoalesced(
                    type, eventKey: eventKey, options: options, delivery: delivery, coalescing: coalescing, run: run)
            }
            if case .postingThread = delivery {
                route = nil
            } else {
                route = SerialRoute(mailbox: makeMailbox(for: delivery), inlineOnMainThread: false, run: run)
            }
            context = ListenerContext(delivery)
        case .mainActor(let delivery):
            if let coalescing = options.coalescing {
                return registerCoalescedOnMainActor(
                    type, eventKey: eventKey, options: options, delivery: delivery, coalescing: coalescing, run: run)
            }
            route = SerialRoute(mailbox: makeMainMailbox(), inlineOnMainThread: delivery == .main, run: run)
            context = .mainActor(delivery)
        }
        let details = details(of: type, eventKey: eventKey, options: options)
        let record: ListenerRecord
        if let route {
            record = RoutedRecord<E>(
                registry: registry, once: options.once, callSite: options.callSite, details: details, route: route,
                context: context)
        } else {
            record = HandlerRecord<E>(
                registry: registry, once: options.once, callSite: options.callSite, details: details, handler: run)
        }
        return register(record, receivingCurrent: options.receivingCurrent)
    }

    /// Registers a listener of the list `eventKey` whose handler runs isolated to `actor`, which
    /// is held weakly, as an owner.
    func registerEvents<E: Sendable, A: Actor>(
        _ type: E.Type, eventKey: EventKey, actor: A, options: ListenerOptions,
        run: @escaping @Sendable (isolated A, E, Sender?) throws -> Void
    ) -> Subscription {
        var options = options
        options.owner = actor
        if let coalescing = options.coalescing {
            return registerCoalesced(
                type, eventKey: eventKey, actor: actor, options: options, coalescing: coalescing, handler: run)
        }
        let record = RoutedRecord<E>(
            registry: registry, once: options.once, callSite: options.callSite,
            details: details(of: type, eventKey: eventKey, options: options), route: ActorRoute<E, A>(handler: run),
            context: .actor(TypeIdentity(A.self)))
        return register(record, receivingCurrent: options.receivingCurrent)
    }

    /// Registers a posting-thread listener of the list `eventKey` that may stop propagation.
    func registerStopping<E: Sendable>(
        _ type: E.Type, eventKey: EventKey, options: ListenerOptions,
        handler: @escaping @Sendable (AnyObject?, E, Sender?) throws -> Propagation
    ) -> Subscription {
        let record = StoppingHandlerRecord<E>(
            registry: registry, once: options.once, callSite: options.callSite,
            details: details(of: type, eventKey: eventKey, options: options), handler: handler)
        // Set before the record can be in any snapshot: a dispatch reads the flags after taking
        // its snapshot, so one that finds this record finds the flag too, and takes the loop
        // that can stop.
        flags.bitwiseOr(SlowPathFlags.stoppers, ordering: .releasing)
        return register(record, receivingCurrent: options.receivingCurrent)
    }

    /// The owner handed to a handler of the general shape, as the type it was registered with.
    static func typedOwner<Owner: AnyObject>(_ owner: AnyObject?, as type: Owner.Type) -> Owner {
        // Unchecked: a checked cast is a runtime call on every delivery. Safe because the owner
        // handed to a handler is the one loaded from the listener's own record (by the dispatch
        // loop, or when a queued delivery's turn comes), which holds the very `Owner` registered,
        // and it is handed on only when it is not nil.
        unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self)
    }
}

// MARK: Sent

/// What `Hearing` needs of `Sent<W>` without knowing `W`: the same registrations for `W`, each
/// handing its handler a `Sent<W>`.
protocol SentUnwrapping {
    static var wrappedListKey: EventKey { get }

    static func register<V>(
        in center: EventCenter, options: ListenerOptions, place: HandlerPlace,
        run: @escaping @Sendable (AnyObject?, V, Sender?) throws -> Void
    ) -> Subscription

    static func register<V, A: Actor>(
        in center: EventCenter, actor: A, options: ListenerOptions,
        run: @escaping @Sendable (isolated A, V, Sender?) throws -> Void
    ) -> Subscription

    static func register<V>(
        in center: EventCenter, stoppingWith options: ListenerOptions,
        run: @escaping @Sendable (AnyObject?, V, Sender?) throws -> Propagation
    ) -> Subscription
}

extension Sent: SentUnwrapping {
    static var wrappedListKey: EventKey { Hearing.listKey(of: Wrapped.self) }

    // `V` is `Sent<Wrapped>` itself (`Hearing` found this conformance on `V`), so each cast of a
    // handler below is from a type to itself: done once per registration, it cannot fail.

    static func register<V>(
        in center: EventCenter, options: ListenerOptions, place: HandlerPlace,
        run: @escaping @Sendable (AnyObject?, V, Sender?) throws -> Void
    ) -> Subscription {
        let run = run as! @Sendable (AnyObject?, Sent<Wrapped>, Sender?) throws -> Void
        return center.register(hearing: Wrapped.self, options: options, place: place) { owner, event, sender in
            try run(owner, Sent(event: event, sender: sender), sender)
        }
    }

    static func register<V, A: Actor>(
        in center: EventCenter, actor: A, options: ListenerOptions,
        run: @escaping @Sendable (isolated A, V, Sender?) throws -> Void
    ) -> Subscription {
        let run = run as! @Sendable (isolated A, Sent<Wrapped>, Sender?) throws -> Void
        return center.register(hearing: Wrapped.self, actor: actor, options: options) { actor, event, sender in
            try run(actor, Sent(event: event, sender: sender), sender)
        }
    }

    static func register<V>(
        in center: EventCenter, stoppingWith options: ListenerOptions,
        run: @escaping @Sendable (AnyObject?, V, Sender?) throws -> Propagation
    ) -> Subscription {
        let run = run as! @Sendable (AnyObject?, Sent<Wrapped>, Sender?) throws -> Propagation
        return center.register(stopping: Wrapped.self, options: options) { owner, event, sender in
            try run(owner, Sent(event: event, sender: sender), sender)
        }
    }
}
