extension EventCenter {
    // MARK: Holding events for their first listener

    /// Delivers `event`, and holds it for the first listener to come when none received it.
    func dispatch<E: Event>(
        _ event: E, from sender: AnyObject?, holdingIfUnheard hold: EventHold, callSite: CallSite
    ) -> Int {
        let key = EventKey(E.self)
        return dispatchHolding(key: key, sender: sender, hold: hold, callSite: callSite) { sequence in
            KeptEvent.typed(event, from: sender, sequence: sequence)
        } snapshot: {
            (registry.snapshot(for: key), familyListeners(of: event))
        } deliver: { listeners in
            deliverKept(event, to: listeners, from: sender, callSite: callSite)
        }
    }

    /// Delivers a named event, and holds it for the first listener to come when none received it.
    func dispatchNamed(
        _ name: EventName, from sender: AnyObject?, data entry: Payload.Entry?, payload: Payload,
        holdingIfUnheard hold: EventHold, callSite: CallSite
    ) -> Int {
        dispatchHolding(key: .name(name.rawValue), sender: sender, hold: hold, callSite: callSite) { sequence in
            KeptEvent.named(name, data: entry, payload: payload, from: sender, sequence: sequence)
        } snapshot: {
            let event = NamedEvent(name: name, sender: nil, data: entry, payload: payload)
            return (registry.namedSnapshot(for: name), familyListeners(of: event))
        } deliver: { listeners in
            let event = NamedEvent(name: name, sender: sender.map(Sender.init), data: entry, payload: payload)
            return deliverKept(event, to: listeners, from: sender, callSite: callSite)
        }
    }

    private func dispatchHolding(
        key: EventKey, sender: AnyObject?, hold: EventHold, callSite: CallSite,
        keep: (UInt64) -> KeptEvent,
        snapshot: () -> (own: ContiguousArray<ListenerRecord>?, families: ContiguousArray<ListenerRecord>?),
        deliver: (ContiguousArray<ListenerRecord>?) -> Int
    ) -> Int {
        let senderID = sender.map(ObjectIdentifier.init)
        // Whether some listener could receive it is decided without loading owners or senders
        // (no weak loads under the lock): a listener whose owner is gone counts here, and the
        // event is held after the delivery instead.
        let (listeners, held) = flowControl.withLock { state -> (ContiguousArray<ListenerRecord>?, HeldOutcome?) in
            let (listeners, families) = snapshot()
            // Family listeners hear the event too: it is held only when neither kind could.
            let isCandidate = { (record: ListenerRecord) in
                record.isActive && (record.senderID == nil || record.senderID == senderID)
            }
            let anyCandidate =
                (listeners?.contains(where: isCandidate) ?? false) || (families?.contains(where: isCandidate) ?? false)
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
            FlowControlState.HeldEvent(
                kept: kept, hold: hold, callSite: callSite, expiry: nil, timeHeld: hold.startTimer()),
            for: key)
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
                .deadEvent, event: event.kept.description, callSite: event.callSite,
                duration: expired ? event.hold.duration : event.timeHeld(), count: 1,
                heldOutcome: expired ? .expired : .droppedOverLimit(limit: event.hold.limit)))
    }
}
