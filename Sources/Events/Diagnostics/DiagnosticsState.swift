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
    private var handler: @Sendable (EventWarning) -> Void = printWarning
    private var deadEvents: [String: DeadEventLog] = [:]
    private var leakLevels: [LeakSource: Int] = [:]
    private var topology = TopologyLog()
    private let dispatchIDs = Atomic<UInt64>(0)

    /// What an observed dispatch works with, copied out of the lock once per dispatch.
    struct Observation {
        let options: EventDiagnostics
        let tracer: (any EventTracer)?
    }

    var observation: Observation {
        lock.withLock { Observation(options: options, tracer: tracer) }
    }

    /// Sets the options and returns whether a dispatch must now be observed. `apply` runs
    /// under the lock, so that two setters racing leave the flag matching the state.
    func update(_ change: (inout EventDiagnostics, inout (any EventTracer)?) -> Void, flag: (Bool) -> Void) {
        lock.withLock {
            change(&options, &tracer)
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
        let ownerType: String?
    }

    /// Whether `count` listeners from `source` deserve a warning: the first time past
    /// `threshold`, then each time the count doubles again.
    func shouldWarnOfLeak(_ source: LeakSource, count: Int, threshold: Int) -> Bool {
        guard count > threshold else { return false }
        return lock.withLock {
            let warnedAt = leakLevels[source] ?? 0
            guard count > max(threshold, warnedAt * 2) else { return false }
            leakLevels[source] = count
            return true
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
