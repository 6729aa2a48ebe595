import Synchronization

/// The bits of ``EventCenter/flags``: why a dispatch leaves the plain loop.
@usableFromInline
enum SlowPathFlags {
    // Computed rather than stored, as `ListenerTraits`: a stored `static let` is a lazily
    // initialized global, reached through `swift_once`.

    /// Diagnostics are on or a tracer is installed: the observed loop runs.
    @inlinable static var observed: UInt8 { 1 << 0 }
    /// Family listeners exist: the dispatched type's families are looked up.
    @inlinable static var families: UInt8 { 1 << 1 }
    /// A listener that may stop propagation has been registered: dispatches take the loop that
    /// can stop early. Never cleared: a center that uses stopping listeners keeps that loop.
    @inlinable static var stoppers: UInt8 { 1 << 2 }
}

extension EventCenter {
    /// The dispatch of a center whose flags are not all clear: it gathers the family listeners
    /// of the event, if family listeners exist, and runs the observed loop if diagnostics or a
    /// tracer ask for it, else the plain loop (merged with the family listeners, if any).
    /// `listeners` are the event's own listeners, nil when it has none.
    // Inlinable, as `dispatch`, so that the loops it runs are specialized for the event type:
    // a center with family listeners still dispatches unrelated types through the specialized
    // plain loop.
    @inlinable
    func slowDispatch<E: Event>(
        _ event: E, to listeners: ContiguousArray<ListenerRecord>?, from sender: AnyObject?, callSite: CallSite?,
        collector: ReportCollector? = nil
    ) -> LoopOutcome {
        // Only stopping listeners: the loop that can stop, without looking for families.
        if onlyStopsPropagation {
            guard let listeners else { return LoopOutcome(delivered: 0, stoppedBy: nil) }
            guard let collector else { return deliverStoppable(event, to: listeners, from: sender) }
            return deliverStoppable(event, to: listeners, from: sender, collector: collector)
        }
        let families = familyListeners(of: event)
        if isObserved {
            return observedDispatch(
                event, to: listeners, families: families, from: sender, callSite: callSite, collector: collector)
        }
        guard let families else {
            guard let listeners else { return LoopOutcome(delivered: 0, stoppedBy: nil) }
            // Without a collector, the loop of `dispatch` itself (the collector's tests fold away).
            guard let collector else { return deliverStoppable(event, to: listeners, from: sender) }
            return deliverStoppable(event, to: listeners, from: sender, collector: collector)
        }
        return deliver(event, to: listeners, families: families, from: sender, collector: collector)
    }

    /// The family listeners that hear `event`, in their delivery order (higher priority first,
    /// ties in registration order across families), or nil when there are none.
    @usableFromInline
    func familyListeners<E: Event>(of event: E) -> ContiguousArray<ListenerRecord>? {
        guard flags.load(ordering: .relaxed) & SlowPathFlags.families != 0 else { return nil }
        guard registry.familyListCount.load(ordering: .relaxed) > 0 else {
            // The last family listener is gone: later dispatches take the plain path again.
            registry.families.clearIfGone(in: self)
            return nil
        }
        let (keys, version) = registry.families.keys(for: event)
        guard let first = keys.first else {
            // Noted for the static type, which the dispatch looks up: only when it is the
            // dynamic type too (an instance of a subclass may belong to families its class
            // does not).
            if type(of: event) == E.self { registry.markFamilyFree(EventKey(E.self), version: version) }
            return nil
        }
        guard keys.count > 1 else { return registry.snapshot(for: first) }
        var lists: [ContiguousArray<ListenerRecord>] = []
        for key in keys {
            if let records = registry.snapshot(for: key) { lists.append(records) }
        }
        guard lists.count > 1 else { return lists.first }
        // Sequences are unique, so this order is total: no stable sort needed.
        let merged = lists.joined().sorted {
            $0.priority > $1.priority || ($0.priority == $1.priority && $0.sequence < $1.sequence)
        }
        return ContiguousArray(merged)
    }

    /// The dispatch loop with family listeners: walks `listeners` (the event's own, in delivery
    /// order) and `families` (in theirs) as one list, higher priority first; at equal priority
    /// the event's own listeners run first. Returns how many received the event, and which
    /// listener stopped propagation, if one did: an own listener that stops keeps every later
    /// listener, own or family, from the event. (Family listeners have no stopping form.)
    @inlinable
    func deliver<E: Event>(
        _ event: E, to listeners: ContiguousArray<ListenerRecord>?, families: ContiguousArray<ListenerRecord>,
        from sender: AnyObject?, collector: ReportCollector?
    ) -> LoopOutcome {
        let senderInfo = sender.map(Sender.init)
        let boxed = FamilyEvent(event: event)
        let own = listeners ?? []
        var delivered = 0
        var purgeOwn = false
        var purgeFamilies = false
        var stopper: ListenerRecord?
        var next = FamilyMerge(own: own, families: families)
        while let (index, isFamily) = next.step() {
            // Unchecked downcasts, as in the plain loop: the event's own list holds
            // `TypedListenerRecord<E>`s only, and a family's list holds family records, all
            // `TypedListenerRecord<FamilyEvent>`s.
            if isFamily {
                let record = unsafeDowncast(families[index], to: TypedListenerRecord<FamilyEvent>.self)
                let outcome = deliver(boxed, to: record, from: sender, senderInfo, collector)
                if outcome.delivered { delivered += 1 }
                if outcome.needsPurge { purgeFamilies = true }
                if outcome.stopped {
                    stopper = record
                    break
                }
            } else {
                let record = unsafeDowncast(own[index], to: TypedListenerRecord<E>.self)
                let outcome = deliver(event, to: record, from: sender, senderInfo, collector)
                if outcome.delivered { delivered += 1 }
                if outcome.needsPurge { purgeOwn = true }
                if outcome.stopped {
                    stopper = record
                    break
                }
            }
        }
        if purgeOwn { purgeRetired(in: own) }
        if purgeFamilies { purgeRetired(in: families) }
        if let stopper { collector?.recordStop(by: stopper) }
        return LoopOutcome(delivered: delivered, stoppedBy: stopper)
    }
}

/// Walks an event's own listeners and its family listeners as one list: by priority, and at
/// equal priority the event's own first. Each step names the next record by its list and index.
@usableFromInline
struct FamilyMerge {
    @usableFromInline let own: ContiguousArray<ListenerRecord>
    @usableFromInline let families: ContiguousArray<ListenerRecord>
    @usableFromInline var ownIndex = 0
    @usableFromInline var familyIndex = 0

    @inlinable
    init(own: ContiguousArray<ListenerRecord>, families: ContiguousArray<ListenerRecord>) {
        self.own = own
        self.families = families
    }

    // Not inlinable: priorities are internal to the records. A plain call per listener, on
    // dispatches with family listeners only.
    @usableFromInline
    mutating func step() -> (index: Int, isFamily: Bool)? {
        let ownLeft = ownIndex < own.count
        let familiesLeft = familyIndex < families.count
        guard ownLeft || familiesLeft else { return nil }
        if ownLeft, !familiesLeft || own[ownIndex].priority >= families[familyIndex].priority {
            ownIndex += 1
            return (ownIndex - 1, false)
        }
        familyIndex += 1
        return (familyIndex - 1, true)
    }
}
