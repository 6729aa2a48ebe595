/// The document a ``WireJSONDecoder`` reads (or the text a wire encoder escapes), with every
/// read checked against its end.
///
/// The decoder reads bytes that came from the network, usually validated just before (by the
/// decoder itself, or by the CloudEvent scan that found them). Its reads must not depend on
/// that validation having been right: a byte outside the document reads as NUL (which no valid
/// JSON document holds outside a string, and none inside one either), every walk stops at the
/// end of the document, and a walk that meets anything it does not expect returns nil. So bytes
/// that are not the valid JSON they were said to be make the decode refuse; no read ever lands
/// outside the buffer.
struct WireJSONBytes {
    private let base: UnsafePointer<UInt8>?
    let count: Int

    /// Reads `count` bytes at `base`, which the caller keeps allocated while this is used (the
    /// decoder's own buffer, for as long as the decoder lives).
    init(base: UnsafePointer<UInt8>?, count: Int) {
        precondition(count >= 0 && (base != nil || count == 0))
        self.base = base
        self.count = count
    }

    /// The byte at `offset`; 0 for an offset outside the document.
    @inline(__always)
    subscript(offset: Int) -> UInt8 {
        // One unsigned comparison rejects negative offsets too.
        UInt(bitPattern: offset) < UInt(bitPattern: count) ? base.unsafelyUnwrapped[offset] : 0
    }

    /// The eight bytes at `offset`, the first in the low bits; nil unless all eight are inside.
    @inline(__always)
    func word(at offset: Int) -> UInt64? {
        guard offset >= 0, offset <= count &- 8 else { return nil }
        return UInt64(littleEndian: UnsafeRawPointer(base.unsafelyUnwrapped + offset).loadUnaligned(as: UInt64.self))
    }

    /// The bytes at `range`, which must lie inside the document (it traps otherwise).
    func buffer(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "a range outside the document")
        guard !range.isEmpty else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: base.unsafelyUnwrapped + range.lowerBound, count: range.count)
    }

    func skipWhitespace(from offset: Int) -> Int {
        var index = offset
        while true {
            let byte = self[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return index }
            index += 1
        }
    }

    /// The string whose opening quote is at `offset`; nil when none starts there or the
    /// document ends before it closes.
    func stringToken(at offset: Int) -> WireJSONToken? {
        guard self[offset] == UInt8(ascii: "\"") else { return nil }
        var index = offset + 1
        var hasEscapes = false
        var nonASCII: UInt8 = 0
        var nonASCIIWords: UInt64 = 0
        while index < count {
            // Eight bytes at a time while they hold neither a quote nor a backslash.
            while let word = self.word(at: index) {
                let stops = EightBytes.equal(UInt8(ascii: "\""), word) | EightBytes.equal(UInt8(ascii: "\\"), word)
                if stops != 0 {
                    // Only the bytes before the stop belong to the string (so far).
                    let before = EightBytes.first(stops)
                    nonASCIIWords |= word & ((1 << UInt64(8 * before)) &- 1)
                    index += before
                    break
                }
                nonASCIIWords |= word
                index += 8
            }
            guard index < count else { break }
            let byte = self[index]
            if byte == UInt8(ascii: "\"") {
                return WireJSONToken(
                    content: offset + 1..<index, hasEscapes: hasEscapes,
                    isASCII: nonASCII < 0x80 && !EightBytes.anyNonASCII(nonASCIIWords))
            }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                index += 2
            } else {
                nonASCII |= byte
                index += 1
            }
        }
        return nil
    }

    /// The offset just past the value at `offset`; nil when no value starts there or the
    /// document ends inside it. Follows brackets and strings only: the value is one a
    /// validation accepted, or the decode refuses later at whatever is wrong with it.
    func end(ofValueAt offset: Int) -> Int? {
        switch self[offset] {
        case UInt8(ascii: "\""):
            return stringToken(at: offset).map { $0.content.upperBound + 1 }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var index = offset
            var depth = 0
            while index < count {
                switch self[index] {
                case UInt8(ascii: "\""):
                    guard let token = stringToken(at: index) else { return nil }
                    index = token.content.upperBound + 1
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"),
            UInt8(ascii: "n"):
            // A number or a literal: it ends at a separator, a bracket, whitespace or the end.
            var index = offset + 1
            while index < count {
                switch self[index] {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09: return index
                default: index += 1
                }
            }
            return index
        default:
            return nil
        }
    }

    /// Whether two names are the same plain ASCII bytes.
    func sameBytes(_ a: Range<Int>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        buffer(a).hasSameBytes(as: b)
    }

    /// The text of a string token, its escapes unescaped. An escape that is not valid JSON
    /// (possible only in bytes that were wrongly said to be validated) reads as U+FFFD.
    func string(_ token: WireJSONToken) -> String {
        let content = buffer(token.content)
        guard token.hasEscapes else { return String(decoding: content, as: UTF8.self) }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(content.count)
        var index = token.content.lowerBound
        let end = token.content.upperBound
        while index < end {
            let byte = self[index]
            index += 1
            guard byte == UInt8(ascii: "\\") else {
                unescaped.append(byte)
                continue
            }
            let escaped = index < end ? self[index] : 0
            index += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escaped)
            case UInt8(ascii: "b"): unescaped.append(0x08)
            case UInt8(ascii: "f"): unescaped.append(0x0C)
            case UInt8(ascii: "n"): unescaped.append(0x0A)
            case UInt8(ascii: "r"): unescaped.append(0x0D)
            case UInt8(ascii: "t"): unescaped.append(0x09)
            case UInt8(ascii: "u"):
                var scalar: Unicode.Scalar = "\u{FFFD}"
                if let high = hex4(at: index, before: end) {
                    index += 4
                    if (0xD800...0xDBFF).contains(high), self[index] == UInt8(ascii: "\\"),
                        self[index + 1] == UInt8(ascii: "u"), let low = hex4(at: index + 2, before: end),
                        (0xDC00...0xDFFF).contains(low)
                    {
                        index += 6
                        scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) ?? scalar
                    } else {
                        scalar = Unicode.Scalar(high) ?? scalar
                    }
                }
                UTF8.encode(scalar) { unescaped.append($0) }
            default:
                UTF8.encode("\u{FFFD}") { unescaped.append($0) }
            }
        }
        return String(decoding: unescaped, as: UTF8.self)
    }

    /// The four hex digits at `offset`, all before `end`; nil otherwise.
    private func hex4(at offset: Int, before end: Int) -> UInt32? {
        guard offset + 4 <= end else { return nil }
        var value: UInt32 = 0
        for index in offset..<offset + 4 {
            guard let digit = self[index].hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}

/// Where a string's content lies in a decoder's document (between its quotes), and how much
/// work reading it takes.
struct WireJSONToken {
    let content: Range<Int>
    /// Contains a backslash escape, so it must be unescaped before use.
    let hasEscapes: Bool
    /// Every byte (escapes included, as written) is ASCII.
    let isASCII: Bool
}
