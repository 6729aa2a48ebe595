extension EventCenter {
    /// Ends every listener that `owner` registered, for every event type and key.
    ///
    /// Removing what is not registered does nothing. After this returns, none of the removed
    /// handlers is started again: events already queued for them in another context (a queue,
    /// the main actor, an actor) are skipped when their turn comes, a `once` listener's single
    /// event among them. The same holds for every variant below. Safe from any thread,
    /// including from inside a handler.
    public func remove(_ owner: AnyObject) {
        removeListeners(of: owner, in: nil) { _ in true }
    }

    /// Ends the listeners that `owner` registered for events of type `E`, whatever their key.
    public func remove<E: Sendable>(_ owner: AnyObject, for type: E.Type) {
        removeListeners(of: owner, in: Hearing.listKey(of: type)) { _ in true }
    }

    /// Ends the listeners that `owner` registered with `key`, for every event type.
    public func remove(_ owner: AnyObject, key: some Hashable & Sendable) {
        let key = ListenerKey(key)
        removeListeners(of: owner, in: nil) { $0.key == key }
    }

    /// Ends the listener that `owner` registered with `key` for events of type `E`.
    public func remove<E: Sendable>(_ owner: AnyObject, key: some Hashable & Sendable, for type: E.Type) {
        let key = ListenerKey(key)
        removeListeners(of: owner, in: Hearing.listKey(of: type)) { $0.key == key }
    }

    /// Retires the matching records, then purges their lists. Matching runs outside the registry
    /// lock: it loads weak references and calls the key's `==`. Comparing the owner's weak
    /// reference is safe because the caller holds `owner`, so the load cannot release a last
    /// reference.
    func removeListeners(
        of owner: AnyObject, in eventKey: EventKey?, where matches: (ListenerRecord) -> Bool
    ) {
        let ownerID = ObjectIdentifier(owner)
        let lists: [(key: EventKey, records: ContiguousArray<ListenerRecord>)]
        if let eventKey {
            guard let records = registry.snapshot(for: eventKey) else { return }
            lists = [(eventKey, records)]
        } else {
            lists = registry.snapshotAll()
        }
        var touched: [EventKey] = []
        var hooked: [ListenerRecord] = []
        for (key, records) in lists {
            var retiredAny = false
            for record in records where record.ownerID == ownerID && record.owner === owner && matches(record) {
                guard record.retire(.cancelled) else { continue }
                retiredAny = true
                if record.traits.contains(.cancelHook) { hooked.append(record) }
            }
            if retiredAny { touched.append(key) }
        }
        if !touched.isEmpty { registry.purge(touched) }
        // As `removeAllListeners` does: a record with something to tear down (a coalesced
        // listener's timer and waiting event) is told after it left its list.
        for record in hooked { record.didCancel() }
    }
}
