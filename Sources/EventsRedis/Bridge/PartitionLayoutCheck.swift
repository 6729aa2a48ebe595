/// Looks, once a bridge has started, for processes that carry one of its stream types on
/// another number of partitions, and reports each mismatch it finds (to the error handler, the
/// statistics and the log).
///
/// A process that publishes a type on one partition layout and a process that reads it on
/// another never meet: the events wait, unread, on streams nobody reads. Nothing fails, so
/// without this check nothing would say so. What it looks at, per carried stream type:
///
/// - Read here on `n` partitions: unread entries on the plain stream, or on partition `n`
///   (which only a process with more partitions writes).
/// - Read here unpartitioned: unread entries on partition 0 (a partitioned publisher writes
///   there only for the keys that hash to it, so this one can miss a mismatch).
/// - Published here on `n` partitions: consumer groups on the plain stream but not on
///   partition 0 (they read where this bridge does not write), or on partition 0 but not on
///   partition `n - 1` (they read fewer partitions than this bridge writes).
/// - Published here unpartitioned: consumer groups on partition 0 but not on the plain stream.
///
/// A group on both layouts reads both, as one does while it moves from one to the other.
///
/// "Unread" is from this bridge's consumer group: entries it has not read (its `lag`), read
/// and not acknowledged, or, where the group is not there at all, every entry. Old partitions
/// left after a deliberate change of layout are reported until they are drained, which is
/// what an operator needs to know before deleting them.
struct PartitionLayoutCheck: Sendable {
    /// A stream to look at, and what of it would mean a mismatch.
    struct Probe: Equatable, Sendable {
        enum Concern: Equatable, Sendable {
            /// Entries the group has not acknowledged: another process publishes here.
            case unreadEntries
            /// Consumer groups that are not on `stream` too, where this bridge publishes:
            /// another process reads the type on another layout.
            case readersMissingFrom(stream: String)
        }

        let wireType: String
        let stream: String
        let concern: Concern
    }

    let probes: [Probe]
    let group: String

    /// The probes for a bridge's carried events: `received` and `published` are those it reads
    /// and those it publishes, each with its stream keys.
    init(received: [CarriedEvent], published: [CarriedEvent], keyPrefix: String, group: String) {
        var probes: [Probe] = []
        for event in received where event.mode == .stream {
            let count = event.keys.count
            let streams =
                count == 1
                ? [StreamPartitions.key(prefix: keyPrefix, wireName: event.wireType, partition: 0)]
                : [
                    keyPrefix + event.wireType,
                    StreamPartitions.key(prefix: keyPrefix, wireName: event.wireType, partition: count),
                ]
            probes += streams.map { Probe(wireType: event.wireType, stream: $0, concern: .unreadEntries) }
        }
        for event in published where event.mode == .stream {
            let count = event.keys.count
            let otherLayout =
                count == 1
                ? StreamPartitions.key(prefix: keyPrefix, wireName: event.wireType, partition: 0)
                : keyPrefix + event.wireType
            var pairs = [(otherLayout, event.keys[0])]
            if count > 1 { pairs.append((event.keys[0], event.keys[count - 1])) }
            probes += pairs.map { stream, written in
                Probe(wireType: event.wireType, stream: stream, concern: .readersMissingFrom(stream: written))
            }
        }
        self.probes = probes
        self.group = group
    }

    /// What one run found: each mismatch as an error and as its log record (with the facts in
    /// fields of their own), and last a debug record that the check is done.
    struct Findings {
        var mismatches: [(error: RedisBridgeError, record: RedisBridge.LogRecord)] = []
        var done: RedisBridge.LogRecord?
    }

    /// The mismatches the probes find; nothing at all when Redis cannot be asked (the bridge
    /// reports its connection problems elsewhere).
    func run(_ client: RedisClient) async -> Findings {
        // Each stream once: a type both read and published, or a publisher's first partition
        // (probed and compared with), would otherwise be asked about twice.
        var streams: [String] = []
        var seen: Set<String> = []
        for probe in probes {
            var involved = [probe.stream]
            if case .readersMissingFrom(let other) = probe.concern { involved.append(other) }
            for stream in involved where seen.insert(stream).inserted { streams.append(stream) }
        }
        guard !streams.isEmpty else { return Findings() }
        let commands: [[RedisArgument]] = streams.flatMap { stream in
            [["XLEN", RedisArgument(stream)], ["XINFO", "GROUPS", RedisArgument(stream)]]
        }
        guard let replies = try? await client.pipeline(commands), replies.count == commands.count else {
            return Findings()
        }
        var found: [String: (length: Int, groups: [GroupInfo])] = [:]
        for (index, stream) in streams.enumerated() {
            // A missing stream answers XLEN with 0 and XINFO with an error: no entries, no groups.
            let groups = replies[2 * index + 1].array?.compactMap(GroupInfo.init) ?? []
            found[stream] = (replies[2 * index].int ?? 0, groups)
        }
        let mismatches = probes.compactMap { probe in
            found[probe.stream].flatMap { mismatch(for: probe, length: $0.length, groups: $0.groups, found: found) }
        }
        let done = RedisBridge.LogRecord(
            level: .debug, message: "Redis bridge checked the partition layouts of its streams",
            metadata: ["streams": String(streams.count), "mismatches": String(mismatches.count)])
        return Findings(mismatches: mismatches, done: done)
    }

    private func mismatch(
        for probe: Probe, length: Int, groups: [GroupInfo], found: [String: (length: Int, groups: [GroupInfo])]
    ) -> (error: RedisBridgeError, record: RedisBridge.LogRecord)? {
        var metadata = ["type": probe.wireType, "stream": probe.stream]
        let reason: String
        switch probe.concern {
        case .unreadEntries:
            let unread = groups.first { $0.name == group }.map { $0.pending + ($0.lag ?? 0) } ?? length
            guard unread > 0 else { return nil }
            metadata["entries"] = String(unread)
            metadata["group"] = group
            reason =
                "\(unread) entries of \(probe.wireType) wait unread on \(probe.stream), "
                + "a stream this bridge does not read; a process carries the type on another number of "
                + "partitions, or an old partition is not drained yet"
        case .readersMissingFrom(let written):
            let readers = Set(groups.map(\.name)).subtracting(found[written]?.groups.map(\.name) ?? [])
            guard !readers.isEmpty else { return nil }
            let names = readers.sorted().joined(separator: ",")
            metadata["groups"] = names
            reason =
                "the consumer groups \(names) read \(probe.wireType) on \(probe.stream) but not "
                + "on \(written), where this bridge publishes it; they carry the type on another number of "
                + "partitions and miss its events"
        }
        let error = RedisBridgeError.partitionLayoutMismatch(type: probe.wireType, stream: probe.stream, reason: reason)
        let record = RedisBridge.LogRecord(
            level: .warning, message: error.description, metadata: metadata, error: error)
        return (error, record)
    }

    /// One consumer group of `XINFO GROUPS`: a flat list of field names and values.
    struct GroupInfo {
        let name: String
        let pending: Int
        /// Entries not yet read by the group; nil where Redis cannot tell (entries were deleted)
        /// or is older than 7.0.
        let lag: Int?

        init?(_ reply: RESPValue) {
            guard let fields = reply.array, fields.count.isMultiple(of: 2) else { return nil }
            var values: [String: RESPValue] = [:]
            for index in stride(from: 0, to: fields.count, by: 2) {
                guard let field = fields[index].string else { return nil }
                values[field] = fields[index + 1]
            }
            guard let name = values["name"]?.string else { return nil }
            self.name = name
            pending = max(values["pending"]?.int ?? 0, 0)
            lag = values["lag"]?.int.map { max($0, 0) }
        }
    }
}
