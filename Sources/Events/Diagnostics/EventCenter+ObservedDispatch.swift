extension EventCenter {
    /// The dispatch loop of a center with diagnostics on or a tracer installed: the plain loop's
    /// work, listener by listener, timed and counted, then the checks, the topology and the
    /// trace. `listeners` is nil when the event has none. A plain center never comes here, so
    /// none of this weighs on its dispatches.
    @usableFromInline
    func observedDispatch<E: Event>(
        _ event: E, to listeners: ContiguousArray<ListenerRecord>?, from sender: AnyObject?, callSite: CallSite?,
        collector: ReportCollector? = nil
    ) -> Int {
        let observation = diagnosticsState.observation
        let options = observation.options
        let id = diagnosticsState.nextDispatchID()
        let label = Self.eventLabel(of: event)
        let centerID = ObjectIdentifier(self)
        let frames = DispatchFrames.current
        let parent = frames.innermost(of: centerID)
        let depth = frames.depth(in: centerID)
        if let threshold = options.nestingThreshold, depth > threshold {
            diagnosticsState.warn(EventWarning(.deepNesting, event: label, callSite: callSite, count: depth))
        }
        let onMainActor = isOnMainActor()
        let start = ContinuousClock.now
        frames.frames.append(DispatchFrames.Frame(dispatchID: id, listener: nil, center: centerID))
        let frameIndex = frames.frames.count - 1
        let senderInfo = sender.map(Sender.init)
        var traces: [ListenerTrace] = []
        var receivers: [TopologyLog.Listener] = []
        var slow: [EventWarning] = []
        var delivered = 0
        var needsPurge = false
        for record in listeners ?? [] {
            // Unchecked, as in the plain loop and for the same reason: a list holds the records
            // of one event key, all `TypedListenerRecord<E>`.
            let typed = unsafeDowncast(record, to: TypedListenerRecord<E>.self)
            let failuresBefore = record.failureCount
            frames.frames[frameIndex].listener = record
            frames.ranInline = false
            let before = ContinuousClock.now
            let outcome = deliver(event, to: typed, from: sender, senderInfo, collector)
            let elapsed = ContinuousClock.now - before
            frames.frames[frameIndex].listener = nil
            if outcome.needsPurge { needsPurge = true }
            let ranHere = !record.isRouted || frames.ranInline
            let result: ListenerTrace.Outcome
            if !outcome.delivered {
                result = .skipped
            } else {
                delivered += 1
                if options.countsDeliveries { record.countDelivery() }
                if options.recordsTopology { receivers.append(TopologyLog.Listener(record)) }
                result = !ranHere ? .queued : record.failureCount != failuresBefore ? .failed : .ran
                if ranHere, let threshold = options.slowListenerThreshold, elapsed > threshold,
                    options.slowListenerScope == .everyContext || onMainActor
                {
                    slow.append(Self.slowWarning(record, event: label, took: elapsed))
                }
            }
            if observation.tracer != nil {
                traces.append(
                    ListenerTrace(
                        callSite: record.callSite, ownerType: record.owner.map { String(describing: type(of: $0)) },
                        context: record.context.description, outcome: result, duration: elapsed))
            }
        }
        frames.frames.removeLast()
        if needsPurge, let listeners { purgeRetired(in: listeners) }
        for warning in slow { diagnosticsState.warn(warning) }
        if delivered == 0, let interval = options.deadEventInterval,
            let warning = diagnosticsState.noteDeadEvent(label, at: callSite, interval: interval)
        {
            diagnosticsState.warn(warning)
        }
        if options.recordsTopology {
            let dispatcher = TopologyLog.Dispatcher(sender: sender, inside: parent?.listener, callSite: callSite)
            diagnosticsState.record(TopologyLog.Dispatch(dispatcher: dispatcher, event: label, receivers: receivers))
        }
        if let tracer = observation.tracer {
            tracer.didDispatch(
                DispatchTrace(
                    id: id, parent: parent?.dispatchID, depth: depth, event: event, eventDescription: label,
                    senderType: sender.map { String(describing: type(of: $0)) }, callSite: callSite, listeners: traces,
                    start: start, duration: ContinuousClock.now - start, isOnMainThread: onMainActor))
        }
        return delivered
    }

    static func slowWarning(_ record: ListenerRecord, event: String, took elapsed: Duration) -> EventWarning {
        EventWarning(
            .slowListener, event: event, callSite: record.callSite,
            ownerType: record.owner.map { String(describing: type(of: $0)) }, duration: elapsed)
    }

    /// How diagnostics name an event: its type, or a named event's name in quotes.
    static func eventLabel<E: Event>(of event: E) -> String {
        if let named = event as? NamedEvent { return "\"\(named.name.rawValue)\"" }
        return String(describing: E.self)
    }

    /// The label of the events a record listens to, as ``eventLabel(of:)`` names them.
    static func eventLabel(of record: ListenerRecord) -> String {
        switch record.eventKey {
        case .type: String(describing: record.eventType)
        case .name(let name): "\"\(name)\""
        case .anyName: "every named event"
        }
    }
}
