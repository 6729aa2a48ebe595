extension EventCenter {
    // MARK: Keeping current values

    /// Delivers `event` as ``dispatch(_:from:file:line:)-(E,_,_,_)`` does, and keeps it as the current
    /// value of its type (or of its type and sender), for listeners that register later with
    /// `receivingCurrent: true` and for ``currentValue(of:)``.
    ///
    /// ```swift
    /// center.dispatch(CartChanged(items: cart.count), from: cart, keepingCurrent: .perType)
    /// ```
    ///
    /// A listener registered with `receivingCurrent: true` gets the current value in its own
    /// context when it registers, before any newer event, and never twice: a listener that
    /// registers while this dispatch runs gets the event either from the dispatch or as the
    /// current value. Current values are state rather than a log: while a listener registers,
    /// a value that another thread replaces at once may reach it only as the newer value. From
    /// the moment `listen` returns, it receives every event. See ``CurrentValueScope`` for what
    /// is kept.
    ///
    /// - Returns: The number of listeners that received the event, as `dispatch` returns it.
    @discardableResult
    public func dispatch<E: Event>(
        _ event: E, from sender: AnyObject? = nil, keepingCurrent scope: CurrentValueScope,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Int {
        let key = EventKey(E.self)
        let (listeners, toCheck) = flowControl.withLock { state in
            let kept = KeptEvent.typed(event, from: sender, sequence: state.nextSequence())
            let toCheck = state.keep(kept, for: key, scope: scope)
            return (registry.snapshot(for: key), toCheck)
        }
        purgeDeadSenders(toCheck)
        return deliverKept(event, to: listeners, from: sender, callSite: CallSite(fileID: file, line: line))
    }

    /// Dispatches an event named `name` as `dispatch(_:from:data:payload:file:line:)` does, and
    /// keeps it as the name's current value (per name, or per name and sender).
    ///
    /// ```swift
    /// center.dispatch("theme.changed", data: "dark", keepingCurrent: .perType)
    /// let current = center.currentValue(named: "theme.changed")
    /// ```
    @discardableResult
    public func dispatch(
        _ name: EventName,
        from sender: AnyObject? = nil,
        data: (any Sendable)? = nil,
        payload: Payload = Payload(),
        keepingCurrent scope: CurrentValueScope,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Int {
        let entry = data.map { Payload.Entry.value($0) }
        let (listeners, toCheck) = flowControl.withLock { state in
            let kept = KeptEvent.named(
                name, data: entry, payload: payload, from: sender, sequence: state.nextSequence())
            let toCheck = state.keep(kept, for: .name(name.rawValue), scope: scope)
            return (registry.namedSnapshot(for: name), toCheck)
        }
        purgeDeadSenders(toCheck)
        let event = NamedEvent(name: name, sender: sender.map(Sender.init), data: entry, payload: payload)
        return deliverKept(event, to: listeners, from: sender, callSite: CallSite(fileID: file, line: line))
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
                let removed = [state.perType.removeValue(forKey: key)].compactMap { $0 }
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
