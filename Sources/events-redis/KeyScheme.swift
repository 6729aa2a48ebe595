/// The bridge's Redis keys, as `RedisBridge` names them: the plain stream or channel
/// `<prefix><wire name>`, partition `i` of a partitioned stream `<prefix>{<wire name>:<i>}`, and a
/// stream's dead letters in `<stream key>:dead` (the default `Configuration.deadLetterKey`).
struct KeyScheme: Sendable {
    let prefix: String

    /// What a key of the scheme is.
    struct Parsed: Equatable {
        let type: String
        /// The partition, nil for the plain stream.
        let partition: Int?
        let isDeadLetters: Bool
    }

    func plainKey(_ type: String) -> String { prefix + type }
    func channel(_ type: String) -> String { prefix + type }
    func partitionKey(_ type: String, _ partition: Int) -> String { "\(prefix){\(type):\(partition)}" }
    func deadLetterKey(_ stream: String) -> String { stream + ":dead" }

    /// The stream keys of `type` on `partitions` streams; one is the plain stream.
    func streamKeys(_ type: String, partitions: Int) -> [String] {
        partitions <= 1 ? [plainKey(type)] : (0..<partitions).map { partitionKey(type, $0) }
    }

    /// The key read back: nil when it is not under the prefix. A wire name that itself ends
    /// in `:dead` reads as the dead letters of the shorter name: the scheme cannot tell them apart.
    func parse(_ key: String) -> Parsed? {
        guard key.hasPrefix(prefix), key.count > prefix.count else { return nil }
        var rest = Substring(key.dropFirst(prefix.count))
        let isDeadLetters = rest.hasSuffix(":dead") && rest.count > ":dead".count
        if isDeadLetters { rest = rest.dropLast(":dead".count) }
        if rest.hasPrefix("{"), rest.hasSuffix("}"), let colon = rest.lastIndex(of: ":") {
            let type = rest[rest.index(after: rest.startIndex)..<colon]
            let number = rest[rest.index(after: colon)..<rest.index(before: rest.endIndex)]
            if !type.isEmpty, !number.isEmpty, number.allSatisfy(\.isASCIIDigit), let partition = Int(number) {
                return Parsed(type: String(type), partition: partition, isDeadLetters: isDeadLetters)
            }
        }
        return Parsed(type: String(rest), partition: nil, isDeadLetters: isDeadLetters)
    }

    /// The `SCAN MATCH` patterns that find every key of `type`, or of every type when nil.
    func patterns(for type: String?) -> [String] {
        guard let type else { return [Self.globEscaped(prefix) + "*"] }
        return [
            Self.globEscaped(plainKey(type)) + "*",
            Self.globEscaped(prefix + "{" + type + ":") + "*",
        ]
    }

    /// `text` with the characters that `MATCH` patterns give a meaning escaped, so that it
    /// matches only itself (wire names may hold any character).
    static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
