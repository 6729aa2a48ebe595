package import EventsRedisClient

extension RESPValue {
    /// The RESP2 bytes a server would send for this value (test support: fake servers and
    /// round-trip checks of the parser).
    package var wireBytes: [UInt8] {
        var bytes: [UInt8] = []
        appendWire(to: &bytes)
        return bytes
    }

    private func appendWire(to bytes: inout [UInt8]) {
        switch self {
        case .simpleString(let text): bytes += Array("+\(text)\r\n".utf8)
        case .error(let text): bytes += Array("-\(text)\r\n".utf8)
        case .integer(let value): bytes += Array(":\(value)\r\n".utf8)
        case .null: bytes += Array("$-1\r\n".utf8)
        case .bulkString(let payload): bytes += Array("$\(payload.count)\r\n".utf8) + payload + [13, 10]
        case .array(let elements):
            bytes += Array("*\(elements.count)\r\n".utf8)
            for element in elements { element.appendWire(to: &bytes) }
        }
    }
}

/// A small deterministic pseudo-random generator (SplitMix64), so fuzz tests replay exactly.
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
