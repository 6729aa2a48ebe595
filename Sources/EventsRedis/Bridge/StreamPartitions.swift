/// How a busy event type is spread over several streams: the keys of its partitions, and which
/// partition an event goes to.
///
/// Partition `i` of the stream `<prefix><wire name>` is the key `<prefix>{<wire name>:<i>}`.
/// The braces are a Redis Cluster hash tag: each partition hashes on its own name and number, so
/// the partitions land on different slots (and shards), while the partition's dead-letter
/// stream (`<key>:dead` by default) shares its partition's slot.
enum StreamPartitions {
    /// The most partitions one event type may have: each is a stream to read and a key to
    /// watch, and more than the shards of any cluster buys nothing.
    static let maximum = 1024

    /// The stream keys of the `count` partitions of `wireName` under `prefix`; one partition
    /// is the plain stream.
    static func keys(prefix: String, wireName: String, count: Int) -> [String] {
        guard count > 1 else { return [prefix + wireName] }
        return (0..<count).map { key(prefix: prefix, wireName: wireName, partition: $0) }
    }

    /// The stream key of partition `partition` of `wireName` under `prefix`, whatever the count.
    static func key(prefix: String, wireName: String, partition: Int) -> String {
        "\(prefix){\(wireName):\(partition)}"
    }

    /// The partition, of `count`, that events with `partitionKey` go to. The hash is FNV-1a
    /// over the key's UTF-8 bytes rather than `Hasher`, which is seeded anew in every process:
    /// the same key must pick the same partition in every process and after a restart, or a
    /// key's events would be spread over partitions and lose their order.
    static func index(of partitionKey: String, count: Int) -> Int {
        guard count > 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in partitionKey.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(count))
    }
}

/// A stream entry id (`<milliseconds>-<sequence>`) ordered as Redis orders them. An id that is
/// not of that form (anyone may write to a stream Redis holds) sorts before every other, so
/// ordering never fails on it.
struct StreamEntryID: Comparable {
    let milliseconds: UInt64
    let sequence: UInt64

    init(_ text: String) {
        let parts = text.split(separator: "-", maxSplits: 1)
        milliseconds = parts.first.flatMap { UInt64($0) } ?? 0
        sequence = parts.count == 2 ? UInt64(parts[1]) ?? 0 : 0
    }

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.milliseconds, lhs.sequence) < (rhs.milliseconds, rhs.sequence)
    }
}
