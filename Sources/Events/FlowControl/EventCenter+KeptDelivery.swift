extension EventCenter {
    /// Registers `record` after handing it the kept events it receives: the current values of
    /// its event (with `receivingCurrent`), and the events held for a first listener. They
    /// reach it in its own context, in the order they were kept, before any newer event.
    ///
    /// Each round takes what is there under the flow-control lock and delivers it outside (user
    /// code never runs under a lock); the record joins its list in the same hold of the lock as
    /// the round that finds nothing new, so a dispatch that keeps or holds an event either sees
    /// the record in its snapshot or is seen by a round, never both. A round takes the current
    /// value as it is then: a value kept and replaced by a newer one between two rounds is not
    /// delivered (current values are state, not a log). Held events are each taken by exactly
    /// one round or snapshot. Dispatches that keep nothing and come before the record joins are
    /// not seen: the registration takes effect when the record joins its list.
    func registerReceivingKept(_ record: ListenerRecord, receivingCurrent: Bool) -> Subscription {
        let eventKey = record.eventKey
        let family = record.details?.family
        let filter = record.senderID
        var seen: UInt64 = 0
        while true {
            // A keyed registration that repeats a live one is ignored, as without kept events.
            var version: UInt64?
            if let key = record.key, let slot = record.duplicateSlot, let owner = record.owner {
                let (candidates, listVersion) = registry.duplicateCandidates(in: slot)
                if let existing = candidates.first(where: {
                    $0.isDuplicate(owner: owner, key: key, sender: record.sender)
                }) {
                    // Only reachable after a round delivered to this record and a twin of it was
                    // registered meanwhile: the twin stays, this record never joins.
                    return Subscription(record: existing)
                }
                version = listVersion
            }
            var inserted = false
            var sweepDue = false
            let batch: [KeptEvent] = flowControl.withLock { state in
                let current =
                    receivingCurrent
                    ? state.currentValues(for: eventKey, family: family, filter: filter, after: seen) : []
                let held = state.heldEvents(for: eventKey, family: family, filter: filter)
                var batch = (current + held).sorted { $0.sequence < $1.sequence }
                // A `once` listener takes one event: the oldest. A held event it could not take
                // stays held for the next listener, rather than leaving the hold unheard.
                if record.once { batch = Array(batch.prefix(1)) }
                state.takeHeld(Set(batch.filter { !$0.isCurrentValue(in: current) }.map(\.sequence)))
                guard batch.isEmpty else { return batch }
                let result = registry.insert(record, ifVersion: version)
                inserted = result.inserted
                sweepDue = result.sweepDue
                return []
            }
            if sweepDue { registry.sweep() }
            if inserted {
                if _slowPath(isObserved) { observeRegistration(record) }
                return Subscription(record: record)
            }
            for kept in batch {
                seen = max(seen, kept.sequence)
                let sender = kept.sender?.object
                // A value kept for a sender goes away with it.
                if kept.isPerSender, sender == nil { continue }
                if family == nil {
                    _ = kept.deliver(self, record, sender)
                } else {
                    _ = kept.deliverToFamily(self, record, sender)
                }
            }
            // A `once` listener that took its event is done; it never joins its list, unless it
            // must stay findable by `remove` until its queued delivery runs.
            if !record.isActive {
                if record.belongsInList { _ = registry.insert(record) }
                return Subscription(record: record)
            }
        }
    }
}
