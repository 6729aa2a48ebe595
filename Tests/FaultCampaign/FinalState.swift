import Events
import EventsRedis
import EventsRedisClient
import Foundation

/// What Redis holds at the end of a run.
enum FinalState {
    /// How many entries of each order the partition streams hold.
    static func streams(_ client: RedisClient) async throws -> [CampaignOrder: Int] {
        var counts: [CampaignOrder: Int] = [:]
        for key in CampaignRules.streamKeys {
            let reply = try await client.send("XRANGE", RedisArgument(key), "-", "+")
            for entry in reply.array ?? [] {
                guard let parts = entry.array, parts.count == 2, let fields = parts[1].array else { continue }
                var index = 0
                while index + 1 < fields.count {
                    if fields[index].string == "event", let bytes = fields[index + 1].bytes,
                        let order = order(inEventJSON: bytes)
                    {
                        counts[order, default: 0] += 1
                    }
                    index += 2
                }
            }
        }
        return counts
    }

    /// The dead letters of every group, through a bridge of the driver's own that is never
    /// started (reading dead letters needs none): the publisher's lives come and go, and the
    /// last may have been killed.
    static func deadLetters(spec: String) async throws -> [History.DeadLetter] {
        var configuration = RedisBridge.Configuration(
            redis: Deployment.configuration(spec: spec)!, source: "campaign-checker")
        configuration.keyPrefix = CampaignRules.keyPrefix
        let bridge = RedisBridge(center: EventCenter(), configuration: configuration)
        // Carried to name the partition streams, as every process of a run carries them.
        try CampaignRules.carry(on: bridge, direction: .outgoing)
        let letters: [RedisBridge.DeadLetter]
        do {
            letters = try await bridge.deadLetters(of: CampaignOrder.self, limit: 1_000_000)
        } catch {
            await bridge.stop()
            throw error
        }
        await bridge.stop()
        return letters.compactMap { letter in
            guard let order = order(inEventJSON: letter.event) else { return nil }
            return History.DeadLetter(group: letter.group, order: order, deliveries: letter.deliveries)
        }
    }

    /// The order in a CloudEvent's JSON, from its `data`.
    static func order(inEventJSON bytes: [UInt8]) -> CampaignOrder? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let data = object["data"] as? [String: Any], let key = data["key"] as? String,
            let seq = data["seq"] as? Int
        else { return nil }
        return CampaignOrder(key: key, seq: seq)
    }
}

/// Waits until every group has read every entry of every partition and has none pending.
enum Quiescence {
    /// Whether the groups settled within the bound; when they did not, what the last check
    /// still found (which stream, which group, how many entries pending or unread).
    static func wait(_ client: RedisClient, groups: [String], within timeout: Duration) async -> (
        settled: Bool, waitingFor: String
    ) {
        let deadline = ContinuousClock.now + timeout
        var calmChecks = 0
        var waitingFor = ""
        while ContinuousClock.now < deadline {
            waitingFor = await unsettled(client, groups: groups)
            if waitingFor.isEmpty {
                // Three times in a row: a retry between two reads of XINFO could hide behind one.
                calmChecks += 1
                if calmChecks == 3 { return (true, "") }
            } else {
                calmChecks = 0
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return (false, waitingFor)
    }

    /// What is not settled yet, one clause per stream and group; empty when everything is.
    private static func unsettled(_ client: RedisClient, groups: [String]) async -> String {
        var clauses: [String] = []
        for key in CampaignRules.streamKeys {
            let reply: RESPValue
            let stream: RESPValue
            do {
                reply = try await client.send("XINFO", "GROUPS", RedisArgument(key))
                stream = try await client.send("XINFO", "STREAM", RedisArgument(key))
            } catch {
                clauses.append("\(key): XINFO failed: \(error)")
                continue
            }
            guard let streamInfo = stream.fields else {
                clauses.append("\(key): XINFO STREAM replied \(stream)")
                continue
            }
            let lastGenerated = streamInfo["last-generated-id"]?.string.flatMap(EntryID.init)
            var seen: Set<String> = []
            for group in reply.array ?? [] {
                let info = group.fields ?? [:]
                guard let name = info["name"]?.string else { continue }
                seen.insert(name)
                let pending = info["pending"]?.int ?? -1
                // Whether the group has read the stream's newest entry, by their ids. Redis's
                // `lag` is only an estimate: after a slot migration and a failover it was seen
                // to stay at 15 for a group whose last delivered id was the stream's last.
                let lastDelivered = info["last-delivered-id"]?.string.flatMap(EntryID.init)
                let unread = lastGenerated.map { last in lastDelivered.map { $0 < last } ?? true } ?? false
                let lag = info["lag"]?.int
                if pending != 0 || unread {
                    clauses.append(
                        "\(key) group \(name): \(pending) pending, lag \(lag.map(String.init) ?? "unknown"), "
                            + "last delivered \(info["last-delivered-id"]?.string ?? "?") of "
                            + "\(lastGenerated.map { "\($0)" } ?? "?")")
                }
            }
            for missing in Set(groups).subtracting(seen).sorted() { clauses.append("\(key): no group \(missing)") }
        }
        return clauses.joined(separator: "; ")
    }
}

/// A stream entry id, `milliseconds-sequence`, ordered as Redis orders them.
package struct EntryID: Comparable, CustomStringConvertible, Sendable {
    package let milliseconds: UInt64
    package let sequence: UInt64

    package init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let milliseconds = UInt64(parts[0]), let sequence = UInt64(parts[1]) else {
            return nil
        }
        self.milliseconds = milliseconds
        self.sequence = sequence
    }

    package static func < (lhs: EntryID, rhs: EntryID) -> Bool {
        (lhs.milliseconds, lhs.sequence) < (rhs.milliseconds, rhs.sequence)
    }

    package var description: String { "\(milliseconds)-\(sequence)" }
}

/// Reads a consumer life's log file into the history; returns how many errors it reported.
enum ConsumerLog {
    static func read(_ text: String, life: String, group: String, into history: inout History) -> Int {
        var errors = 0
        var redisErrors = 0
        var statistics: History.Life.Statistics?
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "delivery" where words.count == 5:
                guard let seq = Int(words[2]), let count = Int(words[3]) else { continue }
                history.deliveries.append(
                    .init(
                        life: life, group: group, order: CampaignOrder(key: words[1], seq: seq), deliveryCount: count,
                        succeeded: words[4] == "ok"))
            case "tick" where words.count == 2:
                if let seq = Int(words[1]) { history.ticks.append(.init(life: life, seq: seq)) }
            case "error":
                errors += 1
                redisErrors += 1
            case "stats":
                var values: [String: Int] = [:]
                for word in words.dropFirst() {
                    let pair = word.split(separator: "=")
                    if pair.count == 2, let value = Int(pair[1]) { values[String(pair[0])] = value }
                }
                statistics = .init(delivered: values["delivered"] ?? -1, deadLettered: values["deadLettered"] ?? -1)
            default:
                continue
            }
        }
        history.lives.append(.init(life: life, group: group, statistics: statistics, redisErrors: redisErrors))
        return errors
    }
}
