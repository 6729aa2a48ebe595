/// `events-redis check [TYPE...]`: the partition layouts and consumer groups that do not match,
/// as a bridge's own check at start reports them (see `RedisBridge.carry(_:mode:partitions:by:)`).
///
/// A bridge knows its own layout and group and looks for the others. From outside, the layouts
/// in use are read from Redis: a group on the plain stream reads one stream, a group on
/// partitions reads one past the highest partition it is on, and streams that exist were
/// written on their layout. Each layout in use is then probed as a bridge on it probes:
///
/// - Read on `n` partitions by group `G`: entries `G` has not acknowledged on the plain stream
///   or on partition `n`; read on the plain stream: on partition 0.
/// - Published on `n` partitions: groups on the plain stream but not on partition 0, or on
///   partition 0 but not on partition `n - 1`; published on the plain stream: groups on
///   partition 0 but not on the plain stream.
///
/// `--partitions N` probes the one layout `N` instead, as a bridge carrying the type on `N`
/// partitions would, and so also finds old partitions left over after a move to fewer.
struct CheckCommand {
    let access: RedisAccess
    let types: [String]
    let partitions: Int?
    let group: String?

    private enum Concern: Hashable {
        case unread(group: String)
        case readersMissingFrom(String)
    }

    private struct Probe: Hashable {
        let stream: String
        let concern: Concern
        let layout: Int
    }

    struct Mismatch {
        let type: String
        let stream: String
        let layout: Int
        let reason: String
        var group: String? = nil
        var entries: Int? = nil
        var groups: [String]? = nil
        var missingFrom: String? = nil
    }

    struct TypeLayouts {
        let type: String
        let layouts: [Int]
        let groups: [String]
    }

    func run() async throws(CommandFailure) -> ExitStatus {
        let inventory = try await Inventory.discover(access, types: types.isEmpty ? nil : types)
        if let missing = types.first(where: { inventory.types[$0] == nil }) {
            throw .notFound("no stream of \(missing) under the key prefix '\(access.options.keyPrefix)'")
        }
        var mismatches: [Mismatch] = []
        var checked: [TypeLayouts] = []
        for streams in inventory.types.values.sorted(by: { $0.type < $1.type }) {
            let (layouts, found) = try await check(streams)
            checked.append(layouts)
            mismatches += found
        }
        if access.options.json {
            Output.line(json(checked, mismatches).text)
        } else {
            for mismatch in mismatches { Output.line("mismatch: \(mismatch.reason)") }
            for type in checked where !mismatches.contains(where: { $0.type == type.type }) {
                let groups = type.groups.isEmpty ? "no groups" : "groups " + type.groups.joined(separator: ", ")
                Output.line(
                    "ok: \(type.type) on \(type.layouts.map(Self.layoutText).joined(separator: " and ")), \(groups)")
            }
            if checked.isEmpty {
                Output.line("no carried stream types found under the key prefix '\(access.options.keyPrefix)'")
            }
            if !mismatches.isEmpty {
                let types = Set(mismatches.map(\.type)).count
                Output.line("\(plural(mismatches.count, "mismatch", plural: "mismatches")) in \(plural(types, "type"))")
            }
        }
        return mismatches.isEmpty ? .success : .findings
    }

    private func check(_ streams: TypeStreams) async throws(CommandFailure) -> (TypeLayouts, [Mismatch]) {
        let scheme = access.options.scheme
        let type = streams.type
        let existing = try await StreamFacts.read(streams.keys(scheme), scheme: scheme, access: access)
        var groupsOn: [String: Set<String>] = [:]
        for stream in existing { groupsOn[stream.key] = Set(stream.groups.map(\.name)) }
        let allGroups = Set(existing.flatMap { $0.groups.map(\.name) }).filter { group == nil || $0 == group }

        // The layouts in use, with the groups that read on each.
        var readers: [Int: Set<String>] = [:]
        var writers: Set<Int> = []
        if let partitions {
            readers[partitions] = allGroups
            writers.insert(partitions)
        } else {
            for name in allGroups {
                if existing.contains(where: { $0.partition == nil && $0.groups.contains { $0.name == name } }) {
                    readers[1, default: []].insert(name)
                }
                let highest = existing.filter { $0.groups.contains { $0.name == name } }.compactMap(\.partition).max()
                if let highest { readers[highest + 1, default: []].insert(name) }
            }
            if streams.hasPlainStream { writers.insert(1) }
            if !streams.partitions.isEmpty { writers.insert(streams.partitionCount) }
            writers.formUnion(readers.keys)
        }

        var probes: [Probe] = []
        for (layout, names) in readers.sorted(by: { $0.key < $1.key }) {
            let streams =
                layout == 1
                ? [scheme.partitionKey(type, 0)] : [scheme.plainKey(type), scheme.partitionKey(type, layout)]
            for stream in streams {
                for name in names.sorted() {
                    probes.append(Probe(stream: stream, concern: .unread(group: name), layout: layout))
                }
            }
        }
        for layout in writers.sorted() {
            let keys = scheme.streamKeys(type, partitions: layout)
            let other = layout == 1 ? scheme.partitionKey(type, 0) : scheme.plainKey(type)
            var pairs = [(other, keys[0])]
            if layout > 1 { pairs.append((keys[0], keys[layout - 1])) }
            probes += pairs.map { Probe(stream: $0.0, concern: .readersMissingFrom($0.1), layout: layout) }
        }

        // The streams probed that are not there answer as empty, without groups.
        let known = Set(existing.map(\.key))
        var involved: [String] = []
        for probe in probes {
            var keys = [probe.stream]
            if case .readersMissingFrom(let written) = probe.concern { keys.append(written) }
            for key in keys where !known.contains(key) && !involved.contains(key) { involved.append(key) }
        }
        let more = try await StreamFacts.read(involved.map { ($0, nil) }, scheme: scheme, access: access)
        var facts: [String: StreamFacts] = [:]
        for stream in existing + more { facts[stream.key] = stream }

        var mismatches: [Mismatch] = []
        var seen: Set<Probe> = []
        for probe in probes where seen.insert(probe).inserted {
            guard let stream = facts[probe.stream] else { continue }
            switch probe.concern {
            case .unread(let name):
                let unread = stream.groups.first { $0.name == name }.map { $0.pending + ($0.lag ?? 0) } ?? stream.length
                guard unread > 0 else { continue }
                let reason =
                    "\(plural(unread, "entry", plural: "entries")) of \(type) wait unread by group "
                    + "\(name) on \(probe.stream), a stream that its layout (\(Self.layoutText(probe.layout))) does not "
                    + "read; a process carries the type on another number of partitions, or an old partition is not "
                    + "drained yet"
                mismatches.append(
                    Mismatch(
                        type: type, stream: probe.stream, layout: probe.layout, reason: reason, group: name,
                        entries: unread))
            case .readersMissingFrom(let written):
                let readers = Set(stream.groups.map(\.name)).subtracting(facts[written]?.groups.map(\.name) ?? [])
                    .filter { group == nil || $0 == group }
                guard !readers.isEmpty else { continue }
                let names = readers.sorted()
                let reason =
                    "the consumer groups \(names.joined(separator: ",")) read \(type) on \(probe.stream) but not on "
                    + "\(written), where a process carrying it on \(Self.layoutText(probe.layout)) publishes it; they carry "
                    + "the type on another number of partitions and miss its events"
                mismatches.append(
                    Mismatch(
                        type: type, stream: probe.stream, layout: probe.layout, reason: reason, groups: names,
                        missingFrom: written))
            }
        }
        let layouts = TypeLayouts(
            type: type, layouts: Array(Set(readers.keys).union(writers)).sorted(), groups: allGroups.sorted())
        return (layouts, mismatches)
    }

    static func layoutText(_ layout: Int) -> String { layout == 1 ? "one stream" : "\(layout) partitions" }

    private func json(_ checked: [TypeLayouts], _ mismatches: [Mismatch]) -> JSON {
        .object([
            (
                "types",
                .array(
                    checked.map { type in
                        .object([
                            ("type", .string(type.type)), ("layouts", .array(type.layouts.map(JSON.int))),
                            ("groups", .array(type.groups.map(JSON.string))),
                        ])
                    })
            ),
            (
                "mismatches",
                .array(
                    mismatches.map { mismatch in
                        .object([
                            ("type", .string(mismatch.type)), ("stream", .string(mismatch.stream)),
                            ("layout", .int(mismatch.layout)), ("group", .optional(mismatch.group)),
                            ("entries", .optional(mismatch.entries)),
                            ("groups", mismatch.groups.map { .array($0.map(JSON.string)) } ?? .null),
                            ("missingFrom", .optional(mismatch.missingFrom)), ("reason", .string(mismatch.reason)),
                        ])
                    })
            ),
        ])
    }
}
