import Synchronization

extension EventCenter {
    /// What this center watches for: delivery counts, the topology, and the checks behind
    /// ``warningHandler``. Off by default; a center with diagnostics off (and no ``tracer``)
    /// dispatches exactly as it would without them.
    ///
    /// ```swift
    /// center.diagnostics = .development
    /// center.diagnostics.slowListenerThreshold = .milliseconds(8)
    /// ```
    ///
    /// Changes apply to dispatches and registrations that begin afterwards.
    public var diagnostics: EventDiagnostics {
        get { diagnosticsState.diagnostics }
        set { diagnosticsState.update({ options, _ in options = newValue }, flag: setObserved) }
    }

    /// Receives each dispatch and each queued delivery of this center, as it happens; nil (the
    /// default) for none. See ``EventTracer`` and the ready-made ``TimelineTracer``.
    ///
    /// ```swift
    /// center.tracer = TimelineTracer()
    /// ```
    public var tracer: (any EventTracer)? {
        get { diagnosticsState.currentTracer }
        set { diagnosticsState.update({ _, tracer in tracer = newValue }, flag: setObserved) }
    }

    /// Where the warnings of ``diagnostics`` go: dead events, slow listeners, likely leaks and
    /// deep nesting. The default prints one line per warning to standard error.
    ///
    /// Redirect it to your logging, or collect warnings in a test:
    ///
    /// ```swift
    /// center.warningHandler = { warning in
    ///     print("[\(warning.kind)] \(warning)")
    /// }
    /// ```
    ///
    /// It is called on the thread of the dispatch or registration that raised the warning (a
    /// slow queued listener: in its context), never under a lock of the center, and must not
    /// block.
    public var warningHandler: @Sendable (EventWarning) -> Void {
        get { diagnosticsState.warningHandler }
        set { diagnosticsState.warningHandler = newValue }
    }

    private func setObserved(_ observed: Bool) {
        if observed {
            flags.bitwiseOr(SlowPathFlags.observed, ordering: .relaxed)
        } else {
            flags.bitwiseAnd(~SlowPathFlags.observed, ordering: .relaxed)
        }
    }

    /// Checks a new registration for a likely leak (only while that check is on). It walks the
    /// list of the registration's event, comparing call sites and owner types by identity:
    /// nothing is named unless a warning is given.
    func observeRegistration(_ record: ListenerRecord) {
        guard let threshold = diagnosticsState.diagnostics.leakThreshold,
            let records = registry.snapshot(for: record.eventKey), records.count > threshold
        else { return }
        let ownerType = record.owner.map { TypeIdentity(of: $0) }
        var fromSite = 0
        var ofOwnerType = 0
        for other in records where other.checkLiveness() {
            if other.callSite == record.callSite { fromSite += 1 }
            if let ownerType, let owner = other.owner, TypeIdentity(of: owner) == ownerType { ofOwnerType += 1 }
        }
        let site = DiagnosticsState.LeakSource(event: record.eventKey, callSite: record.callSite, ownerType: nil)
        if diagnosticsState.shouldWarnOfLeak(site, count: fromSite, threshold: threshold) {
            diagnosticsState.warn(
                EventWarning(
                    .likelyLeak, event: Self.eventLabel(of: record), callSite: record.callSite, count: fromSite))
        }
        if let ownerType {
            let owners = DiagnosticsState.LeakSource(event: record.eventKey, callSite: nil, ownerType: ownerType)
            if diagnosticsState.shouldWarnOfLeak(owners, count: ofOwnerType, threshold: threshold) {
                diagnosticsState.warn(
                    EventWarning(
                        .likelyLeak, event: Self.eventLabel(of: record), callSite: record.callSite,
                        ownerType: ownerType.description, count: ofOwnerType))
            }
        }
    }
}
