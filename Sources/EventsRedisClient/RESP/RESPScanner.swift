/// The two passes of ``RESPParser`` over a borrowed buffer: `scan` validates a value and finds
/// where it ends, `build` turns a value `scan` accepted into a ``RESPValue``.
///
/// Neither pass recurses: arrays are followed with a stack of their own, so nesting costs heap,
/// never call stack, and the nesting limit is the only bound on it. Every byte is read through
/// ``CheckedBytes``.
package struct RESPScanner {
    package let bytes: CheckedBytes
    package let limits: RESPLimits

    package init(bytes: UnsafeBufferPointer<UInt8>, limits: RESPLimits) {
        self.bytes = CheckedBytes(bytes)
        self.limits = limits
    }

    private static let cr: UInt8 = 13
    private static let lf: UInt8 = 10
    /// Longest accepted header line (`$`, `*` or `:` and a 64-bit decimal number).
    private static let maxNumberLineLength = 32

    /// How far a scan of an incomplete value got, so that the next scan, with more bytes, goes on
    /// from there instead of from the value's start: what makes parsing linear in the bytes
    /// received however they are split. Every position is an index into the scanned buffer.
    struct Progress {
        /// Everything from the value's start to before this was validated: the start of the next element to scan (or of the
        /// value itself).
        var position: Int
        /// For each array open around `position`, outermost first, how many of its elements are
        /// still to come (at least 1): arrays whose header was read but not their last element.
        var remaining: [Int] = []
        /// When the value at `position` is a simple string or error whose line is incomplete:
        /// how far its line has been searched for the CR that ends it.
        var lineSearched: Int?

        init(start: Int) {
            position = start
        }

        /// The same progress in a buffer whose first `count` bytes were dropped.
        mutating func shift(by count: Int) {
            position -= count
            if let searched = lineSearched { lineSearched = searched - count }
        }
    }

    /// Validates the value starting at `index` and returns the index just past it, or `nil`
    /// when the buffer ends before the value does.
    func scan(at index: Int) throws(RedisError) -> Int? {
        var progress = Progress(start: index)
        return try scan(&progress)
    }

    /// Validates the value that `progress` is at, going on from where an earlier scan (of the
    /// same bytes, fewer of them) stopped, and returns the index just past it; or, when the
    /// buffer ends before the value does, records in `progress` how far it got and returns nil.
    func scan(_ progress: inout Progress) throws(RedisError) -> Int? {
        var position = progress.position
        while true {
            guard position < bytes.count else {
                progress.position = position
                return nil
            }
            let contentStart = position + 1
            let end: Int
            switch bytes[position] {
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let resumeAt = progress.lineSearched ?? contentStart
                progress.lineSearched = nil
                switch try line(from: contentStart, searchingFrom: resumeAt, maxLength: limits.maxBulkBytes) {
                case .complete(_, let next):
                    end = next
                case .incomplete(let searched):
                    progress.position = position
                    progress.lineSearched = searched
                    return nil
                }
            case UInt8(ascii: ":"):
                guard let line = try numberLine(from: contentStart) else {
                    progress.position = position
                    return nil
                }
                guard integer(from: contentStart, to: line.end) != nil else {
                    throw .protocolViolation("invalid integer reply '\(text(from: contentStart, to: line.end))'")
                }
                end = line.next
            case UInt8(ascii: "$"):
                guard let line = try numberLine(from: contentStart) else {
                    progress.position = position
                    return nil
                }
                let length = try self.length(from: contentStart, to: line.end, kind: "bulk string")
                if length < 0 {
                    end = line.next
                    break
                }
                guard length <= limits.maxBulkBytes else {
                    throw .frameTooLarge(limit: limits.maxBulkBytes, declared: length)
                }
                // Compared as a difference so that a huge declared length cannot overflow.
                guard length <= bytes.count - line.next - 2 else {
                    progress.position = position
                    return nil
                }
                let payloadEnd = line.next + length
                guard bytes[payloadEnd] == Self.cr, bytes[payloadEnd + 1] == Self.lf else {
                    throw .protocolViolation("bulk string of \(length) bytes not followed by CRLF")
                }
                end = payloadEnd + 2
            case UInt8(ascii: "*"):
                guard let line = try numberLine(from: contentStart) else {
                    progress.position = position
                    return nil
                }
                let count = try self.length(from: contentStart, to: line.end, kind: "array")
                if count < 0 {
                    end = line.next
                    break
                }
                guard count <= limits.maxArrayCount else {
                    throw .frameTooLarge(limit: limits.maxArrayCount, declared: count)
                }
                // The arrays open around this one: a top-level array is at depth 0.
                guard progress.remaining.count < limits.effectiveMaxNesting else {
                    throw .protocolViolation("arrays nested deeper than \(limits.effectiveMaxNesting) levels")
                }
                position = line.next
                if count > 0 {
                    progress.remaining.append(count)
                    continue
                }
                end = position
            default:
                throw .protocolViolation("unknown type byte \(Self.describe(bytes[position]))")
            }
            // A value ended at `end`: it may be the last element of the arrays around it.
            position = end
            while true {
                guard let last = progress.remaining.last else {
                    progress.position = position
                    return position
                }
                if last > 1 {
                    progress.remaining[progress.remaining.count - 1] = last - 1
                    break
                }
                progress.remaining.removeLast()
            }
        }
    }

    /// Builds the value starting at `index` and moves `index` past it. Call only at a position
    /// where `scan` returned an end: the structure is then known to be complete and valid.
    package func build(at index: inout Int) -> RESPValue {
        // The arrays being built around `index`, outermost first: their elements so far and how
        // many are still to come.
        var open: [(elements: [RESPValue], remaining: Int)] = []
        while true {
            let type = bytes[index]
            let contentStart = index + 1
            // `scan` guaranteed that a CRLF-terminated line starts here.
            let lineEnd = lineEndIndex(from: contentStart)
            index = lineEnd + 2
            var value: RESPValue
            switch type {
            case UInt8(ascii: "+"):
                value = .simpleString(text(from: contentStart, to: lineEnd))
            case UInt8(ascii: "-"):
                value = .error(text(from: contentStart, to: lineEnd))
            case UInt8(ascii: ":"):
                value = .integer(integer(from: contentStart, to: lineEnd) ?? 0)
            case UInt8(ascii: "$"):
                let length = integer(from: contentStart, to: lineEnd) ?? -1
                if length < 0 {
                    value = .null
                } else {
                    value = .bulkString(Array(bytes.buffer(index..<(index + length))))
                    index += length + 2
                }
            default:  // "*"
                let count = integer(from: contentStart, to: lineEnd) ?? -1
                if count > 0 {
                    var elements: [RESPValue] = []
                    elements.reserveCapacity(count)
                    open.append((elements, count))
                    continue
                }
                value = count < 0 ? .null : .array([])
            }
            // A value is complete: it may complete the arrays around it.
            while true {
                guard !open.isEmpty else { return value }
                let innermost = open.count - 1
                open[innermost].elements.append(value)
                open[innermost].remaining -= 1
                guard open[innermost].remaining == 0 else { break }
                value = .array(open.removeLast().elements)
            }
        }
    }

    /// The channel and payload of the Pub/Sub `message` frame (`*3`, then the bulk strings
    /// `message`, the channel and the payload) starting at `index`, in place; `nil` for any
    /// other value, which `build` then makes the usual way. Call only at a position where `scan`
    /// returned an end: the frame is then known to be complete and valid.
    func messageParts(at index: Int) -> (
        channel: UnsafeBufferPointer<UInt8>, payload: UnsafeBufferPointer<UInt8>
    )? {
        guard var cursor = endOfMessageHeader(at: index),
            let channel = bulkString(at: &cursor), let payload = bulkString(at: &cursor)
        else { return nil }
        return (channel, payload)
    }

    /// The header of every `message` frame: an array of three, then the bulk string `message`.
    private static let messageHeader: StaticString = "*3\r\n$7\r\nmessage\r\n"

    /// Where the bytes after a `message` frame's header (`*3`, then the bulk string `message`)
    /// starting at `index` begin; nil when something else starts there, or nothing follows it.
    private func endOfMessageHeader(at index: Int) -> Int? {
        let header = UnsafeBufferPointer(
            start: Self.messageHeader.utf8Start, count: Self.messageHeader.utf8CodeUnitCount)
        guard index >= 0, bytes.count - index > header.count, bytes.bytes(index..<index + header.count, equal: header)
        else { return nil }
        return index + header.count
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
        guard index >= 0, index < bytes.count, bytes[index] == UInt8(ascii: "$") else { return nil }
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
        return bytes.buffer(start..<start + length)
    }

    // MARK: Walking a value in place

    /// For a reader that walks a value `scan` accepted without building it: the count of the
    /// array header at `index` (-1 for a null array), moving `index` past the header; nil, with
    /// `index` unmoved, when something else starts there.
    package func arrayCount(at index: inout Int) -> Int? {
        guard index >= 0, index < bytes.count, bytes[index] == UInt8(ascii: "*") else { return nil }
        let lineEnd = lineEndIndex(from: index + 1)
        guard lineEnd < bytes.count, let count = integer(from: index + 1, to: lineEnd) else { return nil }
        index = lineEnd + 2
        return count
    }

    /// Whether the value at `index` is a null (`$-1` or `*-1`), moving `index` past it if so.
    package func skipNull(at index: inout Int) -> Bool {
        guard index >= 0, index < bytes.count, bytes[index] == UInt8(ascii: "$") || bytes[index] == UInt8(ascii: "*")
        else { return false }
        let lineEnd = lineEndIndex(from: index + 1)
        guard lineEnd < bytes.count, integer(from: index + 1, to: lineEnd) == -1 else { return false }
        index = lineEnd + 2
        return true
    }

    /// The content of the non-null bulk string at `index`, moving `index` past it; nil, with
    /// `index` unmoved, for anything else (including a string the bytes end within). For values
    /// `scan` accepted.
    package func bulkString(at index: inout Int) -> UnsafeBufferPointer<UInt8>? {
        guard index >= 0, index < bytes.count, bytes[index] == UInt8(ascii: "$") else { return nil }
        let lineEnd = lineEndIndex(from: index + 1)
        guard let length = integer(from: index + 1, to: lineEnd), length >= 0 else { return nil }
        let start = lineEnd + 2
        guard length <= bytes.count - start - 2 else { return nil }
        index = start + length + 2
        return bytes.buffer(start..<start + length)
    }

    /// How a line ended, or where the search for its end stopped.
    private enum Line {
        /// `end` is the index of its CR, `next` the index after its LF.
        case complete(end: Int, next: Int)
        /// The buffer ends first; `searched` is where to go on searching once more bytes came.
        case incomplete(searched: Int)
    }

    /// Finds the CRLF ending the line whose content starts at `start`, searching from `resume`
    /// (`start`, unless an earlier search got that far without finding it).
    private func line(from start: Int, searchingFrom resume: Int, maxLength: Int) throws(RedisError) -> Line {
        var index = resume
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte == Self.cr {
                guard index + 1 < count else { return .incomplete(searched: index) }
                guard bytes[index + 1] == Self.lf else {
                    throw .protocolViolation("CR not followed by LF at the end of a line")
                }
                return .complete(end: index, next: index + 2)
            }
            if byte == Self.lf {
                throw .protocolViolation("LF without CR at the end of a line")
            }
            index += 1
            if index - start > maxLength {
                throw .protocolViolation("line longer than \(maxLength) bytes without CRLF")
            }
        }
        return .incomplete(searched: index)
    }

    /// The header line of a number (`:`, `$`, `*`) whose content starts at `start`; nil when
    /// it is incomplete. Short, so an incomplete one is searched again from its start.
    private func numberLine(from start: Int) throws(RedisError) -> (end: Int, next: Int)? {
        switch try line(from: start, searchingFrom: start, maxLength: Self.maxNumberLineLength) {
        case .complete(let end, let next): (end, next)
        case .incomplete: nil
        }
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
        String(decoding: bytes.buffer(start..<end), as: UTF8.self)
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
    }
}
