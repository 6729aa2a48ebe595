import Foundation
import Synchronization

/// The default warning handler: one line on standard error.
func printWarning(_ warning: EventWarning) {
    FileHandle.standardError.write(Data("swift-events warning: \(warning)\n".utf8))
}

/// A center's diagnostics: its options, tracer and warning handler, and what the checks have
/// seen so far (the rate limit of dead-event warnings, the leak levels warned, the recorded
/// topology).
final class DiagnosticsState: @unchecked Sendable {
    // Why @unchecked is safe: every mutable stored property is read and written only inside
    // `lock`; `dispatchIDs` is an `Atomic`.
    private let lock = Lock()
    private var options = EventDiagnostics.off
    private var tracer: (any EventTracer)?
    /// `options` and `tracer` as one object, made again when either changes: an observed
    /// dispatch takes it with one retain, where copying the two out copied the tracer's
    /// existential (through its value witnesses) and the options' optionals.
    private var current = Observation(options: .off, tracer: nil)
    private var handler: @Sendable (EventWarning) -> Void = printWarning
    private var deadEvents: [String: DeadEventLog] = [:]
    private var leakLevels: [LeakSource: Int] = [:]
    private var topology = TopologyLog()
    private var failures: [ObjectIdentifier: FailureTally] = [:]
    private var failuresAfterPrune = 0
    private var failureSerials: UInt64 = 0
    private let dispatchIDs = Atomic<UInt64>(0)

    /// What an observed dispatch works with, taken out of the lock once per dispatch.
    final class Observation: Sendable {
        let options: EventDiagnostics
        let tracer: TracerBox?

        init(options: EventDiagnostics, tracer: (any EventTracer)?) {
            self.options = options
            self.tracer = tracer.map { TracerBox.holding($0) }
        }
    }

    var observation: Observation {
        lock.withLock { current }
    }

    /// Sets the options and returns whether a dispatch must now be observed. `apply` runs
    /// under the lock, so that two setters racing leave the flag matching the state.
    func update(_ change: (inout EventDiagnostics, inout (any EventTracer)?) -> Void, flag: (Bool) -> Void) {
        lock.withLock {
            change(&options, &tracer)
            current = Observation(options: options, tracer: tracer)
            flag(options.isActive || tracer != nil)
        }
    }

    var diagnostics: EventDiagnostics { lock.withLock { options } }
    var currentTracer: (any EventTracer)? { lock.withLock { tracer } }

    var warningHandler: @Sendable (EventWarning) -> Void {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }

    func nextDispatchID() -> UInt64 {
        dispatchIDs.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Hands `warning` to the handler, outside the lock.
    func warn(_ warning: EventWarning) {
        warningHandler(warning)
    }

    // MARK: Dead events

    private struct DeadEventLog {
        var lastWarning: ContinuousClock.Instant
        var unreported: Int
    }

    /// Notes a dispatch that no listener received; returns the warning to give, if its
    /// interval allows one now.
    func noteDeadEvent(_ event: String, at callSite: CallSite?, interval: Duration) -> EventWarning? {
        let now = ContinuousClock.now
        let count: Int? = lock.withLock {
            guard var log = deadEvents[event] else {
                deadEvents[event] = DeadEventLog(lastWarning: now, unreported: 0)
                return 1
            }
            log.unreported += 1
            defer { deadEvents[event] = log }
            guard now - log.lastWarning >= interval else { return nil }
            let count = log.unreported
            log = DeadEventLog(lastWarning: now, unreported: 0)
            return count
        }
        return count.map { EventWarning(.deadEvent, event: event, callSite: callSite, count: $0) }
    }

    // MARK: Leaks

    /// Where piled-up listeners come from: one call site, or one owner type, of one event.
    struct LeakSource: Hashable {
        let event: EventKey
        let callSite: CallSite?
        let ownerType: TypeIdentity?
    }

    /// Whether `count` listeners from `source` deserve a warning. The warning levels are
    /// `threshold + 1` (the first count past the threshold) and its doubles: `2 * (threshold + 1)`,
    /// `4 * (threshold + 1)`, and so on. A count that reaches a level above the last one warned
    /// deserves a warning, once, whichever way the count got there.
    func shouldWarnOfLeak(_ source: LeakSource, count: Int, threshold: Int) -> Bool {
        guard count > threshold else { return false }
        let first = max(threshold, 0) + 1
        return lock.withLock {
            // The level after the last one warned; `first` when none was.
            let next = leakLevels[source].map(Self.doubled) ?? first
            guard let next, count >= next else { return false }
            // The highest level the count reached: a count that grew past several levels since
            // the last check warns once, and the next warning is at the level after that one.
            var level = next
            while let higher = Self.doubled(level), count >= higher { level = higher }
            leakLevels[source] = level
            return true
        }
    }

    /// `level * 2`, or nil past `Int.max` (no count gets there).
    private static func doubled(_ level: Int) -> Int? {
        let (doubled, overflow) = level.multipliedReportingOverflow(by: 2)
        return overflow ? nil : doubled
    }

    // MARK: Failures

    /// A listener's failures. The record is held weakly, so a tally never keeps a listener
    /// alive, and a tally found under a reused identifier is recognized as another's.
    private struct FailureTally {
        weak var record: ListenerRecord?
        var count: Int
        /// Tells this tally from a later one under the same identifier, without a weak load.
        let serial: UInt64
    }

    /// Counts a failure of `record`, which the caller holds. Failures are rare, so they live
    /// here rather than in every record.
    func countFailure(of record: ListenerRecord) {
        let key = ObjectIdentifier(record)
        let pruneDue: Bool = lock.withLock {
            // Loading the weak reference under the lock is safe here: it yields nil or `record`
            // itself (a dead object's weak references read nil even when its address is
            // reused), and the caller holds `record`, so this temporary reference is never the
            // last one and no deinitializer runs under the lock.
            if var tally = failures[key], tally.record === record {
                tally.count += 1
                failures[key] = tally
            } else {
                failureSerials += 1
                failures[key] = FailureTally(record: record, count: 1, serial: failureSerials)
            }
            return failures.count > 2 * failuresAfterPrune + 64
        }
        if pruneDue { pruneFailures() }
    }

    /// How many times `record`, which the caller holds, failed.
    func failureCount(of record: ListenerRecord) -> Int {
        lock.withLock {
            // As in `countFailure`: the weak load yields nil or the caller's `record`.
            guard let tally = failures[ObjectIdentifier(record)], tally.record === record else { return 0 }
            return tally.count
        }
    }

    /// Drops the tallies of listeners that are gone. The weak references are read outside the
    /// lock: one of them may be the last reference to a live record, whose deinitializer would
    /// then run here.
    private func pruneFailures() {
        let entries = lock.withLock { failures }
        let dead = entries.filter { $0.value.record == nil }.map { ($0.key, $0.value.serial) }
        lock.withLock {
            for (key, serial) in dead where failures[key]?.serial == serial { failures[key] = nil }
            failuresAfterPrune = failures.count
        }
    }

    // MARK: Topology

    func record(_ dispatch: TopologyLog.Dispatch) {
        lock.withLock { topology.record(dispatch) }
    }

    var recordedTopology: TopologyLog { lock.withLock { topology } }

    func clearRecordedTopology() {
        lock.withLock { topology = TopologyLog() }
    }
}

/// A tracer, called through a class method rather than its existential: reading an
/// `any EventTracer` out of storage to call it copies it through its value witnesses, and
/// destroys the copy after, on every traced dispatch.
class TracerBox: @unchecked Sendable {
    // Why @unchecked is safe: the base class has no state, and its one subclass holds a
    // `Sendable` tracer in a `let`.

    static func holding(_ tracer: some EventTracer) -> TracerBox { TypedTracerBox(tracer) }

    func didDispatch(_ trace: DispatchTrace) {}
    func didRunQueuedDelivery(_ trace: DeliveryTrace) {}
}

private final class TypedTracerBox<Tracer: EventTracer>: TracerBox, @unchecked Sendable {
    let tracer: Tracer

    init(_ tracer: Tracer) { self.tracer = tracer }

    override func didDispatch(_ trace: DispatchTrace) { tracer.didDispatch(trace) }
    override func didRunQueuedDelivery(_ trace: DeliveryTrace) { tracer.didRunQueuedDelivery(trace) }
}
