/// The records of an outbox file, and how they are written and read.
///
/// A file is the 8-byte ``magic`` followed by records. A record is its body's length (4 bytes,
/// little-endian), the CRC-32 of the body (4 bytes), then the body: a kind byte and its
/// fields. An entry is one event waiting for Redis; a confirmation lists entries Redis has
/// acknowledged (or that were given up), which are not published again.
///
/// Reading trusts nothing: every length is checked against what is left before it is used,
/// and a record whose checksum or fields do not hold ends the readable part of the file.
enum OutboxRecord: Equatable {
    case entry(Entry)
    case confirmation([UInt64])

    /// One event waiting for Redis.
    struct Entry: Equatable {
        /// The entry's number in its file, counting from 1 in the order entries were written.
        let sequence: UInt64
        /// When it was written, in milliseconds since 1970.
        let writtenAt: UInt64
        let mode: RedisBridge.Mode
        let type: String
        /// The stream or channel.
        let key: String
        /// The event's CloudEvents id is `idPrefix` followed by `idNumber`.
        let idPrefix: String
        let idNumber: UInt64
        /// The CloudEvent, as published.
        let payload: [UInt8]
    }

    /// What every outbox file starts with: a name and a format version.
    static let magic: [UInt8] = Array("SEVOBX01".utf8)
    /// Room for the largest event a bridge publishes, its names, and the header.
    static let maximumBodyLength = (64 << 20) + (1 << 16)
    static let headerLength = 8

    private static let entryKind: UInt8 = 1
    private static let confirmationKind: UInt8 = 2

    /// Appends the record, with its length and checksum, to `output`.
    func append(to output: inout [UInt8]) {
        let start = output.count
        output.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0])
        switch self {
        case .entry(let entry):
            output.append(Self.entryKind)
            Self.append(entry.sequence, to: &output)
            Self.append(entry.writtenAt, to: &output)
            output.append(entry.mode == .stream ? 0 : 1)
            Self.append(string: entry.type, to: &output)
            Self.append(string: entry.key, to: &output)
            Self.append(string: entry.idPrefix, to: &output)
            Self.append(entry.idNumber, to: &output)
            Self.append(UInt32(entry.payload.count), to: &output)
            output.append(contentsOf: entry.payload)
        case .confirmation(let sequences):
            output.append(Self.confirmationKind)
            Self.append(UInt32(sequences.count), to: &output)
            for sequence in sequences { Self.append(sequence, to: &output) }
        }
        let bodyLength = output.count - start - Self.headerLength
        let checksum = output.withUnsafeBufferPointer {
            CRC32.checksum(UnsafeBufferPointer(rebasing: $0[(start + 8)...]))
        }
        Self.store(UInt32(bodyLength), at: start, in: &output)
        Self.store(checksum, at: start + 4, in: &output)
    }

    /// How reading the records of a file ended.
    enum Ending: Equatable {
        /// Every byte belonged to a whole, valid record.
        case clean
        /// The bytes from `offset` on are not a whole, valid record: `reason` says why.
        case damaged(offset: Int, reason: String)
    }

    /// The records in `bytes` (a whole file, ``magic`` included) in order, up to the first that
    /// is incomplete or invalid; nil when the file does not start with ``magic``. An empty
    /// `bytes` reads as no records.
    static func read(_ bytes: [UInt8]) -> (records: [(record: OutboxRecord, range: Range<Int>)], ending: Ending)? {
        if bytes.isEmpty { return ([], .clean) }
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else { return nil }
        var records: [(record: OutboxRecord, range: Range<Int>)] = []
        var offset = magic.count
        while offset < bytes.count {
            guard bytes.count - offset >= headerLength else {
                return (records, .damaged(offset: offset, reason: "a record's header is cut short"))
            }
            let length = Int(loadUInt32(bytes, at: offset))
            let checksum = loadUInt32(bytes, at: offset + 4)
            guard length > 0, length <= maximumBodyLength else {
                return (records, .damaged(offset: offset, reason: "a record claims \(length) bytes"))
            }
            guard bytes.count - offset - headerLength >= length else {
                return (records, .damaged(offset: offset, reason: "a record is cut short"))
            }
            let body = (offset + headerLength)..<(offset + headerLength + length)
            let actual = bytes.withUnsafeBufferPointer { CRC32.checksum(UnsafeBufferPointer(rebasing: $0[body])) }
            guard actual == checksum else {
                return (records, .damaged(offset: offset, reason: "a record's checksum does not match"))
            }
            guard let record = decodeBody(bytes[body]) else {
                return (records, .damaged(offset: offset, reason: "a record's fields do not hold"))
            }
            records.append((record, offset..<body.upperBound))
            offset = body.upperBound
        }
        return (records, .clean)
    }

    /// The record in `body`, or nil when a field runs past its end or holds what no writer writes.
    private static func decodeBody(_ body: ArraySlice<UInt8>) -> OutboxRecord? {
        var reader = Reader(bytes: body)
        switch reader.byte() {
        case entryKind:
            guard let sequence = reader.uint64(), let writtenAt = reader.uint64(), let modeByte = reader.byte(),
                modeByte <= 1, let type = reader.string(), let key = reader.string(), let idPrefix = reader.string(),
                let idNumber = reader.uint64(), let payloadLength = reader.uint32(),
                let payload = reader.bytes(Int(payloadLength)), reader.isAtEnd
            else { return nil }
            return .entry(
                Entry(
                    sequence: sequence, writtenAt: writtenAt, mode: modeByte == 0 ? .stream : .pubSub, type: type,
                    key: key, idPrefix: idPrefix, idNumber: idNumber, payload: payload))
        case confirmationKind:
            guard let count = reader.uint32(), Int(count) <= reader.remaining / 8 else { return nil }
            var sequences: [UInt64] = []
            sequences.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let sequence = reader.uint64() else { return nil }
                sequences.append(sequence)
            }
            return reader.isAtEnd ? .confirmation(sequences) : nil
        default:
            return nil
        }
    }

    /// Reads fields off a record's body, each only when the body has the bytes for it.
    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var offset: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            offset = bytes.startIndex
        }

        var remaining: Int { bytes.endIndex - offset }
        var isAtEnd: Bool { offset == bytes.endIndex }

        mutating func byte() -> UInt8? {
            guard remaining >= 1 else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint32() -> UInt32? {
            guard remaining >= 4 else { return nil }
            defer { offset += 4 }
            return (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
        }

        mutating func uint64() -> UInt64? {
            guard remaining >= 8 else { return nil }
            defer { offset += 8 }
            return (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard count >= 0, remaining >= count else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }

        /// A UTF-8 string with a 2-byte length; nil when the bytes are not valid UTF-8.
        mutating func string() -> String? {
            guard remaining >= 2 else { return nil }
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
            offset += 2
            guard let utf8 = self.bytes(length) else { return nil }
            return String(validating: utf8, as: UTF8.self)
        }
    }

    private static func append(_ value: UInt64, to output: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func append(_ value: UInt32, to output: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { output.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// Names are cut to 65,535 bytes of UTF-8 (a Redis key or a wire name is far shorter), at a
    /// character boundary, so that what is read back is still valid UTF-8.
    private static func append(string: String, to output: inout [UInt8]) {
        var utf8 = Array(string.utf8)
        if utf8.count > 0xFFFF {
            var end = 0xFFFF
            while end > 0, utf8[end] & 0xC0 == 0x80 { end -= 1 }
            utf8.removeSubrange(end...)
        }
        output.append(UInt8(truncatingIfNeeded: utf8.count))
        output.append(UInt8(truncatingIfNeeded: utf8.count >> 8))
        output.append(contentsOf: utf8)
    }

    private static func store(_ value: UInt32, at offset: Int, in output: inout [UInt8]) {
        for index in 0..<4 { output[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(8 * index)) }
    }

    private static func loadUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }
}

/// The CRC-32 of ISO-HDLC (the one of zip and PNG), reflected, polynomial 0xEDB88320.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    static func checksum(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
