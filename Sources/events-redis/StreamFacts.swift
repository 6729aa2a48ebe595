import EventsRedisClient

/// What Redis says about one of the bridge's streams: its length, its consumer groups, and its
/// dead-letter stream's length.
struct StreamFacts {
    struct Consumer {
        let name: String
        let pending: Int
        let idleMilliseconds: Int?
    }

    struct Group {
        let name: String
        let consumerCount: Int
        let pending: Int
        /// Entries the group has not read yet; nil where Redis cannot tell (entries were
        /// deleted) or is older than 7.0.
        let lag: Int?
        let lastDeliveredID: String?
        /// Filled in by `readDetails`.
        var consumers: [Consumer] = []
        var oldestPendingID: String?

        /// One group of an `XINFO GROUPS` reply.
        init?(_ reply: RESPValue) {
            guard let fields = Fields(reply), let name = fields["name"]?.string else { return nil }
            self.name = name
            consumerCount = max(fields["consumers"]?.int ?? 0, 0)
            pending = max(fields["pending"]?.int ?? 0, 0)
            lag = fields["lag"]?.int.map { max($0, 0) }
            lastDeliveredID = fields["last-delivered-id"]?.string
        }
    }

    let key: String
    let partition: Int?
    let length: Int
    var groups: [Group]
    let deadLetterKey: String
    let deadLetters: Int

    /// The facts of `keys` in one round trip (split by owner on a cluster): a stream that is
    /// not there has length 0 and no groups, as `XLEN` and `XINFO GROUPS` answer for it.
    static func read(
        _ keys: [(key: String, partition: Int?)], scheme: KeyScheme, access: RedisAccess
    ) async throws(CommandFailure) -> [StreamFacts] {
        guard !keys.isEmpty else { return [] }
        let commands: [[RedisArgument]] = keys.flatMap { key, _ in
            [
                ["XLEN", RedisArgument(key)], ["XINFO", "GROUPS", RedisArgument(key)],
                ["XLEN", RedisArgument(scheme.deadLetterKey(key))],
            ]
        }
        let replies = try await access.pipeline(commands)
        var facts: [StreamFacts] = []
        for (index, (key, partition)) in keys.enumerated() {
            let length = try integer(replies[3 * index], "XLEN \(key)")
            let groups = replies[3 * index + 1].array?.compactMap(Group.init) ?? []
            let deadLetterKey = scheme.deadLetterKey(key)
            let deadLetters = try integer(replies[3 * index + 2], "XLEN \(deadLetterKey)")
            facts.append(
                StreamFacts(
                    key: key, partition: partition, length: length, groups: groups, deadLetterKey: deadLetterKey,
                    deadLetters: deadLetters))
        }
        return facts
    }

    /// Adds each group's consumers and oldest pending entry, in one more round trip.
    static func readDetails(_ facts: inout [StreamFacts], access: RedisAccess) async throws(CommandFailure) {
        var commands: [[RedisArgument]] = []
        for stream in facts {
            for group in stream.groups {
                commands.append(["XINFO", "CONSUMERS", RedisArgument(stream.key), RedisArgument(group.name)])
                commands.append(["XPENDING", RedisArgument(stream.key), RedisArgument(group.name)])
            }
        }
        guard !commands.isEmpty else { return }
        let replies = try await access.pipeline(commands)
        var index = 0
        for streamIndex in facts.indices {
            for groupIndex in facts[streamIndex].groups.indices {
                let consumers = replies[index].array ?? []
                facts[streamIndex].groups[groupIndex].consumers = consumers.compactMap { reply in
                    guard let fields = Fields(reply), let name = fields["name"]?.string else { return nil }
                    return Consumer(
                        name: name, pending: max(fields["pending"]?.int ?? 0, 0), idleMilliseconds: fields["idle"]?.int)
                }
                // XPENDING's summary: the count, the smallest and largest pending ids, the
                // consumers with their counts.
                let summary = replies[index + 1].array ?? []
                facts[streamIndex].groups[groupIndex].oldestPendingID = summary.count > 1 ? summary[1].string : nil
                index += 2
            }
        }
    }

    private static func integer(_ reply: RESPValue, _ command: String) throws(CommandFailure) -> Int {
        if case .error(let message) = reply { throw .redis("Redis error reply to \(command): \(message)") }
        guard let value = reply.int else { throw .redis("Unexpected Redis reply to \(command): \(reply)") }
        return value
    }
}

/// The milliseconds part of a stream entry id (`<milliseconds>-<sequence>`): when Redis added it.
func entryMilliseconds(_ id: String) -> Int? {
    id.split(separator: "-", maxSplits: 1).first.flatMap { Int($0) }
}

/// Orders stream entry ids as Redis does; an id not of that form sorts first.
func entryIDPrecedes(_ lhs: String, _ rhs: String) -> Bool {
    func parts(_ id: String) -> (Int, Int) {
        let split = id.split(separator: "-", maxSplits: 1)
        return (split.first.flatMap { Int($0) } ?? 0, split.count == 2 ? Int(split[1]) ?? 0 : 0)
    }
    return parts(lhs) < parts(rhs)
}
