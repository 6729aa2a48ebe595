/// The streams of one carried event type found in Redis: its plain stream, its partitions, or
/// both (while a type moves from one layout to another).
struct TypeStreams {
    let type: String
    var hasPlainStream = false
    var partitions: Set<Int> = []

    /// The number of partitions the streams found imply: one past the highest found.
    var partitionCount: Int { (partitions.max() ?? -1) + 1 }

    /// The stream keys, the plain stream first, then the partitions in order.
    func keys(_ scheme: KeyScheme) -> [(key: String, partition: Int?)] {
        var keys: [(key: String, partition: Int?)] = []
        if hasPlainStream { keys.append((scheme.plainKey(type), nil)) }
        for partition in partitions.sorted() { keys.append((scheme.partitionKey(type, partition), partition)) }
        return keys
    }
}

/// What a `SCAN` of the bridge's key scheme finds: the stream types, by wire name.
struct Inventory {
    var types: [String: TypeStreams] = [:]

    /// The streams of `types`, or of every type under the prefix when `types` is nil. A
    /// dead-letter stream counts for the stream it belongs to, which may be trimmed away or
    /// deleted while its dead letters wait.
    static func discover(_ access: RedisAccess, types: [String]?) async throws(CommandFailure) -> Inventory {
        let scheme = access.options.scheme
        let patterns = types.map { $0.flatMap { scheme.patterns(for: $0) } } ?? scheme.patterns(for: nil)
        let wanted = types.map(Set.init)
        var inventory = Inventory()
        for key in try await access.streamKeys(matching: patterns) {
            guard let parsed = scheme.parse(key), wanted?.contains(parsed.type) ?? true else { continue }
            var streams = inventory.types[parsed.type] ?? TypeStreams(type: parsed.type)
            if let partition = parsed.partition {
                streams.partitions.insert(partition)
            } else {
                streams.hasPlainStream = true
            }
            inventory.types[parsed.type] = streams
        }
        return inventory
    }
}
