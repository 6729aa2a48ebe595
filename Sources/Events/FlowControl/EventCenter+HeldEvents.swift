extension EventCenter {
    // MARK: Holding events for their first listener

    /// Delivers `event` as ``dispatch(_:from:file:line:)`` does; when no listener receives it,
    /// holds it for the first listener of `E` that registers, which receives it once.
    ///
    /// ```swift
    /// center.dispatch(DeepLinkOpened(url: url), holdingIfUnheard: .for(.seconds(10)))
    /// ```
    ///
    /// Use it for one-shot events that may come before anybody listens: a deep link or a push
    /// notification at launch, an error raised before its screen appeared. See ``EventHold``
    /// for the rules: delivered once, in order, never replayed, bounded, reported when it
    /// expires unheard.
    ///
    /// - Returns: The number of listeners that received the event now; 0 when it was held.
    @discardableResult
    public func dispatch<E: Event>(
        _ event: E, from sender: AnyObject? = nil, holdingIfUnheard hold: EventHold,
        file: StaticString = #fileID, line: UInt = #line
    ) -> Int {
        let key = EventKey(E.self)
        let callSite = CallSite(fileID: file, line: line)
        return dispatchHolding(key: key, sender: sender, hold: hold, callSite: callSite) { sequence in
            KeptEvent.typed(event, from: sender, sequence: sequence)
        } snapshot: {
            registry.snapshot(for: key)
        } deliver: { listeners in
            deliverKept(event, to: listeners, from: sender, callSite: callSite)
        }
    }

    /// Dispatches an event named `name` as `dispatch(_:from:data:payload:file:line:)` does;
    /// when no listener receives it, holds it for the first listener of the name (or of every
    /// name) that registers. See ``EventHold``.
    @discardableResult
    public func dispatch(
        _ name: EventName,
        from sender: AnyObject? = nil,
        data: (any Sendable)? = nil,
        payload: Payload = Payload(),
        holdingIfUnheard hold: EventHold,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Int {
        let entry = data.map { Payload.Entry.value($0) }
        let callSite = CallSite(fileID: file, line: line)
        return dispatchHolding(key: .name(name.rawValue), sender: sender, hold: hold, callSite: callSite) { sequence in
            KeptEvent.named(name, data: entry, payload: payload, from: sender, sequence: sequence)
        } snapshot: {
            registry.namedSnapshot(for: name)
        } deliver: { listeners in
            let event = NamedEvent(name: name, sender: sender.map(Sender.init), data: entry, payload: payload)
            return deliverKept(event, to: listeners, from: sender, callSite: callSite)
        }
    }

    /// Delivers to the listeners there are, or holds the event when none could receive it.
    private func dispatchHolding(
        key: EventKey, sender: AnyObject?, hold: EventHold, callSite: CallSite,
        keep: (UInt64) -> KeptEvent,
        snapshot: () -> ContiguousArray<ListenerRecord>?,
        deliver: (ContiguousArray<ListenerRecord>?) -> Int
    ) -> Int {
        let senderID = sender.map(ObjectIdentifier.init)
        // Whether some listener could receive it is decided without loading owners or senders
        // (no weak loads under the lock): a listener whose owner is gone counts here, and the
        // event is held after the delivery instead.
        let (listeners, held) = flowControl.withLock { state -> (ContiguousArray<ListenerRecord>?, HeldOutcome?) in
            let listeners = snapshot()
            let anyCandidate =
                listeners?.contains { $0.isActive && ($0.senderID == nil || $0.senderID == senderID) } ?? false
            if anyCandidate { return (listeners, nil) }
            return (nil, holdLocked(keep(state.nextSequence()), key: key, hold: hold, callSite: callSite, in: &state))
        }
        if let held {
            finishHolding(held, key: key)
            return 0
        }
        let delivered = deliver(listeners)
        if delivered == 0 {
            let held = flowControl.withLock { state in
                holdLocked(keep(state.nextSequence()), key: key, hold: hold, callSite: callSite, in: &state)
            }
            finishHolding(held, key: key)
        }
        return delivered
    }

    /// What holding an event did: the event held, and the one it pushed out, if any.
    private struct HeldOutcome {
        let sequence: UInt64
        let hold: EventHold
        let dropped: FlowControlState.HeldEvent?
    }

    private func holdLocked(
        _ kept: KeptEvent, key: EventKey, hold: EventHold, callSite: CallSite, in state: inout FlowControlState.State
    ) -> HeldOutcome {
        let dropped = state.hold(
            FlowControlState.HeldEvent(kept: kept, hold: hold, callSite: callSite, expiry: nil), for: key)
        return HeldOutcome(sequence: kept.sequence, hold: hold, dropped: dropped)
    }

    /// Starts the held event's expiry, and reports the event it pushed out.
    private func finishHolding(_ held: HeldOutcome, key: EventKey) {
        if let dropped = held.dropped { reportUnheard(dropped, expired: false) }
        let sleep = held.hold.sleep
        let sequence = held.sequence
        let expiry = Task { [weak self] in
            do {
                try await sleep()
            } catch {
                return  // cancelled: delivered, dropped, or the center is gone
            }
            self?.expireHeld(sequence, key: key)
        }
        let kept = flowControl.withLock { $0.setExpiry(expiry, for: sequence, key: key) }
        if !kept { expiry.cancel() }
    }

    private func expireHeld(_ sequence: UInt64, key: EventKey) {
        guard let event = flowControl.withLock({ $0.expire(sequence, for: key) }) else { return }
        reportUnheard(event, expired: true)
    }

    private func reportUnheard(_ event: FlowControlState.HeldEvent, expired: Bool) {
        diagnosticsState.warn(
            EventWarning(
                .deadEvent, event: event.kept.description, callSite: event.callSite, duration: event.hold.duration,
                count: expired ? 1 : event.hold.limit, heldOutcome: expired ? .expired : .droppedOverLimit))
    }
}
