import Events
import EventsRedis
import Foundation

/// `events-redis dead-letters list|show|replay|purge TYPE ...`, on the bridge's own dead-letter
/// API, so that a replay from the command line is the transaction a program's replay is.
///
/// The bridge lists the dead letters of a stream `<prefix><name>` for the name it is given, and
/// a partition is the stream `<prefix>{<wire name>:<i>}`: so each stream of a type is reached
/// by its key without the prefix, whatever layout the type has.
struct DeadLettersCommand {
    /// A dead letter, and the partition of the type it belongs to (nil for the plain stream).
    struct Found {
        let partition: Int?
        let letter: RedisBridge.DeadLetter
    }

    /// `ID`, or `PARTITION/ID` where letters of several partitions share an id.
    struct Reference: CustomStringConvertible {
        let partition: Int?
        let id: String

        init(_ text: String) throws(CommandFailure) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 {
                guard let partition = Int(parts[0]), partition >= 0 else {
                    throw .usage("bad dead-letter reference '\(text)'; expected ID or PARTITION/ID")
                }
                self.partition = partition
            } else {
                partition = nil
            }
            id = String(parts.last ?? "")
            let numbers = id.split(separator: "-", omittingEmptySubsequences: false)
            guard numbers.count == 2, numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else {
                throw .usage("bad dead-letter id '\(id)'; ids look like 1718000000000-0")
            }
        }

        var description: String { partition.map { "\($0)/\(id)" } ?? id }
    }

    let access: RedisAccess
    let type: String
    private let bridge: RedisBridge

    init(access: RedisAccess, type: String) {
        self.access = access
        self.type = type
        var configuration = RedisBridge.Configuration(redis: access.options.redis, source: "events-redis")
        configuration.keyPrefix = access.options.keyPrefix
        configuration.errorHandler = { _ in }
        bridge = RedisBridge(center: EventCenter(), configuration: configuration)
    }

    // MARK: - Subcommands

    func list(limit: Int) async throws(CommandFailure) -> ExitStatus {
        let streams = try await self.streams()
        let total = try await count(streams)
        let letters = try await self.letters(streams, limit: limit)
        if access.options.json {
            Output.line(
                JSON.object([
                    ("type", .string(type)), ("total", .int(total)), ("deadLetters", .array(letters.map(json))),
                ]
                ).text)
            return .success
        }
        Output.line(
            "\(plural(total, "dead letter")) of \(type)"
                + (letters.count < total ? ", the oldest \(letters.count):" : ""))
        for found in letters {
            let letter = found.letter
            var parts = [
                reference(found), "entry \(letter.entry)", plural(letter.deliveries, "delivery", plural: "deliveries"),
            ]
            if let time = letter.time { parts.append(Self.timestamp(time)) }
            parts.append(letter.error)
            Output.line("  " + parts.joined(separator: "  "))
        }
        return .success
    }

    func show(_ reference: Reference) async throws(CommandFailure) -> ExitStatus {
        let streams = try await self.streams()
        let matches = try await find([reference], in: streams, allowingSeveral: true)
        if access.options.json {
            Output.line(JSON.array(matches.map(json)).text)
            return .success
        }
        for found in matches {
            let letter = found.letter
            var lines = [
                "id: \(letter.id)", "dead-letter stream: \(letter.deadLetterStream)", "stream: \(letter.stream)",
                "entry: \(letter.entry)", "deliveries: \(letter.deliveries)", "error: \(letter.error)",
                "listener: \(letter.listener ?? "-")", "group: \(letter.group)", "consumer: \(letter.consumer)",
                "time: \(letter.time.map(Self.timestamp) ?? "-")",
            ]
            if let partition = found.partition { lines.insert("partition: \(partition)", at: 1) }
            lines.append("event: " + String(decoding: CloudEventLines.oneLine(letter.event), as: UTF8.self))
            Output.line(lines.joined(separator: "\n"))
        }
        return .success
    }

    /// Puts the letters back on their streams (`references` nil: all of them).
    func replay(_ references: [Reference]?, dryRun: Bool) async throws(CommandFailure) -> ExitStatus {
        let streams = try await self.streams()
        let letters: [Found]
        if let references {
            letters = try await find(references, in: streams, allowingSeveral: false)
        } else {
            letters = try await self.letters(streams, limit: max(try await count(streams), 1))
        }
        var replayed: [(Found, String?)] = []
        for found in letters {
            guard !dryRun else {
                replayed.append((found, nil))
                continue
            }
            do {
                replayed.append((found, try await bridge.replay(found.letter)))
            } catch {
                report(replayed, dryRun: dryRun)
                throw .redis("replaying \(reference(found)) failed: \(error)")
            }
        }
        report(replayed, dryRun: dryRun)
        return .success
    }

    /// Removes the letters (`references` nil: all of them).
    func purge(_ references: [Reference]?, dryRun: Bool) async throws(CommandFailure) -> ExitStatus {
        let streams = try await self.streams()
        var purged: [Found] = []
        var count = 0
        if let references {
            purged = try await find(references, in: streams, allowingSeveral: false)
            count = purged.count
            if !dryRun {
                for found in purged {
                    do {
                        try await bridge.purge(found.letter)
                    } catch {
                        throw .redis("purging \(reference(found)) failed: \(error)")
                    }
                }
            }
        } else if dryRun {
            count = try await self.count(streams)
        } else {
            for (_, name) in streams {
                do {
                    count += try await bridge.purgeDeadLetters(of: name)
                } catch {
                    throw .redis("purging the dead letters of \(type) failed: \(error)")
                }
            }
        }
        if access.options.json {
            var members: [(String, JSON)] = [
                ("type", .string(type)), ("dryRun", .bool(dryRun)), ("purged", .int(count)),
            ]
            if references != nil { members.append(("ids", .array(purged.map { .string(reference($0)) }))) }
            Output.line(JSON.object(members).text)
        } else {
            let verb = dryRun ? "would purge" : "purged"
            Output.line(
                "\(verb) \(plural(count, "dead letter")) of \(type)" + (dryRun ? " (dry run: nothing changed)" : ""))
            for found in purged { Output.line("  \(reference(found)) from \(found.letter.deadLetterStream)") }
        }
        return .success
    }

    // MARK: - Finding letters

    /// The type's streams, each with the name the bridge reaches it by.
    private func streams() async throws(CommandFailure) -> [(partition: Int?, name: EventName)] {
        let inventory = try await Inventory.discover(access, types: [type])
        guard let streams = inventory.types[type] else {
            throw .notFound("no stream of \(type) under the key prefix '\(access.options.keyPrefix)'")
        }
        let prefix = access.options.keyPrefix
        return streams.keys(access.options.scheme).map { key, partition in
            (partition, EventName(rawValue: String(key.dropFirst(prefix.count))))
        }
    }

    private func count(_ streams: [(partition: Int?, name: EventName)]) async throws(CommandFailure) -> Int {
        let scheme = access.options.scheme
        let replies = try await access.pipeline(
            streams.map { ["XLEN", RedisArgument(scheme.deadLetterKey(scheme.prefix + $0.name.rawValue))] })
        return replies.reduce(0) { $0 + ($1.int ?? 0) }
    }

    /// The oldest `limit` letters of every stream together, in the order Redis wrote them.
    private func letters(_ streams: [(partition: Int?, name: EventName)], limit: Int) async throws(CommandFailure)
        -> [Found]
    {
        var letters: [Found] = []
        for (partition, name) in streams {
            do {
                letters += try await bridge.deadLetters(of: name, limit: limit).map {
                    Found(partition: partition, letter: $0)
                }
            } catch {
                throw .redis("reading the dead letters of \(type) failed: \(error)")
            }
        }
        letters.sort { entryIDPrecedes($0.letter.id, $1.letter.id) }
        return Array(letters.prefix(limit))
    }

    /// The letters `references` name; every one must be there (and, unless `allowingSeveral`,
    /// name one letter) before anything is done, so that a mistyped id changes nothing.
    private func find(
        _ references: [Reference], in streams: [(partition: Int?, name: EventName)], allowingSeveral: Bool
    ) async throws(CommandFailure) -> [Found] {
        let all = try await letters(streams, limit: max(try await count(streams), 1))
        var found: [Found] = []
        for reference in references {
            let matches = all.filter {
                $0.letter.id == reference.id && (reference.partition == nil || reference.partition == $0.partition)
            }
            guard !matches.isEmpty else { throw .notFound("no dead letter \(reference) of \(type)") }
            if matches.count > 1, !allowingSeveral {
                let names = matches.map(self.reference).joined(separator: ", ")
                throw .usage("the id \(reference) is in several partitions of \(type): give one of \(names)")
            }
            for match in matches
            where !found.contains(where: { $0.letter.id == match.letter.id && $0.partition == match.partition }) {
                found.append(match)
            }
        }
        return found
    }

    // MARK: - Output

    private func reference(_ found: Found) -> String {
        found.partition.map { "\($0)/\(found.letter.id)" } ?? found.letter.id
    }

    private func report(_ replayed: [(Found, String?)], dryRun: Bool) {
        if access.options.json {
            let letters = replayed.map { found, entry in
                JSON.object([
                    ("id", .string(reference(found))), ("stream", .string(found.letter.stream)),
                    ("newEntry", .optional(entry)),
                ])
            }
            Output.line(
                JSON.object([
                    ("type", .string(type)), ("dryRun", .bool(dryRun)), ("replayed", .int(replayed.count)),
                    ("letters", .array(letters)),
                ]
                ).text)
            return
        }
        let verb = dryRun ? "would replay" : "replayed"
        Output.line(
            "\(verb) \(plural(replayed.count, "dead letter")) of \(type)"
                + (dryRun ? " (dry run: nothing changed)" : ""))
        for (found, entry) in replayed {
            Output.line("  \(reference(found)) -> \(found.letter.stream)" + (entry.map { " as \($0)" } ?? ""))
        }
    }

    private func json(_ found: Found) -> JSON {
        let letter = found.letter
        let event: JSON =
            (try? JSONSerialization.jsonObject(with: Data(letter.event))) != nil
            ? .verbatim(letter.event) : .string(letter.eventJSON)
        return .object([
            ("id", .string(letter.id)), ("partition", .optional(found.partition)),
            ("deadLetterStream", .string(letter.deadLetterStream)), ("stream", .string(letter.stream)),
            ("entry", .string(letter.entry)), ("deliveries", .int(letter.deliveries)), ("error", .string(letter.error)),
            ("listener", .optional(letter.listener)), ("group", .string(letter.group)),
            ("consumer", .string(letter.consumer)), ("time", .optional(letter.time.map(Self.timestamp))),
            ("event", event),
        ])
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
