/// The two passes of ``RESPParser`` over a borrowed buffer: `scan` validates a value and finds
/// where it ends, `build` turns a value `scan` accepted into a ``RESPValue``.
struct RESPScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: RESPLimits

    private static let cr: UInt8 = 13
    private static let lf: UInt8 = 10
    /// Longest accepted header line (`$`, `*` or `:` and a 64-bit decimal number).
    private static let maxNumberLineLength = 32

    /// Validates the value starting at `index` and returns the index just past it, or `nil`
    /// when the buffer ends before the value does.
    func scan(at index: Int, depth: Int) throws(RedisError) -> Int? {
        guard index < bytes.count else { return nil }
        let contentStart = index + 1
        switch bytes[index] {
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let line = try line(from: contentStart, maxLength: limits.maxBulkBytes) else { return nil }
            return line.next
        case UInt8(ascii: ":"):
            guard let line = try line(from: contentStart, maxLength: Self.maxNumberLineLength) else { return nil }
            guard integer(from: contentStart, to: line.end) != nil else {
                throw .protocolViolation("invalid integer reply '\(text(from: contentStart, to: line.end))'")
            }
            return line.next
        case UInt8(ascii: "$"):
            guard let line = try line(from: contentStart, maxLength: Self.maxNumberLineLength) else { return nil }
            let length = try self.length(from: contentStart, to: line.end, kind: "bulk string")
            if length < 0 { return line.next }
            guard length <= limits.maxBulkBytes else {
                throw .frameTooLarge(limit: limits.maxBulkBytes, declared: length)
            }
            // Compared as a difference so that a huge declared length cannot overflow.
            guard length <= bytes.count - line.next - 2 else { return nil }
            let payloadEnd = line.next + length
            guard bytes[payloadEnd] == Self.cr, bytes[payloadEnd + 1] == Self.lf else {
                throw .protocolViolation("bulk string of \(length) bytes not followed by CRLF")
            }
            return payloadEnd + 2
        case UInt8(ascii: "*"):
            guard let line = try line(from: contentStart, maxLength: Self.maxNumberLineLength) else { return nil }
            let count = try self.length(from: contentStart, to: line.end, kind: "array")
            if count < 0 { return line.next }
            guard count <= limits.maxArrayCount else {
                throw .frameTooLarge(limit: limits.maxArrayCount, declared: count)
            }
            // `depth` counts the arrays around this one: a top-level array is at depth 0.
            guard depth < limits.effectiveMaxNesting else {
                throw .protocolViolation("arrays nested deeper than \(limits.effectiveMaxNesting) levels")
            }
            var cursor = line.next
            for _ in 0..<count {
                guard let next = try scan(at: cursor, depth: depth + 1) else { return nil }
                cursor = next
            }
            return cursor
        default:
            throw .protocolViolation("unknown type byte \(Self.describe(bytes[index]))")
        }
    }

    /// Builds the value starting at `index` and moves `index` past it. Call only at a position
    /// where `scan` returned an end: the structure is then known to be complete and valid.
    func build(at index: inout Int) -> RESPValue {
        let type = bytes[index]
        let contentStart = index + 1
        // `scan` guaranteed that a CRLF-terminated line starts here.
        let lineEnd = lineEndIndex(from: contentStart)
        index = lineEnd + 2
        switch type {
        case UInt8(ascii: "+"):
            return .simpleString(text(from: contentStart, to: lineEnd))
        case UInt8(ascii: "-"):
            return .error(text(from: contentStart, to: lineEnd))
        case UInt8(ascii: ":"):
            return .integer(integer(from: contentStart, to: lineEnd) ?? 0)
        case UInt8(ascii: "$"):
            let length = integer(from: contentStart, to: lineEnd) ?? -1
            if length < 0 { return .null }
            let payload = Array(UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]))
            index += length + 2
            return .bulkString(payload)
        default:  // "*"
            let count = integer(from: contentStart, to: lineEnd) ?? -1
            if count < 0 { return .null }
            var elements: [RESPValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                elements.append(build(at: &index))
            }
            return .array(elements)
        }
    }

    /// The channel and payload of the Pub/Sub `message` frame (`*3`, then the bulk strings
    /// `message`, the channel and the payload) starting at `index`, in place; `nil` for any
    /// other value, which `build` then makes the usual way. Call only at a position where `scan`
    /// returned an end: the frame is then known to be complete and valid.
    func messageParts(at index: Int) -> (channel: UnsafeBufferPointer<UInt8>, payload: UnsafeBufferPointer<UInt8>)? {
        guard var cursor = endOfMessageHeader(at: index),
            let channel = bulkString(at: &cursor), let payload = bulkString(at: &cursor)
        else { return nil }
        return (channel, payload)
    }

    /// Where the bytes after a `message` frame's header (`*3`, then the bulk string `message`)
    /// starting at `index` begin; nil when something else starts there, or nothing follows it.
    private func endOfMessageHeader(at index: Int) -> Int? {
        let header: StaticString = "*3\r\n$7\r\nmessage\r\n"
        let headerLength = header.utf8CodeUnitCount
        guard bytes.count - index > headerLength else { return nil }
        for offset in 0..<headerLength where bytes[index + offset] != header.utf8Start[offset] { return nil }
        return index + headerLength
    }

    /// `messageParts` for a frame that `scan` has not seen: the channel, payload and end of a
    /// complete, valid `message` frame starting at `index`, validated as `scan` validates it
    /// (limits, lengths, CRLFs), in one pass over its headers instead of two. Nil for anything
    /// else, whole or not, valid or not: the caller then scans it the usual way, which tells
    /// incomplete from invalid and throws the error that `next()` would.
    func completeMessage(
        at index: Int
    ) -> (channel: UnsafeBufferPointer<UInt8>, payload: UnsafeBufferPointer<UInt8>, end: Int)? {
        // (A top-level array is always within the nesting limit, which is at least 1.)
        guard limits.maxArrayCount >= 3, var cursor = endOfMessageHeader(at: index),
            let channel = completeBulkString(at: &cursor), let payload = completeBulkString(at: &cursor)
        else { return nil }
        return (channel, payload, cursor)
    }

    /// The content of the complete bulk string at `index` whose length is plain digits within
    /// the limit, moving `index` past it; nil, with `index` unmoved, for anything else (a sign,
    /// a null, an incomplete or malformed string), left to `scan`.
    private func completeBulkString(at index: inout Int) -> UnsafeBufferPointer<UInt8>? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "$") else { return nil }
        var cursor = index + 1
        var length = 0
        // At most 18 digits: no overflow, and well within the header line limit.
        while cursor < bytes.count, cursor - index <= 18 {
            let digit = bytes[cursor] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            length = length * 10 + Int(digit)
            cursor += 1
        }
        guard cursor > index + 1, length <= limits.maxBulkBytes, bytes.count - cursor >= 2,
            bytes[cursor] == Self.cr, bytes[cursor + 1] == Self.lf
        else { return nil }
        let start = cursor + 2
        guard length <= bytes.count - start - 2, bytes[start + length] == Self.cr, bytes[start + length + 1] == Self.lf
        else { return nil }
        index = start + length + 2
        return UnsafeBufferPointer(rebasing: bytes[start..<start + length])
    }

    // MARK: Walking a value in place

    /// For a reader that walks a value `scan` accepted without building it: the count of the
    /// array header at `index` (-1 for a null array), moving `index` past the header; nil, with
    /// `index` unmoved, when something else starts there.
    func arrayCount(at index: inout Int) -> Int? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "*") else { return nil }
        let lineEnd = lineEndIndex(from: index + 1)
        guard let count = integer(from: index + 1, to: lineEnd) else { return nil }
        index = lineEnd + 2
        return count
    }

    /// Whether the value at `index` is a null (`$-1` or `*-1`), moving `index` past it if so.
    func skipNull(at index: inout Int) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "$") || bytes[index] == UInt8(ascii: "*") else {
            return false
        }
        let lineEnd = lineEndIndex(from: index + 1)
        guard integer(from: index + 1, to: lineEnd) == -1 else { return false }
        index = lineEnd + 2
        return true
    }

    /// The content of the non-null bulk string at `index`, moving `index` past it; nil, with
    /// `index` unmoved, for anything else. For values `scan` accepted.
    func bulkString(at index: inout Int) -> UnsafeBufferPointer<UInt8>? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "$") else { return nil }
        let lineEnd = lineEndIndex(from: index + 1)
        guard let length = integer(from: index + 1, to: lineEnd), length >= 0 else { return nil }
        let start = lineEnd + 2
        index = start + length + 2
        return UnsafeBufferPointer(rebasing: bytes[start..<start + length])
    }

    /// Finds the CRLF ending the line that starts at `start`: returns the index of its CR and
    /// the index after its LF, or `nil` when the buffer ends first.
    private func line(from start: Int, maxLength: Int) throws(RedisError) -> (end: Int, next: Int)? {
        var index = start
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte == Self.cr {
                guard index + 1 < count else { return nil }
                guard bytes[index + 1] == Self.lf else {
                    throw .protocolViolation("CR not followed by LF at the end of a line")
                }
                return (index, index + 2)
            }
            if byte == Self.lf {
                throw .protocolViolation("LF without CR at the end of a line")
            }
            index += 1
            if index - start > maxLength {
                throw .protocolViolation("line longer than \(maxLength) bytes without CRLF")
            }
        }
        return nil
    }

    private func lineEndIndex(from start: Int) -> Int {
        var index = start
        while index < bytes.count && bytes[index] != Self.cr { index += 1 }
        return index
    }

    /// A bulk string length or array count: -1 (null) or a non-negative number.
    private func length(from start: Int, to end: Int, kind: String) throws(RedisError) -> Int {
        guard let value = integer(from: start, to: end) else {
            throw .protocolViolation("invalid \(kind) length '\(text(from: start, to: end))'")
        }
        guard value >= -1 else {
            throw .protocolViolation("negative \(kind) length \(value)")
        }
        return value
    }

    /// Parses an optionally signed decimal integer that fills `start..<end` exactly; `nil` when
    /// the text is empty, holds anything else, or overflows `Int`.
    private func integer(from start: Int, to end: Int) -> Int? {
        var index = start
        var negative = false
        if index < end && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < end else { return nil }
        var value = 0
        while index < end {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) =
                negative
                ? shifted.subtractingReportingOverflow(Int(digit)) : shifted.addingReportingOverflow(Int(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        return value
    }

    private func text(from start: Int, to end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
    }
}
