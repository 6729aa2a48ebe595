/// The hash slot of a key, as Redis Cluster computes it: CRC16 (XMODEM: polynomial 0x1021,
/// initial 0, no reflection) of the key, modulo 16384. When the key holds a `{`, and a `}`
/// after it with at least one byte between them, only the bytes between the first `{` and the
/// first `}` after it are hashed, so `user:{42}:name` and `user:{42}:mail` share a slot.
enum ClusterSlot {
    static let count = 16_384

    static func of<Bytes: Collection<UInt8>>(_ key: Bytes) -> Int {
        var hashed = key[...]
        if let open = key.firstIndex(of: UInt8(ascii: "{")) {
            let rest = key[key.index(after: open)...]
            if let close = rest.firstIndex(of: UInt8(ascii: "}")), close != rest.startIndex {
                hashed = rest[..<close]
            }
        }
        var crc: UInt16 = 0
        for byte in hashed {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return Int(crc) & (count - 1)
    }

    static func of(_ key: String) -> Int { of(Array(key.utf8)) }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 {
            crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }
}
