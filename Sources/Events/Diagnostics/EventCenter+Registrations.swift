extension EventCenter {
    // MARK: Inspecting registrations

    /// Every live listener of this center: event, owner type, key, priority, context, call
    /// site, events received and failures. Print it for a table, or encode it.
    ///
    /// ```swift
    /// print(center.registrations())
    /// ```
    ///
    /// Listeners whose owner or sender is gone are not listed (and are reclaimed). Safe from
    /// any thread; the report is a copy taken at one moment, listener list by listener list.
    public func registrations() -> EventRegistrations {
        report { _ in true }
    }

    /// The live listeners that `owner` registered (with `owner:` or `isolatedTo:`), for every
    /// event.
    ///
    /// ```swift
    /// #expect(center.registrations(ownedBy: model).count == 0, "\(center.registrations(ownedBy: model))")
    /// ```
    public func registrations(ownedBy owner: AnyObject) -> EventRegistrations {
        let ownerID = ObjectIdentifier(owner)
        return report { $0.ownerID == ownerID && $0.owner === owner }
    }

    /// How many listeners this center has, for every event type and name.
    ///
    /// Listeners whose owner or sender has deinitialized are not counted (and are reclaimed).
    public var listenerCount: Int {
        liveRecords { _ in true }.count
    }

    /// How many live listeners `owner` registered (with `owner:` or `isolatedTo:`), for every
    /// event type and name.
    public func listenerCount(ownedBy owner: AnyObject) -> Int {
        let ownerID = ObjectIdentifier(owner)
        return liveRecords { $0.ownerID == ownerID && $0.owner === owner }.count
    }

    // MARK: Removing every listener of an event

    /// Ends every listener of events of type `E`, whoever registered it: closure listeners,
    /// owner-bound ones, actor-isolated ones, async sequences (which then finish).
    ///
    /// ```swift
    /// center.removeAllListeners(for: PostWritten.self)
    /// ```
    ///
    /// As with `remove`, no removed handler is started again once this returns; events already
    /// queued for them in other contexts are skipped. Their subscriptions report
    /// `isActive == false`.
    ///
    /// An ``EventStream`` of `E` finishes: its consumer takes the events buffered before the
    /// removal, then its `for await` loop ends (at once, for a consumer waiting for an event).
    /// Until they are taken, those events keep ``idle(isolation:)`` waiting, as before the
    /// removal; a stream let go drops them.
    public func removeAllListeners<E: Sendable>(for type: E.Type) {
        endListeners(of: Hearing.listKey(of: type))
    }

    /// Ends every listener of the event named `name`, whoever registered it. Listeners to
    /// every name stay; end those with `removeAllListeners(for: NamedEvent.self)`.
    ///
    /// A stream of `events(named: name)` finishes, as ``removeAllListeners(for:)-(E.Type)``
    /// describes.
    public func removeAllListeners(for name: EventName) {
        endListeners(of: .name(name.rawValue))
    }

    /// Ends every listener of this center, of every event type and name.
    ///
    /// Every stream of the center finishes, as ``removeAllListeners(for:)-(E.Type)`` describes.
    public func removeAllListeners() {
        for (key, _) in registry.snapshotAll() { endListeners(of: key) }
    }

    // MARK: Helpers

    private func endListeners(of key: EventKey) {
        guard let records = registry.snapshot(for: key) else { return }
        var cancelled: [ListenerRecord] = []
        for record in records {
            if record.isRetiredOnlyByCancel {
                // Only `Registry.cancel(_:)` changes such a record's state.
                if registry.cancel(record) { cancelled.append(record) }
            } else if record.retire(.cancelled) {
                cancelled.append(record)
            }
        }
        registry.purge(key)
        for record in cancelled where record.traits.contains(.cancelHook) { record.didCancel() }
    }

    /// The live records that match, list by list; reclaims the dead ones it finds.
    private func liveRecords(where matches: (ListenerRecord) -> Bool) -> [(key: EventKey, record: ListenerRecord)] {
        var live: [(key: EventKey, record: ListenerRecord)] = []
        var dead: [EventKey] = []
        for (key, records) in registry.snapshotAll() {
            var sawDead = false
            for record in records {
                if record.checkLiveness() {
                    if matches(record) { live.append((key, record)) }
                } else {
                    sawDead = true
                }
            }
            if sawDead { dead.append(key) }
        }
        if !dead.isEmpty { registry.purge(dead) }
        return live
    }

    private func report(where matches: (ListenerRecord) -> Bool) -> EventRegistrations {
        let counting = diagnosticsState.diagnostics.countsDeliveries
        let rows = liveRecords(where: matches).map { _, record in
            EventRegistrations.Listener(
                record, counting: counting, failures: diagnosticsState.failureCount(of: record))
        }
        // Stable: within an event, the registry's order, which is the order of delivery.
        let grouped = rows.enumerated().sorted { ($0.element.event, $0.offset) < ($1.element.event, $1.offset) }
        return EventRegistrations(listeners: grouped.map(\.element))
    }
}

extension EventRegistrations.Listener {
    init(_ record: ListenerRecord, counting: Bool, failures: Int) {
        let owner = record.owner
        self.init(
            event: EventCenter.eventLabel(of: record),
            ownerType: owner.map { String(describing: type(of: $0)) },
            key: record.key.map { String(describing: $0.base.base) },
            priority: Self.describe(record.priority),
            context: record.context.description,
            senderType: record.sender.map { String(describing: type(of: $0)) },
            isOnce: record.once,
            fileID: record.callSite.fileID,
            line: record.callSite.line,
            received: counting ? record.deliveryCount : nil,
            failures: failures)
    }

    private static func describe(_ priority: Priority) -> String {
        switch priority {
        case .default: "default"
        case .high: "high"
        case .low: "low"
        default: priority.description
        }
    }
}
