extension EventCenter {
    /// The dispatch loop of a center with diagnostics on or a tracer installed: the plain loop's
    /// work, listener by listener, timed and counted, then the checks, the topology and the
    /// trace. `listeners` is nil when the event has none; `families` are its family listeners,
    /// merged in as the plain family loop does. A plain center never comes here, so none of this
    /// weighs on its dispatches.
    @usableFromInline
    func observedDispatch<E: Event>(
        _ event: E, to listeners: ContiguousArray<ListenerRecord>?, families: ContiguousArray<ListenerRecord>? = nil,
        from sender: AnyObject?, callSite: CallSite?, collector: ReportCollector? = nil
    ) -> LoopOutcome {
        let observation = diagnosticsState.observation
        let options = observation.options
        let tracing = observation.tracer != nil
        let id = diagnosticsState.nextDispatchID()
        let centerID = ObjectIdentifier(self)
        let frames = DispatchFrames.current
        let parent = frames.innermost(of: centerID)
        let depth = frames.depth(in: centerID)
        if let threshold = options.nestingThreshold, depth > threshold {
            diagnosticsState.warn(
                EventWarning(
                    .deepNesting, event: EventIdentity(of: event).description, callSite: callSite, count: depth))
        }
        let start = ContinuousClock.now
        // One clock read per listener, not two: a listener's time runs from the end of the
        // one before (the loop's own steps between them are a few instructions), and the
        // dispatch ends when its last listener does. Each read costs about as much as a plain
        // dispatch to one listener.
        var lap = start
        frames.frames.append(DispatchFrames.Frame(dispatchID: id, listener: nil, center: centerID))
        let frameIndex = frames.frames.count - 1
        let senderInfo = sender.map(Sender.init)
        let listenerCount = (listeners?.count ?? 0) + (families?.count ?? 0)
        var traces = tracing ? frames.takeTraceBuffer(reserving: listenerCount) : []
        let boxed = families.map { _ in FamilyEvent(event: event) }
        var order = FamilyMerge(own: listeners ?? [], families: families ?? [])
        var receivers: [TopologyLog.Listener] = []
        var slow: [(ListenerRecord, Duration)] = []
        var delivered = 0
        var needsPurge = false
        var stopper: ListenerRecord?
        while let (index, isFamily) = order.step() {
            let record = isFamily ? order.families[index] : order.own[index]
            frames.frames[frameIndex].listener = record
            frames.ranInline = false
            frames.failed = false
            // Unchecked, as in the plain loop and for the same reason: a list holds the records
            // of one event key, all `TypedListenerRecord<E>` (a family's: of `FamilyEvent`).
            let outcome =
                if isFamily, let boxed {
                    deliver(
                        boxed, to: unsafeDowncast(record, to: TypedListenerRecord<FamilyEvent>.self), from: sender,
                        senderInfo, collector)
                } else {
                    deliver(
                        event, to: unsafeDowncast(record, to: TypedListenerRecord<E>.self), from: sender, senderInfo,
                        collector)
                }
            let finished = ContinuousClock.now
            let elapsed = finished - lap
            lap = finished
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
                result = !ranHere ? .queued : frames.failed ? .failed : .ran
                if ranHere, let threshold = options.slowListenerThreshold, elapsed > threshold {
                    slow.append((record, elapsed))
                }
            }
            if tracing {
                traces.append(
                    ListenerTrace(
                        callSite: record.callSite, owner: record.owner.map { TypeIdentity(of: $0) },
                        listenerContext: record.context, outcome: result, duration: elapsed))
            }
            if outcome.stopped {
                stopper = record
                break
            }
        }
        if let stopper { collector?.recordStop(by: stopper) }
        frames.frames.removeLast()
        if needsPurge {
            if let listeners { purgeRetired(in: listeners) }
            if let families { purgeRetired(in: families) }
        }
        // Where the dispatch runs is asked only when it matters: a handler was slow, or a
        // tracer wants to know.
        let onMainActor = (tracing || !slow.isEmpty) && isOnMainActor()
        if options.slowListenerScope == .everyContext || onMainActor {
            for (record, elapsed) in slow {
                diagnosticsState.warn(Self.slowWarning(record, event: EventIdentity(of: event), took: elapsed))
            }
        }
        if delivered == 0, let interval = options.deadEventInterval,
            let warning = diagnosticsState.noteDeadEvent(
                EventIdentity(of: event).description, at: callSite, interval: interval)
        {
            diagnosticsState.warn(warning)
        }
        if options.recordsTopology {
            let dispatcher = TopologyLog.Dispatcher(sender: sender, inside: parent?.listener, callSite: callSite)
            diagnosticsState.record(
                TopologyLog.Dispatch(dispatcher: dispatcher, event: EventIdentity(of: event), receivers: receivers))
        }
        if let tracer = observation.tracer {
            let trace = DispatchTrace(
                id: id, parent: parent?.dispatchID, depth: depth, event: event,
                eventIdentity: EventIdentity(of: event), sender: sender.map { TypeIdentity(of: $0) },
                callSite: callSite, listenerTraces: traces, start: start, duration: lap - start,
                isOnMainThread: onMainActor, stopIndex: stopper == nil ? nil : traces.count - 1)
            traces = []
            tracer.didDispatch(trace)
            frames.returnTraceBuffer(trace.listenerTraces)
        }
        return LoopOutcome(delivered: delivered, stoppedBy: stopper)
    }

    static func slowWarning(_ record: ListenerRecord, event: EventIdentity, took elapsed: Duration) -> EventWarning {
        EventWarning(
            .slowListener, event: event.description, callSite: record.callSite,
            ownerType: record.owner.map { String(describing: type(of: $0)) }, duration: elapsed)
    }

    /// The label of the events a record listens to: its type, a name in quotes, or "every
    /// named event".
    static func eventLabel(of record: ListenerRecord) -> String {
        EventIdentity(of: record).description
    }
}
