/// A random number generator that a 64-bit seed fixes (SplitMix64): every draw of a schedule
/// comes from it, so that a seed printed with a violation gives the same schedule again.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// A value that depends on `seed` and `parts` alone, the same in every process: what the
    /// consumers use to decide, without sharing state, which deliveries of which event fail.
    package static func hash(seed: UInt64, _ parts: [UInt64]) -> UInt64 {
        var value = mix(seed)
        for part in parts { value = mix(value ^ mix(part)) }
        return value
    }

    private static func mix(_ input: UInt64) -> UInt64 {
        var z = input
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension String {
    /// A stable 64-bit value for a string (FNV-1a), unlike `hashValue`, which changes per process.
    package var stableHash: UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01B3
        }
        return hash
    }
}
