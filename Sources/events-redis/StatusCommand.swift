/// `events-redis status [TYPE...]`: per carried event type, its streams, length, consumer
/// groups, consumers, pending entries, lag, dead letters and the age of its oldest pending entry.
struct StatusCommand {
    let access: RedisAccess
    let types: [String]

    /// One consumer group over every stream of a type (a group reads all partitions).
    struct GroupSummary {
        let name: String
        var consumers: Set<String> = []
        var pending = 0
        var lag: Int? = 0
        var oldestPendingID: String?
    }

    struct TypeStatus {
        enum Kind {
            case stream([StreamFacts])
            case pubSub(subscribers: Int)
            case missing
        }

        let type: String
        let kind: Kind
    }

    func run() async throws(CommandFailure) -> ExitStatus {
        let scheme = access.options.scheme
        let inventory = try await Inventory.discover(access, types: types.isEmpty ? nil : types)
        let now = try await access.serverMilliseconds()
        var statuses: [TypeStatus] = []
        if types.isEmpty {
            for streams in inventory.types.values.sorted(by: { $0.type < $1.type }) {
                statuses.append(try await status(of: streams))
            }
            // Pub/Sub leaves nothing in Redis; a type shows while someone subscribes to it.
            let channels = try await access.channels(matching: KeyScheme.globEscaped(scheme.prefix) + "*")
            for (channel, count) in channels.sorted(by: { $0.key < $1.key }) {
                guard let parsed = scheme.parse(channel), parsed.partition == nil, !parsed.isDeadLetters,
                    inventory.types[parsed.type] == nil
                else { continue }
                statuses.append(TypeStatus(type: parsed.type, kind: .pubSub(subscribers: count)))
            }
        } else {
            for type in types {
                if let streams = inventory.types[type] {
                    statuses.append(try await status(of: streams))
                } else {
                    let subscribers = try await access.subscribers(of: scheme.channel(type))
                    statuses.append(
                        TypeStatus(type: type, kind: subscribers > 0 ? .pubSub(subscribers: subscribers) : .missing))
                }
            }
        }
        if access.options.json {
            Output.line(json(statuses, now: now).text)
        } else if statuses.isEmpty {
            Output.line("no carried event types found under the key prefix '\(scheme.prefix)'")
        } else {
            for status in statuses { Output.line(text(status, now: now)) }
        }
        let nothingMatched =
            statuses.isEmpty
            || statuses.contains {
                if case .missing = $0.kind { return true }
                return false
            }
        return nothingMatched ? .findings : .success
    }

    private func status(of streams: TypeStreams) async throws(CommandFailure) -> TypeStatus {
        let scheme = access.options.scheme
        var facts = try await StreamFacts.read(streams.keys(scheme), scheme: scheme, access: access)
        try await StreamFacts.readDetails(&facts, access: access)
        return TypeStatus(type: streams.type, kind: .stream(facts))
    }

    /// `1 stream`, `4 partitions`, or both while a type moves from one layout to the other.
    static func layout(_ facts: [StreamFacts]) -> String {
        let partitions = facts.filter { $0.partition != nil }.count
        guard partitions > 0 else { return "1 stream" }
        return plural(partitions, "partition") + (partitions < facts.count ? " and the plain stream" : "")
    }

    /// The lag of every group together; nil without groups, or when Redis cannot tell one's.
    static func totalLag(_ groups: [GroupSummary]) -> Int? {
        guard !groups.isEmpty else { return nil }
        return groups.reduce(Optional(0)) { total, group in total.flatMap { sum in group.lag.map { sum + $0 } } }
    }

    static func groups(_ facts: [StreamFacts]) -> [GroupSummary] {
        var groups: [String: GroupSummary] = [:]
        for stream in facts {
            for group in stream.groups {
                var summary = groups[group.name] ?? GroupSummary(name: group.name)
                summary.consumers.formUnion(group.consumers.map(\.name))
                summary.pending += group.pending
                summary.lag = summary.lag.flatMap { total in group.lag.map { total + $0 } }
                if let oldest = group.oldestPendingID,
                    summary.oldestPendingID.map({ entryIDPrecedes(oldest, $0) }) ?? true
                {
                    summary.oldestPendingID = oldest
                }
                groups[group.name] = summary
            }
        }
        return groups.values.sorted { $0.name < $1.name }
    }

    /// The oldest of `ids`, and how long ago Redis added it.
    static func oldestAge(_ ids: [String?], now: Int) -> Int? {
        let oldest = ids.compactMap { $0 }.min(by: entryIDPrecedes)
        return oldest.flatMap(entryMilliseconds).map { max(now - $0, 0) }
    }

    // MARK: - Text

    private func text(_ status: TypeStatus, now: Int) -> String {
        switch status.kind {
        case .missing:
            return "\(status.type): not found (no stream under '\(access.options.keyPrefix)', no subscriber)"
        case .pubSub(let subscribers):
            return "\(status.type): pub/sub, \(plural(subscribers, "subscriber"))"
        case .stream(let facts):
            let groups = Self.groups(facts)
            var lines = ["\(status.type): stream, \(Self.layout(facts))"]
            let lag = Self.totalLag(groups)
            var totals = [
                "length \(facts.reduce(0) { $0 + $1.length })",
                "pending \(groups.reduce(0) { $0 + $1.pending })",
                "lag \(lag.map(String.init) ?? "-")",
                "dead letters \(facts.reduce(0) { $0 + $1.deadLetters })",
            ]
            if let age = Self.oldestAge(groups.map(\.oldestPendingID), now: now) {
                totals.append("oldest pending \(Duration.milliseconds(age).readable)")
            }
            lines.append("  " + totals.joined(separator: ", "))
            for group in groups {
                var parts = [
                    plural(group.consumers.count, "consumer")
                        + (group.consumers.isEmpty ? "" : " (\(group.consumers.sorted().joined(separator: ", ")))"),
                    "pending \(group.pending)", "lag \(group.lag.map(String.init) ?? "-")",
                ]
                if let age = Self.oldestAge([group.oldestPendingID], now: now) {
                    parts.append("oldest pending \(Duration.milliseconds(age).readable)")
                }
                lines.append("  group \(group.name): " + parts.joined(separator: ", "))
            }
            for stream in facts {
                let groups = stream.groups.map {
                    "\($0.name) pending \($0.pending) lag \($0.lag.map(String.init) ?? "-")"
                }
                lines.append(
                    "  \(stream.key): length \(stream.length), dead letters \(stream.deadLetters)"
                        + (groups.isEmpty ? ", no groups" : ", " + groups.joined(separator: ", ")))
            }
            return lines.joined(separator: "\n")
        }
    }

    // MARK: - JSON

    private func json(_ statuses: [TypeStatus], now: Int) -> JSON {
        .object([
            ("keyPrefix", .string(access.options.keyPrefix)),
            ("types", .array(statuses.map { json($0, now: now) })),
        ])
    }

    private func json(_ status: TypeStatus, now: Int) -> JSON {
        switch status.kind {
        case .missing:
            return .object([("type", .string(status.type)), ("mode", .string("missing"))])
        case .pubSub(let subscribers):
            return .object([
                ("type", .string(status.type)), ("mode", .string("pubsub")), ("subscribers", .int(subscribers)),
            ])
        case .stream(let facts):
            let groups = Self.groups(facts)
            let lag = Self.totalLag(groups)
            let partitions = facts.filter { $0.partition != nil }.count
            return .object([
                ("type", .string(status.type)), ("mode", .string("stream")),
                ("partitions", .int(max(partitions, 1))),
                ("plainStream", .bool(facts.contains { $0.partition == nil })),
                ("length", .int(facts.reduce(0) { $0 + $1.length })),
                ("pending", .int(groups.reduce(0) { $0 + $1.pending })),
                ("lag", .optional(lag)),
                ("deadLetters", .int(facts.reduce(0) { $0 + $1.deadLetters })),
                ("oldestPendingAgeMilliseconds", .optional(Self.oldestAge(groups.map(\.oldestPendingID), now: now))),
                (
                    "groups",
                    .array(
                        groups.map { group in
                            .object([
                                ("name", .string(group.name)),
                                ("consumers", .array(group.consumers.sorted().map(JSON.string))),
                                ("pending", .int(group.pending)), ("lag", .optional(group.lag)),
                                (
                                    "oldestPendingAgeMilliseconds",
                                    .optional(Self.oldestAge([group.oldestPendingID], now: now))
                                ),
                            ])
                        })
                ),
                ("streams", .array(facts.map(json))),
            ])
        }
    }

    private func json(_ stream: StreamFacts) -> JSON {
        .object([
            ("key", .string(stream.key)), ("partition", .optional(stream.partition)), ("length", .int(stream.length)),
            ("deadLetterStream", .string(stream.deadLetterKey)), ("deadLetters", .int(stream.deadLetters)),
            (
                "groups",
                .array(
                    stream.groups.map { group in
                        .object([
                            ("name", .string(group.name)), ("pending", .int(group.pending)),
                            ("lag", .optional(group.lag)), ("lastDeliveredID", .optional(group.lastDeliveredID)),
                            ("oldestPendingID", .optional(group.oldestPendingID)),
                            (
                                "consumers",
                                .array(
                                    group.consumers.map { consumer in
                                        .object([
                                            ("name", .string(consumer.name)), ("pending", .int(consumer.pending)),
                                            ("idleMilliseconds", .optional(consumer.idleMilliseconds)),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
        ])
    }
}

/// `1 partition`, `3 partitions`; `plural` where adding an s is not the plural.
func plural(_ count: Int, _ noun: String, plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
}

extension Duration {
    /// A duration as an operator reads it: `850ms`, `12.3s`, `5m 03s`, `2h 05m`, `3d 04h`.
    var readable: String {
        let milliseconds = Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        switch milliseconds {
        case ..<1000: return "\(milliseconds)ms"
        case ..<60_000: return "\(milliseconds / 1000).\(milliseconds % 1000 / 100)s"
        case ..<3_600_000: return "\(milliseconds / 60_000)m \(two(milliseconds / 1000 % 60))s"
        case ..<86_400_000: return "\(milliseconds / 3_600_000)h \(two(milliseconds / 60_000 % 60))m"
        default: return "\(milliseconds / 86_400_000)d \(two(milliseconds / 3_600_000 % 24))h"
        }
    }
}
