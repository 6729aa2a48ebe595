/// The table a campaign prints: per topology, schedules, faults by kind, events and violations.
package struct CampaignSummary: Sendable {
    private struct Row {
        var schedules = 0
        var faults: [FaultKind: Int] = [:]
        var dispatched = 0
        var confirmed = 0
        var deliveries = 0
        var deadLetters = 0
        var consumerLives = 0
        var publisherLives = 0
        var violations = 0
        var allowed = 0
        /// Schedules whose publisher did not see Redis acknowledge everything within the final
        /// flush's bound after the heal (on Sentinel: a master named that was still a replica).
        var lateFlushes = 0
    }

    private var rows: [Topology: Row] = [:]

    package init() {}

    package mutating func add(_ result: CampaignRun.Result) {
        var row = rows[result.history.topology] ?? Row()
        row.schedules += 1
        row.faults.merge(result.faults, uniquingKeysWith: +)
        row.dispatched += result.history.dispatched.count
        row.confirmed += result.history.confirmed.count
        row.deliveries += result.history.deliveries.count
        row.deadLetters += result.history.deadLetters.count
        row.consumerLives += result.history.lives.count
        row.publisherLives += result.history.publisherLives.count
        row.violations += result.violations.count
        row.allowed += result.allowed.count
        if !result.flushed { row.lateFlushes += 1 }
        rows[result.history.topology] = row
    }

    /// A Markdown table, one row per topology and a total.
    package var table: String {
        let kinds = FaultKind.allCases
        var lines = [
            "| Topology | Schedules | " + kinds.map(\.rawValue).joined(separator: " | ")
                + " | Events dispatched | Confirmed | Deliveries | Dead letters | Consumer lives | Publisher lives "
                + "| Final flush late | Allowed, explained | Violations |",
            "|" + Array(repeating: "---|", count: kinds.count + 11).joined(),
        ]
        var total = Row()
        for topology in Topology.allCases {
            guard let row = rows[topology] else { continue }
            lines.append(line(topology.rawValue, row, kinds))
            total.schedules += row.schedules
            total.faults.merge(row.faults, uniquingKeysWith: +)
            total.dispatched += row.dispatched
            total.confirmed += row.confirmed
            total.deliveries += row.deliveries
            total.deadLetters += row.deadLetters
            total.consumerLives += row.consumerLives
            total.publisherLives += row.publisherLives
            total.violations += row.violations
            total.allowed += row.allowed
            total.lateFlushes += row.lateFlushes
        }
        lines.append(line("all", total, kinds))
        return lines.joined(separator: "\n")
    }

    private func line(_ name: String, _ row: Row, _ kinds: [FaultKind]) -> String {
        "| \(name) | \(row.schedules) | " + kinds.map { String(row.faults[$0] ?? 0) }.joined(separator: " | ")
            + " | \(row.dispatched) | \(row.confirmed) | \(row.deliveries) | \(row.deadLetters) "
            + "| \(row.consumerLives) | \(row.publisherLives) | \(row.lateFlushes) | \(row.allowed) | \(row.violations) |"
    }
}
