import Events
import EventsRedis
import Foundation

// What the Redis bridge pays to suppress duplicates, per received event, once its window of
// remembered identities (CloudEvents source + id) is full: the steady state of a long-running
// receiver, which the Redis scenarios' bursts never reach (each starts a new bridge). Every
// identity fed is new, so each one also makes the window forget its oldest.

/// The obvious window: a `Set` of identities and a ring of them in arrival order, behind the
/// same kind of lock.
final class SetDeduplicationWindow {
    // Touched only inside `lock`, as the bridge's window is.
    private var seen = Set<String>()
    private var ring: [String] = []
    private var oldest = 0
    private let capacity: Int
    private let lock = Lock()

    init(capacity: Int) {
        self.capacity = capacity
    }

    func recordFirstSighting(source: String, id: String) -> Bool {
        let identity = source + "\u{0}" + id
        return lock.withLock {
            guard seen.insert(identity).inserted else { return false }
            if ring.count < capacity {
                ring.append(identity)
            } else {
                seen.remove(ring[oldest])
                ring[oldest] = identity
                oldest = (oldest + 1) % capacity
            }
            return true
        }
    }
}

/// Fresh identities in a cycle three times the window, so that none is still remembered when it
/// comes round again; shaped like the bridge's own ids (a random prefix and a number).
@MainActor
private final class IdentityFeed {
    let source = "shop/api-1"
    let ids: [String]
    var next = 0

    init(count: Int) {
        ids = (0..<count).map { "5c1e9a7f03b24d68-\($0)" }
    }

    /// Records the next `count` identities with `record` and returns how many were new.
    func feed(_ count: Int, _ record: (String, String) -> Bool) -> Int {
        var fresh = 0
        for _ in 0..<count {
            if record(source, ids[next]) { fresh += 1 }
            next = next + 1 == ids.count ? 0 : next + 1
        }
        return fresh
    }
}

@MainActor
func deduplicationScenario(effort: Effort) async -> ScenarioReport {
    let capacity = effort.isQuick ? 1_000 : RedisBridge.Configuration(source: "bench").deduplicationWindow
    let window = DeduplicationWindow(capacity: capacity)
    let baseline = SetDeduplicationWindow(capacity: capacity)
    let windowFeed = IdentityFeed(count: capacity * 3)
    let baselineFeed = IdentityFeed(count: capacity * 3)
    // Full before anything is timed.
    consume(windowFeed.feed(capacity) { window.recordFirstSighting(source: $0, id: $1) })
    consume(baselineFeed.feed(capacity) { baseline.recordFirstSighting(source: $0, id: $1) })

    let contenders = [
        Contender(
            name: "RedisBridge deduplication window", role: .subject,
            workload: .timing { consume(windowFeed.feed($0) { window.recordFirstSighting(source: $0, id: $1) }) }),
        Contender(
            name: "Set<String> + ring of identities", role: .baseline,
            workload: .timing { consume(baselineFeed.feed($0) { baseline.recordFirstSighting(source: $0, id: $1) }) }),
    ]
    var rows = await measure(contenders, effort: effort)
    if let share = ratio(rows[0].value, rows[1].value) {
        rows[0].detail = formatRatio(share) + " of the Set-based window"
    }
    var report = ScenarioReport(
        id: "redis-deduplication", title: "Redis bridge: duplicate suppression", unit: .nanosecondsPerOperation,
        operation: "one new event's identity into a full window of \(capacity) (the oldest is forgotten)",
        rows: rows)
    report.finish(quick: effort.isQuick)
    return report
}
