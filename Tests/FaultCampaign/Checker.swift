/// Reads a whole ``History`` and says which of the bridge's promises it breaks.
///
/// Streams: no event whose dispatch returned (and so was in the publisher's outbox) is missing
/// from Redis, and nothing reaches Redis that no publisher life attempted (a life killed during
/// a dispatch may or may not have left that event there); every event a stream holds ends, in
/// every group, delivered or dead-lettered; within one consumer life an event
/// is not delivered again once delivered, and first deliveries of one key come in dispatch
/// order; a dead letter comes after the maximum of deliveries, once per group (twice only on
/// a cluster where an acknowledgement failed, or when the stream held the event twice);
/// statistics agree with the records. Pub/Sub: nothing arrives that was not sent, nothing
/// twice or out of order within a life.
package enum Checker {
    package struct Violation: Sendable, CustomStringConvertible {
        package var rule: Rule
        package var message: String
        /// The smallest part of the history that shows it.
        package var window: [String]
        /// Whether the guarantee allows it, reported, not failed: after a failover, Redis's
        /// asynchronous replication can roll a consumer group back (entries read again, out of
        /// order, as first deliveries) and lose a dead letter written just before; a copy of an
        /// event published again (its first publish unconfirmed, or left in the outbox by a
        /// publisher life that was killed) can reach a consumer that never had the first, after
        /// later events; and a Pub/Sub
        /// publish reported as possibly lost (its connection stalled past the reply timeout)
        /// can still reach Redis from the kernel's buffers, after later ones.
        package var allowed = false

        package var description: String {
            ([rule.rawValue + ": " + message] + window.map { "    " + $0 }).joined(separator: "\n")
        }
    }

    package enum Rule: String, Sendable, CaseIterable {
        case lost = "confirmed event lost"
        case phantom = "event no publisher life dispatched"
        case unsettled = "event neither delivered nor dead-lettered"
        case duplicateInLife = "delivered again within a life"
        case outOfOrder = "out of order within a life"
        case deadLetterTooEarly = "dead-lettered before the maximum of deliveries"
        case duplicateDeadLetter = "dead-lettered twice"
        case statistics = "statistics disagree with the history"
        case pubSubPhantom = "Pub/Sub tick that was never sent"
        case pubSubDuplicate = "Pub/Sub tick heard twice within a life"
        case pubSubOutOfOrder = "Pub/Sub ticks out of order within a life"
    }

    /// Every broken promise, those the guarantee allows after a failover marked ``Violation/allowed``.
    package static func check(_ history: History, maxDeliveries: Int = CampaignRules.maxDeliveries) -> [Violation] {
        var violations: [Violation] = []
        let failedOver = history.topology != .single && history.failedOver
        let sent = Set(history.dispatched)
        let deliveriesByOrder = Dictionary(grouping: history.deliveries, by: \.order)
        func window(_ order: CampaignOrder) -> [String] {
            // Parenthesized: `??` binds looser than `+`, and the rest of the window would
            // otherwise be left out whenever the dispatching life is known.
            (history.attemptedBy[order].map {
                ["\($0) dispatched it" + (history.confirmed.contains(order) ? ", the dispatch returned" : "")]
            } ?? [])
                + (deliveriesByOrder[order] ?? []).map(line)
                + history.deadLetters.filter { $0.order == order }.map {
                    "dead letter in \($0.group) after \($0.deliveries) deliveries"
                }
                + ["\(history.finalStreams[order] ?? 0) entries in the streams"]
        }

        for order in history.dispatched where history.confirmed.contains(order) && history.finalStreams[order] == nil {
            violations.append(.init(rule: .lost, message: order.name, window: window(order)))
        }
        let seen = Set(history.deliveries.map(\.order)).union(history.deadLetters.map(\.order))
            .union(history.finalStreams.keys)
        for order in seen.subtracting(sent).sorted(by: byName) {
            violations.append(.init(rule: .phantom, message: order.name, window: window(order)))
        }

        for group in history.groups {
            let succeeded = Set(history.deliveries.filter { $0.group == group && $0.succeeded }.map(\.order))
            let letters = history.deadLetters.filter { $0.group == group }
            let lettered = Set(letters.map(\.order))
            for order in history.finalStreams.keys.sorted(by: byName)
            where !succeeded.contains(order) && !lettered.contains(order) {
                violations.append(
                    .init(rule: .unsettled, message: "\(order.name) in group \(group)", window: window(order)))
            }
            for letter in letters where letter.deliveries < maxDeliveries {
                violations.append(
                    .init(
                        rule: .deadLetterTooEarly,
                        message:
                            "\(letter.order.name) in group \(group) after \(letter.deliveries) of \(maxDeliveries)",
                        window: window(letter.order)))
            }
            let ackFailures = history.lives.filter { $0.group == group }.reduce(0) { $0 + $1.redisErrors }
            for (order, copies) in Dictionary(grouping: letters, by: \.order) where copies.count > 1 {
                let excused =
                    (history.finalStreams[order] ?? 0) >= copies.count
                    || (history.topology == .cluster && ackFailures > 0)
                if !excused {
                    violations.append(
                        .init(
                            rule: .duplicateDeadLetter,
                            message: "\(order.name) \(copies.count) times in group \(group)",
                            window: window(order)))
                }
            }
            // Every life of the group stopped cleanly: their counts are all there is.
            let lives = history.lives.filter { $0.group == group }
            if !lives.isEmpty, lives.allSatisfy({ $0.statistics != nil }) {
                let counted = lives.reduce(0) { $0 + ($1.statistics?.deadLettered ?? 0) }
                if counted != letters.count {
                    violations.append(
                        .init(
                            rule: .statistics,
                            message: "group \(group) counted \(counted) dead letters, Redis holds \(letters.count)",
                            window: lives.map { "\($0.life): \($0.statistics.map { "\($0)" } ?? "killed")" },
                            allowed: failedOver && counted > letters.count))
                }
            }
        }

        let deliveriesByLife = Dictionary(grouping: history.deliveries, by: \.life)
        let ticksByLife = Dictionary(grouping: history.ticks, by: \.life)
        for life in history.lives {
            // `delivered` counts every arrival dispatched locally: stream deliveries and ticks.
            let heard = (deliveriesByLife[life.life]?.count ?? 0) + (ticksByLife[life.life]?.count ?? 0)
            if let statistics = life.statistics, statistics.delivered != heard {
                violations.append(
                    .init(
                        rule: .statistics,
                        message:
                            "\(life.life) counted \(statistics.delivered) deliveries, its listeners heard \(heard)",
                        window: []))
            }
        }
        for (life, records) in deliveriesByLife.sorted(by: { $0.key < $1.key }) {
            var done: Set<CampaignOrder> = []
            var lastFirst: [String: CampaignOrder] = [:]
            for record in records {
                if done.contains(record.order) {
                    violations.append(
                        .init(
                            rule: .duplicateInLife, message: "\(record.order.name) in \(life)",
                            window: records.filter { $0.order == record.order }.map(line)))
                }
                if record.succeeded { done.insert(record.order) }
                guard record.deliveryCount == 1 else { continue }
                if let last = lastFirst[record.order.key], last.seq >= record.order.seq {
                    violations.append(
                        .init(
                            rule: .outOfOrder, message: "\(record.order.name) after \(last.name) in \(life)",
                            window: records.filter { $0.order == last || $0.order == record.order }.map(line),
                            allowed: failedOver || (history.finalStreams[record.order] ?? 0) > 1))
                }
                lastFirst[record.order.key] = record.order
            }
        }

        for (life, arrivals) in Dictionary(grouping: history.ticks, by: \.life).sorted(by: { $0.key < $1.key }) {
            var heard: Set<Int> = []
            var last = 0
            for arrival in arrivals {
                if arrival.seq < 1 || arrival.seq > history.ticksDispatched {
                    violations.append(
                        .init(rule: .pubSubPhantom, message: "tick \(arrival.seq) in \(life)", window: []))
                }
                if !heard.insert(arrival.seq).inserted {
                    violations.append(
                        .init(rule: .pubSubDuplicate, message: "tick \(arrival.seq) in \(life)", window: []))
                } else if arrival.seq < last {
                    violations.append(
                        .init(
                            rule: .pubSubOutOfOrder, message: "tick \(arrival.seq) after \(last) in \(life)",
                            window: [], allowed: history.pubSubLossesReported > 0))
                }
                last = max(last, arrival.seq)
            }
        }
        return violations
    }

    private static func line(_ delivery: History.Delivery) -> String {
        "\(delivery.life): \(delivery.order.name) delivery \(delivery.deliveryCount) "
            + (delivery.succeeded ? "succeeded" : "failed")
    }

    private static func byName(_ a: CampaignOrder, _ b: CampaignOrder) -> Bool {
        (a.key, a.seq) < (b.key, b.seq)
    }
}
