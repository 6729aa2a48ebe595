/// A small reader for the top level of a JSON object.
///
/// The bridge needs the string attributes of a CloudEvent and the exact bytes of its `data`
/// member, which it hands to `JSONDecoder` for the event's own type. Parsing the envelope into
/// a generic JSON tree and re-encoding `data` would cost more than the rest of the receive path,
/// so this scanner walks the bytes once: strings are unescaped, every other value is validated
/// and returned as the range of bytes it occupies.
struct JSONScanner {
    enum Value {
        case string(String)
        /// Any other JSON value (object, array, number, `true`, `false`, `null`): its raw bytes.
        case raw(Range<Int>, isNull: Bool)
    }

    struct Failure: Error, Equatable {
        let message: String
        let offset: Int
    }

    private let bytes: [UInt8]
    private var index: Int
    private let maxDepth: Int

    init(_ bytes: [UInt8], maxDepth: Int = 64) {
        self.bytes = bytes
        self.index = 0
        self.maxDepth = maxDepth
    }

    /// The members of the top-level object, in order. Fails on anything that is not exactly one
    /// well-formed JSON object (trailing bytes other than whitespace included), and on a member
    /// name that appears twice.
    mutating func objectMembers() throws(Failure) -> [(name: String, value: Value)] {
        skipWhitespace()
        try expect(UInt8(ascii: "{"))
        var members: [(name: String, value: Value)] = []
        members.reserveCapacity(10)
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                let name = try readString()
                // Linear: objects here have a dozen members, a Set would cost more than it saves.
                guard !members.contains(where: { $0.name == name }) else {
                    throw failure("member \"\(name)\" appears twice")
                }
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                let value: Value
                if peek() == UInt8(ascii: "\"") {
                    value = .string(try readString())
                } else {
                    let start = index
                    try skipValue(depth: 1)
                    let range = start..<index
                    value = .raw(range, isNull: bytes[range].elementsEqual("null".utf8))
                }
                members.append((name, value))
                skipWhitespace()
                guard let next = peek() else { throw failure("the object is not closed") }
                index += 1
                if next == UInt8(ascii: "}") { break }
                guard next == UInt8(ascii: ",") else { throw failure("expected ',' or '}'") }
            }
        }
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected bytes after the object") }
        return members
    }

    // MARK: - Values

    private mutating func skipValue(depth: Int) throws(Failure) {
        guard depth <= maxDepth else { throw failure("nested deeper than \(maxDepth) levels") }
        guard let byte = peek() else { throw failure("expected a value") }
        switch byte {
        case UInt8(ascii: "\""):
            _ = try readString()
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                _ = try readString()
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                if try closes(with: UInt8(ascii: "}")) { return }
            }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                if try closes(with: UInt8(ascii: "]")) { return }
            }
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
        default: throw failure("unexpected character")
        }
    }

    /// After a container element: consumes `,` (false, more follow) or the closing byte (true).
    private mutating func closes(with closing: UInt8) throws(Failure) -> Bool {
        guard let next = peek() else { throw failure("the container is not closed") }
        index += 1
        if next == closing { return true }
        guard next == UInt8(ascii: ",") else { throw failure("expected ',' or a closing bracket") }
        return false
    }

    private mutating func skipNumber() throws(Failure) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw failure("invalid number") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek(), isDigit(digit) else { throw failure("invalid number") }
            skipDigits()
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), isDigit(digit) else { throw failure("invalid number") }
            skipDigits()
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("invalid literal") }
        let matches = literal.withUTF8Buffer { expected in
            bytes[index..<index + count].elementsEqual(expected)
        }
        guard matches else { throw failure("invalid literal") }
        index += count
    }

    // MARK: - Strings

    /// Reads a string starting at its opening quote, resolving escapes.
    private mutating func readString() throws(Failure) -> String {
        index += 1  // the opening quote
        let start = index
        // Fast path: no escapes, the string is a plain slice.
        while let byte = peek() {
            if byte == UInt8(ascii: "\"") {
                let text = try decodeUTF8(bytes[start..<index])
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("control character inside a string") }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while let byte = peek() {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try decodeUTF8(scalars[...])
            case UInt8(ascii: "\\"):
                try appendEscape(to: &scalars)
            case 0..<0x20:
                throw failure("control character inside a string")
            default:
                scalars.append(byte)
            }
        }
        throw failure("the string is not closed")
    }

    private mutating func appendEscape(to output: inout [UInt8]) throws(Failure) {
        guard let escaped = peek() else { throw failure("the string is not closed") }
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var code = try readHex4()
            if (0xD800...0xDBFF).contains(code) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw failure("unpaired surrogate") }
                index += 2
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw failure("unpaired surrogate")
            }
            guard let scalar = Unicode.Scalar(code) else { throw failure("invalid unicode escape") }
            output.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw failure("invalid escape")
        }
    }

    private mutating func readHex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("invalid unicode escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid unicode escape")
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    private func decodeUTF8(_ slice: ArraySlice<UInt8>) throws(Failure) -> String {
        guard let text = String(validating: slice, as: UTF8.self) else { throw failure("invalid UTF-8") }
        return text
    }

    // MARK: - Bytes

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard peek() == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func failure(_ message: String) -> Failure {
        Failure(message: message, offset: index)
    }
}

/// Appends `text` to `output` as a JSON string literal, quotes included.
func appendJSONString(_ text: String, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    // Most attribute values need no escaping: copy them whole.
    if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
        output.append(contentsOf: text.utf8)
        output.append(UInt8(ascii: "\""))
        return
    }
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            output.append(contentsOf: Array("\\u00".utf8))
            output.append(hex[Int(byte >> 4)])
            output.append(hex[Int(byte & 0x0F)])
        default: output.append(byte)
        }
    }
    output.append(UInt8(ascii: "\""))
}
