/// The bytes of a JSON document being written, with Foundation's formatting of scalars.
struct JSONOutput {
    private(set) var bytes: [UInt8]

    /// Output that goes on after `bytes` (which it takes over), such as a CloudEvent envelope
    /// written up to its `data` member.
    init(continuing bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Hands the bytes over, leaving this output empty.
    mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }

    mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    mutating func append(contentsOf text: StaticString) {
        bytes.append(literal: text)
    }

    /// Writes an integer's decimal digits.
    mutating func appendInteger(_ value: some FixedWidthInteger) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // The magnitude fits in a UInt64 for every standard integer type up to 64 bits.
        appendDecimalDigits(UInt64(value.magnitude), to: &bytes)
    }

    /// Writes a double as Foundation does: its `description` without a trailing `.0`. Returns
    /// false, writing nothing, for NaN and the infinities, which JSON cannot express.
    mutating func appendDouble(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        var text = value.description
        text.withUTF8 { utf8 in
            let text = WireJSONBytes(base: utf8.baseAddress, count: utf8.count)
            let count = text.count
            let endsInPointZero = text[count - 2] == UInt8(ascii: ".") && text[count - 1] == UInt8(ascii: "0")
            bytes.append(contentsOf: text.buffer(0..<(endsInPointZero && count > 2 ? count - 2 : count)))
        }
        return true
    }

    /// Writes a JSON string with Foundation's escaping (see `appendJSONString`, with `/`
    /// escaped as Foundation escapes it).
    mutating func appendString(_ value: String) {
        appendJSONString(value, to: &bytes, escapingSlash: true)
    }
}

extension [UInt8] {
    /// Appends a literal's bytes in one copy: appending a `String`'s UTF-8 view goes through a
    /// generic path, costly even for a short literal.
    mutating func append(literal text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}

/// Appends the decimal digits of `value` to `output`, without making a `String`.
func appendDecimalDigits(_ value: UInt64, to output: inout [UInt8]) {
    var remaining = value
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
    withUnsafeMutableBytes(of: &digits) { buffer in
        var position = buffer.count
        repeat {
            position -= 1
            buffer[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        } while remaining > 0
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[position...]))
    }
}

/// Appends `text` to `output` as a JSON string literal, quotes included: `"` and `\` are
/// escaped, and `/` too with `escapingSlash` (Foundation's `JSONEncoder` does; the CloudEvent
/// envelope does not need to); control characters take the short escapes where JSON has them
/// and `\u00xx` otherwise; everything else (DEL and all non-ASCII text included) is copied as
/// is, in runs found eight bytes at a time.
func appendJSONString(_ text: String, to output: inout [UInt8], escapingSlash: Bool = false) {
    var text = text
    text.withUTF8 { buffer in
        // Read through the checked reader, as the decoder reads: the text may have come from
        // the network, and an index mistake here must not read outside it.
        let utf8 = WireJSONBytes(base: buffer.baseAddress, count: buffer.count)
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        while index < utf8.count {
            index = endOfUnescaped(utf8, from: index, escapingSlash: escapingSlash)
            guard index < utf8.count else { break }
            let byte = utf8[index]
            index += 1
            output.append(contentsOf: utf8.buffer(runStart..<index - 1))
            runStart = index
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x08: output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(UInt8(ascii: "f"))
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex: StaticString = "0123456789abcdef"
                output.append(UInt8(ascii: "u"))
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "0"))
                output.append(hex.utf8Start[Int(byte >> 4)])
                output.append(hex.utf8Start[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(contentsOf: utf8.buffer(runStart..<utf8.count))
        output.append(UInt8(ascii: "\""))
    }
}

/// Where the text starting at `offset` next needs an escape (or its end).
@inline(__always)
private func endOfUnescaped(_ utf8: WireJSONBytes, from offset: Int, escapingSlash: Bool) -> Int {
    var position = offset
    while let word = utf8.word(at: position) {
        var stops =
            EightBytes.below(0x20, word) | EightBytes.equal(UInt8(ascii: "\""), word)
            | EightBytes.equal(UInt8(ascii: "\\"), word)
        if escapingSlash { stops |= EightBytes.equal(UInt8(ascii: "/"), word) }
        if stops != 0 { return position + EightBytes.first(stops) }
        position += 8
    }
    while position < utf8.count {
        let byte = utf8[position]
        if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
            || (escapingSlash && byte == UInt8(ascii: "/"))
        {
            break
        }
        position += 1
    }
    return position
}
