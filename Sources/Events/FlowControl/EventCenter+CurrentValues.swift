extension EventCenter {
    // MARK: Keeping current values

    /// The path of `dispatch` for what it does beyond a plain dispatch: keeping the event as the
    /// current value, holding it if unheard, or dispatching a `NamedEvent` under its name.
    ///
    /// `payload` is the event kept, made by the specialized caller for a typed event that is
    /// kept as the current value (nil otherwise, or to make it here).
    @usableFromInline
    func dispatch<E: Event>(
        _ event: E, from sender: AnyObject?, keepingCurrent scope: CurrentValueScope?,
        holdingIfUnheard hold: EventHold?,
        callSite: CallSite, payload: KeptPayload? = nil
    ) -> Int {
        precondition(scope == nil || hold == nil, Self.keepOrHold)
        // A metatype comparison first: the dynamic cast, costly in this unspecialized code, is
        // paid by named events alone.
        if E.self == NamedEvent.self, let named = event as? NamedEvent {
            return dispatchNamed(
                named.name, from: sender, data: named.data, payload: named.payload, keepingCurrent: scope,
                holdingIfUnheard: hold, callSite: callSite)
        }
        if let hold { return dispatch(event, from: sender, holdingIfUnheard: hold, callSite: callSite) }
        let key = EventKey(E.self)
        let (listeners, kept) = flowControl.withLock { state in
            let sequence = state.nextSequence()
            let kept =
                if let payload { KeptEvent.typed(payload, from: sender, sequence: sequence) } else {
                    KeptEvent.typed(event, from: sender, sequence: sequence)
                }
            return (registry.snapshot(for: key), state.keep(kept, for: key, scope: scope ?? .perType))
        }
        withExtendedLifetime(kept.replaced) {}
        purgeDeadSenders(kept.toCheck)
        return deliverKept(event, to: listeners, from: sender, callSite: callSite)
    }

    static let keepOrHold =
        "dispatch keeps an event as the current value or holds it until heard, not both: a current value "
        + "already reaches listeners that register later with receivingCurrent: true"

    /// Keeps a named event as the current value of its name, then delivers it.
    func dispatchNamed(
        _ name: EventName, from sender: AnyObject?, data entry: Payload.Entry?, payload: Payload,
        keepingCurrent scope: CurrentValueScope, callSite: CallSite
    ) -> Int {
        let (listeners, kept) = flowControl.withLock { state in
            let kept = KeptEvent.named(
                name, data: entry, payload: payload, from: sender, sequence: state.nextSequence())
            return (registry.namedSnapshot(for: name), state.keep(kept, for: .name(name.rawValue), scope: scope))
        }
        withExtendedLifetime(kept.replaced) {}
        purgeDeadSenders(kept.toCheck)
        let event = NamedEvent(name: name, sender: sender.map(Sender.init), data: entry, payload: payload)
        return deliverKept(event, to: listeners, from: sender, callSite: callSite)
    }

    // MARK: Reading and clearing

    /// The current value of `E` kept per type (``CurrentValueScope/perType``), or nil.
    ///
    /// ```swift
    /// if let cart = center.currentValue(of: CartChanged.self) { badge.count = cart.items }
    /// ```
    public func currentValue<E: Event>(of type: E.Type) -> E? {
        flowControl.withLock { $0.perType[EventKey(type)] }?.value(nil) as? E
    }

    /// The current value of `E` kept for `sender` (``CurrentValueScope/perSender``), or nil.
    public func currentValue<E: Event>(of type: E.Type, from sender: AnyObject) -> E? {
        keptValue(for: EventKey(type), from: sender) as? E
    }

    /// The current value of the event named `name` kept per name, or nil.
    public func currentValue(named name: EventName) -> NamedEvent? {
        guard let kept = flowControl.withLock({ $0.perType[.name(name.rawValue)] }) else { return nil }
        return kept.value(kept.sender?.object) as? NamedEvent
    }

    /// The current value of the event named `name` kept for `sender`, or nil.
    public func currentValue(named name: EventName, from sender: AnyObject) -> NamedEvent? {
        keptValue(for: .name(name.rawValue), from: sender) as? NamedEvent
    }

    /// Forgets every current value of `E`: the per-type one and those of each sender. Listeners
    /// that register afterwards start without one.
    public func clearCurrentValue<E: Event>(of type: E.Type) {
        clearKept(for: EventKey(type), from: nil)
    }

    /// Forgets the current value of `E` kept for `sender`.
    public func clearCurrentValue<E: Event>(of type: E.Type, from sender: AnyObject) {
        clearKept(for: EventKey(type), from: sender)
    }

    /// Forgets every current value of the event named `name`.
    public func clearCurrentValue(named name: EventName) {
        clearKept(for: .name(name.rawValue), from: nil)
    }

    /// Forgets the current value of the event named `name` kept for `sender`.
    public func clearCurrentValue(named name: EventName, from sender: AnyObject) {
        clearKept(for: .name(name.rawValue), from: sender)
    }

    // MARK: Internals

    /// Delivers an event whose snapshot was taken with the flow-control lock held.
    func deliverKept<E: Event>(
        _ event: E, to listeners: ContiguousArray<ListenerRecord>?, from sender: AnyObject?, callSite: CallSite
    ) -> Int {
        if needsSlowDispatch { return slowDispatch(event, to: listeners, from: sender, callSite: callSite).delivered }
        guard let listeners else { return 0 }
        return deliver(event, to: listeners, from: sender)
    }

    private func keptValue(for key: EventKey, from sender: AnyObject) -> (any Event)? {
        let id = ObjectIdentifier(sender)
        guard let kept = flowControl.withLock({ $0.perSender[key]?[id] }) else { return nil }
        // Another object may have taken a dead sender's address: compare the objects.
        guard kept.sender?.object === sender else { return nil }
        return kept.value(sender)
    }

    private func clearKept(for key: EventKey, from sender: AnyObject?) {
        // The kept events are released after unlocking: releasing one may end its last reference.
        let removed: [KeptEvent] = flowControl.withLock { state in
            guard let sender else {
                let removed = [state.removeCurrentValue(for: key)].compactMap { $0 }
                return removed + (state.perSender.removeValue(forKey: key).map { Array($0.values) } ?? [])
            }
            return [state.perSender[key]?.removeValue(forKey: ObjectIdentifier(sender))].compactMap { $0 }
        }
        withExtendedLifetime(removed) {}
    }

    /// Drops the per-sender current values among `candidates` whose sender is gone.
    private func purgeDeadSenders(_ candidates: [KeptEvent]) {
        guard !candidates.isEmpty else { return }
        let dead = candidates.filter { $0.sender?.object == nil }
        flowControl.withLock { $0.dropDeadSenders(dead) }
    }
}
