extension RedisArgument {
    /// The argument's bytes, for hashing a key.
    var clusterBytes: [UInt8] {
        switch storage {
        case .string(let text): Array(text.utf8)
        case .bytes(let bytes): bytes
        case .integer(let value): Array(String(value).utf8)
        }
    }

    /// The argument in upper case when it is text, for matching command names and keywords.
    var upperText: String? {
        switch storage {
        case .string(let text): text.uppercased()
        case .bytes(let bytes): String(decoding: bytes, as: UTF8.self).uppercased()
        case .integer: nil
        }
    }
}

/// Which argument of a command is the key that picks its hash slot.
///
/// The rule, for commands not in the table: the first argument after the command name. The
/// table names the commands whose key sits elsewhere and the commands that have none.
enum ClusterCommandKey {
    enum Position {
        /// No key: the command may run on any node.
        case none
        /// The argument at this index (the command name is at 0).
        case at(Int)
        /// The first argument after the keyword `STREAMS` (`XREAD`, `XREADGROUP`).
        case afterStreams
        /// `EVAL`-style: the first key follows the number of keys at index 2, if that is not 0.
        case afterKeyCount
    }

    private static let keyless: Set<String> = [
        "PING", "INFO", "WAIT", "CLUSTER", "ASKING", "READONLY", "READWRITE", "MULTI", "EXEC", "DISCARD",
        "AUTH", "HELLO", "SELECT", "CLIENT", "CONFIG", "ROLE", "ECHO", "TIME", "DBSIZE", "COMMAND", "SCRIPT",
        "FUNCTION", "PUBLISH", "PUBSUB", "QUIT", "RESET", "LASTSAVE", "SAVE", "BGSAVE", "BGREWRITEAOF",
        "FLUSHALL", "FLUSHDB", "SCAN", "RANDOMKEY", "KEYS", "SLOWLOG", "LATENCY", "ACL",
    ]

    private static let secondArgument: Set<String> = ["XGROUP", "XINFO", "OBJECT", "MEMORY"]

    static func position(of command: [RedisArgument]) -> Position {
        guard let name = command.first?.upperText else { return .none }
        if name == "XREAD" || name == "XREADGROUP" { return .afterStreams }
        if name == "EVAL" || name == "EVALSHA" || name == "EVAL_RO" || name == "EVALSHA_RO" || name == "FCALL" {
            return .afterKeyCount
        }
        if secondArgument.contains(name) { return .at(2) }
        if keyless.contains(name) { return .none }
        return .at(1)
    }

    /// The slot of `command`'s key; `nil` when it has none.
    static func slot(of command: [RedisArgument]) -> Int? {
        let index: Int
        switch position(of: command) {
        case .none: return nil
        case .at(let at): index = at
        case .afterStreams:
            guard let streams = command.firstIndex(where: { $0.upperText == "STREAMS" }) else { return nil }
            index = streams + 1
        case .afterKeyCount:
            guard command.count > 2, let count = Int(String(decoding: command[2].clusterBytes, as: UTF8.self)),
                count > 0
            else {
                return nil
            }
            index = 3
        }
        guard index < command.count else { return nil }
        return ClusterSlot.of(command[index].clusterBytes)
    }
}
