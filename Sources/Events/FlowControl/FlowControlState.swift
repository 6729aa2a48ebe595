import Synchronization

/// What a center keeps for its flow-control features: current values and events held for
/// their first listener. One lock guards both; `dispatch` with `keepingCurrent:` or
/// `holdingIfUnheard:` and a registration that receives kept events take it around their
/// registry step (snapshot or insertion), which orders each such dispatch and registration:
/// a listener gets a kept event either from its dispatch or when it registers, never both.
/// A held event always reaches exactly one of them; a current value replaced while a listener
/// registers can be skipped for the newer one.
///
/// Lock order: this lock, then the registry's. No user code runs under it: senders are
/// compared by identity, never loaded, and clocks are slept on outside it.
final class FlowControlState: @unchecked Sendable {
    // Why @unchecked is safe: `state` is only touched inside `lock`; `holding` is an atomic.

    struct HeldEvent {
        let kept: KeptEvent
        let hold: EventHold
        let callSite: CallSite?
        var expiry: Task<Void, Never>?
        /// How long the event has been held, on its hold's clock.
        let timeHeld: @Sendable () -> Duration
    }

    struct State {
        var sequence: UInt64 = 0
        /// Change it through `keep` and `removeCurrentValue(for:)` only: they keep `lastKept` right.
        private(set) var perType: [EventKey: KeptEvent] = [:]
        /// The key kept last per type and where its value lies in `perType`, so that a type kept
        /// again and again (a state published as it changes) replaces its value without hashing
        /// the key. Valid while `perType` gains and loses no key: only a new key or a removal
        /// moves its entries, and both reset it.
        private var lastKept: (key: EventKey, index: Dictionary<EventKey, KeptEvent>.Index)?
        var perSender: [EventKey: [ObjectIdentifier: KeptEvent]] = [:]
        /// How many per-sender values to allow before the next purge of those whose sender is
        /// gone: twice the number alive at the last purge, so purging stays amortized O(1).
        var perSenderPurgeAt = 32
        var held: [EventKey: [HeldEvent]] = [:]

        mutating func nextSequence() -> UInt64 {
            sequence += 1
            return sequence
        }
    }

    let lock = Lock()
    // The lock rules out overlapping accesses: the runtime's exclusivity check, a pair of calls
    // on every dispatch that keeps a current value, is left out.
    @exclusivity(unchecked) private var state = State()
    /// Whether any event is held: read by every registration (one relaxed load), which takes
    /// the lock only when some event waits for a listener.
    private let holding = Atomic<Bool>(false)

    var holdsEvents: Bool { holding.load(ordering: .relaxed) }

    deinit {
        for events in state.held.values {
            for event in events { event.expiry?.cancel() }
        }
    }

    /// Runs `body` with the state, under the lock.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try lock.withLock {
            defer { holding.store(!state.held.isEmpty, ordering: .relaxed) }
            return try body(&state)
        }
    }
}

extension FlowControlState.State {
    /// The keys whose kept events a listener of `key` receives: its own, or every name's for
    /// a listener of every name.
    func keys(for key: EventKey, in table: some Collection<EventKey>) -> [EventKey] {
        guard key == .anyName else { return [key] }
        return table.filter { if case .name = $0 { true } else { false } }
    }

    /// Keeps `kept` as the current value of `key`, per type or per its sender. Returns the
    /// per-sender values to check for dead senders, when a purge is due (the caller loads their
    /// weak references outside the lock).
    ///
    /// The value it replaces is returned too, for the caller to release after unlocking: it may
    /// hold the last reference to a user's object, whose deinitializer must not run under the lock.
    mutating func keep(_ kept: KeptEvent, for key: EventKey, scope: CurrentValueScope) -> (
        toCheck: [KeptEvent], replaced: KeptEvent?
    ) {
        guard scope == .perSender, let senderID = kept.senderID else {
            if let last = lastKept, last.key == key {
                let replaced = perType.values[last.index]
                perType.values[last.index] = kept
                return ([], replaced)
            }
            let replaced = perType.updateValue(kept, forKey: key)
            lastKept = perType.index(forKey: key).map { (key, $0) }
            return ([], replaced)
        }
        var kept = kept
        kept.isPerSender = true
        let replaced = perSender[key, default: [:]].updateValue(kept, forKey: senderID)
        let count = perSender.values.reduce(0) { $0 + $1.count }
        guard count > perSenderPurgeAt else { return ([], replaced) }
        return (perSender.values.flatMap(\.values), replaced)
    }

    /// Removes the current value kept per type for `key`, and returns it.
    mutating func removeCurrentValue(for key: EventKey) -> KeptEvent? {
        lastKept = nil
        return perType.removeValue(forKey: key)
    }

    /// Drops the per-sender values among `dead` (the same entries, by sequence) and sets the
    /// next purge threshold from the number left.
    mutating func dropDeadSenders(_ dead: [KeptEvent]) {
        let sequences = Set(dead.map(\.sequence))
        for key in Array(perSender.keys) {
            perSender[key] = perSender[key]?.filter { !sequences.contains($0.value.sequence) }
            if perSender[key]?.isEmpty == true { perSender[key] = nil }
        }
        perSenderPurgeAt = max(32, 2 * perSender.values.reduce(0) { $0 + $1.count })
    }

    /// The current values a new listener of `key` with sender filter `filter` receives, newer
    /// than `sequence`, in the order they were kept.
    /// The keys of the kept or held events a listener of `key` may take: its own, every name's
    /// for a listener of every name, and every key whose events are of its family for a family
    /// listener.
    func keys(for key: EventKey, family: FamilyKind?, in table: some Collection<EventKey>) -> [EventKey] {
        guard let family else { return keys(for: key, in: table) }
        return table.filter { key in
            let sample = perType[key] ?? perSender[key]?.values.first ?? held[key]?.first?.kept
            return sample.map { family.admits($0.value($0.sender?.object)) } ?? false
        }
    }

    func currentValues(
        for key: EventKey, family: FamilyKind? = nil, filter: ObjectIdentifier?, after sequence: UInt64
    ) -> [KeptEvent] {
        var found: [KeptEvent] = []
        for key in keys(for: key, family: family, in: perType.keys) {
            if let kept = perType[key], kept.sequence > sequence, kept.matches(filter: filter) { found.append(kept) }
        }
        for key in keys(for: key, family: family, in: perSender.keys) {
            for kept in perSender[key]?.values ?? [:].values where kept.sequence > sequence {
                if kept.matches(filter: filter) { found.append(kept) }
            }
        }
        return found
    }

    /// Takes the held events a new listener of `key` with sender filter `filter` receives.
    /// The held events a listener of `key` may take, oldest first.
    func heldEvents(for key: EventKey, family: FamilyKind? = nil, filter: ObjectIdentifier?) -> [KeptEvent] {
        keys(for: key, family: family, in: held.keys)
            .flatMap { held[$0] ?? [] }
            .map(\.kept)
            .filter { $0.matches(filter: filter) }
            .sorted { $0.sequence < $1.sequence }
    }

    /// Takes the held events with these sequences out of the hold (they are being delivered).
    mutating func takeHeld(_ sequences: Set<UInt64>) {
        guard !sequences.isEmpty else { return }
        for key in Array(held.keys) {
            guard let events = held[key] else { continue }
            var left: [FlowControlState.HeldEvent] = []
            for event in events {
                if sequences.contains(event.kept.sequence) {
                    event.expiry?.cancel()
                } else {
                    left.append(event)
                }
            }
            held[key] = left.isEmpty ? nil : left
        }
    }

    /// Holds `event` for `key`; returns the event it pushed out, if the limit was reached.
    mutating func hold(_ event: FlowControlState.HeldEvent, for key: EventKey) -> FlowControlState.HeldEvent? {
        held[key, default: []].append(event)
        guard let count = held[key]?.count, count > event.hold.limit else { return nil }
        let dropped = held[key]?.removeFirst()
        dropped?.expiry?.cancel()
        return dropped
    }

    /// Removes the held event kept with `sequence` under `key`, if it is still held.
    mutating func expire(_ sequence: UInt64, for key: EventKey) -> FlowControlState.HeldEvent? {
        guard let index = held[key]?.firstIndex(where: { $0.kept.sequence == sequence }) else { return nil }
        let event = held[key]?.remove(at: index)
        if held[key]?.isEmpty == true { held[key] = nil }
        return event
    }

    /// Sets the expiry task of the held event kept with `sequence`, unless it is gone already.
    /// Returns false when it is gone (the caller cancels the task).
    mutating func setExpiry(_ task: Task<Void, Never>, for sequence: UInt64, key: EventKey) -> Bool {
        guard let index = held[key]?.firstIndex(where: { $0.kept.sequence == sequence }) else { return false }
        held[key]?[index].expiry = task
        return true
    }
}
