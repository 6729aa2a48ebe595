import Synchronization

extension EventCenter {
    // MARK: Dispatching with a result

    /// Delivers `event` as ``dispatch(_:from:keepingCurrent:holdingIfUnheard:file:line:)`` does, and says whether a listener
    /// stopped its propagation, and which.
    ///
    /// ```swift
    /// let result = center.dispatchWithResult(Checkout(total: 0))
    /// if result.isStopped { showError() }
    /// ```
    @discardableResult
    public func dispatchWithResult<E: Event>(
        _ event: E, from sender: AnyObject? = nil, file: StaticString = #fileID, line: UInt = #line
    ) -> DispatchResult {
        if let named = event as? NamedEvent {
            return dispatchWithResult(
                named.name, from: sender, data: named.data, payload: named.payload,
                callSite: CallSite(fileID: file, line: line))
        }
        let listeners = registry.snapshot(for: EventKey(E.self))
        if needsSlowDispatch {
            let outcome = slowDispatch(
                event, to: listeners, from: sender, callSite: CallSite(fileID: file, line: line))
            return DispatchResult(received: outcome.delivered, stopper: outcome.stoppedBy)
        }
        guard let listeners else { return DispatchResult(received: 0, stopper: nil) }
        let outcome = deliverStoppable(event, to: listeners, from: sender)
        return DispatchResult(received: outcome.delivered, stopper: outcome.stoppedBy)
    }

    /// Dispatches an event named `name` as `dispatch(_:from:data:payload:file:line:)` does, and
    /// says whether a listener stopped its propagation, and which.
    @discardableResult
    public func dispatchWithResult(
        _ name: EventName,
        from sender: AnyObject? = nil,
        data: (any Sendable)? = nil,
        payload: Payload = Payload(),
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> DispatchResult {
        dispatchWithResult(
            name, from: sender, data: data.map { .value($0) }, payload: payload,
            callSite: CallSite(fileID: file, line: line))
    }

    private func dispatchWithResult(
        _ name: EventName, from sender: AnyObject?, data: Payload.Entry?, payload: Payload, callSite: CallSite
    ) -> DispatchResult {
        let listeners = registry.namedSnapshot(for: name)
        let event = NamedEvent(name: name, sender: sender.map(Sender.init), data: data, payload: payload)
        if needsSlowDispatch {
            let outcome = slowDispatch(event, to: listeners, from: sender, callSite: callSite)
            return DispatchResult(received: outcome.delivered, stopper: outcome.stoppedBy)
        }
        guard let listeners else { return DispatchResult(received: 0, stopper: nil) }
        let outcome = deliverStoppable(event, to: listeners, from: sender)
        return DispatchResult(received: outcome.delivered, stopper: outcome.stoppedBy)
    }
}
