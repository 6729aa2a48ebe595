/// A validating JSON reader that works on byte offsets and makes no values of its own.
///
/// The bridge reads two kinds of JSON on every received message: the CloudEvents envelope, of
/// which it keeps a few string attributes and the raw bytes of `data`, and the event's data,
/// which it decodes into the carried type. Building a tree (or even a list of members with
/// `String` names) for either cost more than the rest of the receive path, so this scanner only
/// validates and reports where things are: a string is a ``StringToken`` (the range between its
/// quotes), any other value is skipped. Callers turn the few tokens they keep into `String`s.
///
/// Validation follows RFC 8259 strictly: no trailing commas, no leading zeros, no raw control
/// characters in strings, well-formed UTF-8 and paired surrogate escapes only.
///
/// Safe on any input: every byte is read through ``CheckedBytes``, and nesting is followed with
/// a stack of its own rather than by recursion, so the depth of a document never decides how
/// much call stack a scan takes (the bridge reads on threads with small stacks).
struct JSONScanner {
    struct Failure: Error, Equatable {
        let message: String
        let offset: Int
    }

    /// Where a string's content lies (between its quotes) and how much work reading it takes.
    struct StringToken {
        let content: Range<Int>
        /// Contains a backslash escape, so it must be unescaped before use.
        let hasEscapes: Bool
        /// Every byte (escapes included, as written) is ASCII.
        let isASCII: Bool

        /// The same token in a buffer that starts `offset` bytes earlier.
        func shifted(by offset: Int) -> StringToken {
            StringToken(
                content: (content.lowerBound + offset)..<(content.upperBound + offset), hasEscapes: hasEscapes,
                isASCII: isASCII)
        }
    }

    /// The text, borrowed: a scanner lives inside its caller's `withUnsafeBufferPointer`. The
    /// scanner checks its position against `bytes.count` before it reads, and every read is
    /// checked again by `CheckedBytes`.
    let bytes: CheckedBytes
    var index: Int
    let maxDepth: Int
    /// The deepest nesting level of a value skipped so far (as `skipValue(depth:)` counts it);
    /// a caller may reset it to measure one value.
    var deepest = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int = 0, maxDepth: Int = 64) {
        self.init(CheckedBytes(bytes), at: index, maxDepth: maxDepth)
    }

    init(_ bytes: CheckedBytes, at index: Int = 0, maxDepth: Int = 64) {
        self.bytes = bytes
        self.index = index
        self.maxDepth = maxDepth
    }

    // MARK: - Structure

    /// Validates that the bytes are exactly one JSON value, with only whitespace around it.
    mutating func validateDocument() throws(Failure) {
        skipWhitespace()
        try skipValue(depth: 1)
        try expectEnd()
    }

    /// Fails unless only whitespace is left.
    mutating func expectEnd() throws(Failure) {
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected bytes after the object") }
    }

    /// Reads the name of the next member of an object whose `{` has been consumed, or returns nil
    /// when the object closes. `first` tells whether a member was read before (a `,` is due).
    /// Leaves the scanner at the member's value.
    mutating func nextMemberName(first: Bool) throws(Failure) -> StringToken? {
        skipWhitespace()
        if first {
            if peek() == UInt8(ascii: "}") {
                index += 1
                return nil
            }
        } else {
            guard let next = peek() else { throw failure("the object is not closed") }
            index += 1
            if next == UInt8(ascii: "}") { return nil }
            guard next == UInt8(ascii: ",") else { throw failure("expected ',' or '}'") }
            skipWhitespace()
        }
        guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
        let name = try readStringToken()
        skipWhitespace()
        try expect(UInt8(ascii: ":"))
        skipWhitespace()
        return name
    }

    /// Moves past `literal` when the bytes at the current position are exactly it; otherwise
    /// stays and returns false.
    mutating func consume(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index >= 0, bytes.count - index >= count else { return false }
        let matches = literal.withUTF8Buffer { expected in bytes.bytes(index..<index + count, equal: expected) }
        if matches { index += count }
        return matches
    }

    /// Skips one value of any kind, validating it; `depth` is the nesting level of the value.
    ///
    /// Containers are followed with an explicit stack (`open`), not by recursion: a value nested
    /// to `maxDepth` takes the same call stack as a number.
    mutating func skipValue(depth: Int) throws(Failure) {
        var open = ContainerStack()
        var depth = depth
        while true {
            // At the start of a value at nesting level `depth`.
            guard depth <= maxDepth else { throw failure("nested deeper than \(maxDepth) levels") }
            if depth > deepest { deepest = depth }
            guard let byte = peek() else { throw failure("expected a value") }
            switch byte {
            case UInt8(ascii: "\""):
                _ = try readStringToken()
            case UInt8(ascii: "{"):
                index += 1
                if try nextMemberName(first: true) != nil {
                    open.push(isObject: true)
                    depth += 1
                    continue  // to the first member's value
                }
            case UInt8(ascii: "["):
                index += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "]") {
                    index += 1
                } else {
                    open.push(isObject: false)
                    depth += 1
                    continue  // to the first element
                }
            case UInt8(ascii: "t"): try expectLiteral("true")
            case UInt8(ascii: "f"): try expectLiteral("false")
            case UInt8(ascii: "n"): try expectLiteral("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
            default: throw failure("unexpected character")
            }
            // A value ended: go on to the next member or element of the innermost open
            // container, or close it (which ends a value one level up).
            while true {
                guard let isObject = open.innermost else { return }
                if isObject {
                    if try nextMemberName(first: false) != nil { break }
                } else {
                    skipWhitespace()
                    guard let next = peek() else { throw failure("the container is not closed") }
                    index += 1
                    if next == UInt8(ascii: ",") {
                        skipWhitespace()
                        break
                    }
                    guard next == UInt8(ascii: "]") else { throw failure("expected ',' or a closing bracket") }
                }
                open.pop()
                depth -= 1
            }
        }
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
        guard consume(literal) else { throw failure("invalid literal") }
    }

    // MARK: - Strings

    /// Reads a string starting at its opening quote and leaves the scanner after its closing
    /// quote. Validates escapes and UTF-8 without copying a byte.
    mutating func readStringToken() throws(Failure) -> StringToken {
        index += 1  // the opening quote
        let start = index
        var hasEscapes = false
        var isASCII = true
        while index < bytes.count {
            index = Self.endOfPlainASCII(bytes, from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return StringToken(content: start..<index - 1, hasEscapes: hasEscapes, isASCII: isASCII)
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                index += 1
                try skipEscape()
            } else if byte < 0x20 {
                throw failure("control character inside a string")
            } else if byte < 0x80 {
                index += 1
            } else {
                isASCII = false
                try skipUTF8Sequence(lead: byte)
            }
        }
        throw failure("the string is not closed")
    }

    /// Where the plain text starting at `offset` ends: the first byte that is a quote, a
    /// backslash, a control character or not ASCII (or the end). Most string content is plain,
    /// so it is skipped eight bytes at a time.
    @inline(__always)
    static func endOfPlainASCII(_ bytes: CheckedBytes, from offset: Int) -> Int {
        var position = offset
        let count = bytes.count
        while let word = bytes.word(at: position) {
            let stops =
                EightBytes.nonASCII(word) | EightBytes.below(0x20, word) | EightBytes.equal(UInt8(ascii: "\""), word)
                | EightBytes.equal(UInt8(ascii: "\\"), word)
            if stops != 0 { return position + EightBytes.first(stops) }
            position += 8
        }
        while position < count {
            let byte = bytes[position]
            guard byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") else { break }
            position += 1
        }
        return position
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF) starting at `index`.
    private mutating func skipUTF8Sequence(lead: UInt8) throws(Failure) {
        let continuations: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: continuations = 1
        case 0xE0:
            continuations = 2
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: continuations = 2
        case 0xED:
            continuations = 2
            secondRange = 0x80...0x9F
        case 0xF0:
            continuations = 3
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: continuations = 3
        case 0xF4:
            continuations = 3
            secondRange = 0x80...0x8F
        default: throw failure("invalid UTF-8")
        }
        guard index + continuations < bytes.count, secondRange.contains(bytes[index + 1]) else {
            throw failure("invalid UTF-8")
        }
        var offset = 2
        while offset <= continuations {
            guard bytes[index + offset] & 0xC0 == 0x80 else { throw failure("invalid UTF-8") }
            offset += 1
        }
        index += continuations + 1
    }

    /// Validates the escape after a backslash.
    private mutating func skipEscape() throws(Failure) {
        guard let escaped = peek() else { throw failure("the string is not closed") }
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            _ = try readUnicodeEscape()
        default:
            throw failure("invalid escape")
        }
    }

    /// Reads the scalar of a `\u` escape whose `\u` has been consumed, pairing surrogates.
    private mutating func readUnicodeEscape() throws(Failure) -> Unicode.Scalar {
        var code = try readHex4()
        if (0xD800...0xDBFF).contains(code) {
            // A high surrogate must be followed by an escaped low surrogate.
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw failure("unpaired surrogate") }
            index += 2
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(code) {
            throw failure("unpaired surrogate")
        }
        guard let scalar = Unicode.Scalar(code) else { throw failure("invalid unicode escape") }
        return scalar
    }

    private mutating func readHex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("invalid unicode escape") }
        var value: UInt32 = 0
        for position in index..<index + 4 {
            guard let digit = bytes[position].hexDigitValue else { throw failure("invalid unicode escape") }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    /// The text of a string this scanner has read (and so validated).
    func string(_ token: StringToken) -> String {
        guard token.hasEscapes else {
            return String(decoding: bytes.buffer(token.content), as: UTF8.self)
        }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(token.content.count)
        var reader = JSONScanner(bytes, at: token.content.lowerBound, maxDepth: maxDepth)
        while reader.index < token.content.upperBound {
            let byte = bytes[reader.index]
            reader.index += 1
            guard byte == UInt8(ascii: "\\") else {
                unescaped.append(byte)
                continue
            }
            let escaped = bytes[reader.index]
            reader.index += 1
            switch escaped {
            case UInt8(ascii: "b"): unescaped.append(0x08)
            case UInt8(ascii: "f"): unescaped.append(0x0C)
            case UInt8(ascii: "n"): unescaped.append(0x0A)
            case UInt8(ascii: "r"): unescaped.append(0x0D)
            case UInt8(ascii: "t"): unescaped.append(0x09)
            case UInt8(ascii: "u"):
                // Validated when the token was read, so the fallback is never taken.
                let scalar = (try? reader.readUnicodeEscape()) ?? "\u{FFFD}"
                UTF8.encode(scalar) { unescaped.append($0) }
            default: unescaped.append(escaped)  // `"`, `\` and `/` stand for themselves
            }
        }
        return String(decoding: unescaped, as: UTF8.self)
    }

    /// Whether a token's text is exactly the ASCII `name` (compared by bytes, no allocation).
    func token(_ token: StringToken, equals name: StaticString) -> Bool {
        guard !token.hasEscapes, token.content.count == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { expected in bytes.bytes(token.content, equal: expected) }
    }

    // MARK: - Bytes

    @inline(__always)
    func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    @inline(__always)
    mutating func expect(_ byte: UInt8) throws(Failure) {
        guard peek() == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    func failure(_ message: String) -> Failure {
        Failure(message: message, offset: index)
    }
}

/// Tests on eight bytes at once, packed in a `UInt64` with the first byte in the low bits (the
/// classic bit tricks). Each mask has a byte's high bit set where the test holds; a borrow can
/// set bits above a byte that passes, never below it, so a mask is zero exactly when no byte
/// passes and its lowest set bit marks the first byte that does.
enum EightBytes {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes at `offset`, the first in the low bits; stops the process unless all
    /// eight are within `bytes`, in every build.
    @inline(__always)
    static func load(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        // Written as callers write their loop condition (`offset + 8 <= count`), so that the
        // optimizer sees the check is done already and drops it.
        precondition(offset >= 0 && offset + 8 <= bytes.count, "eight bytes read outside the buffer")
        return UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self))
    }

    /// Bytes with the high bit set (not ASCII).
    static func nonASCII(_ word: UInt64) -> UInt64 {
        word & highs
    }

    /// Bytes below `limit` (at most 0x80).
    static func below(_ limit: UInt8, _ word: UInt64) -> UInt64 {
        (word &- ones &* UInt64(limit)) & ~word & highs
    }

    /// Bytes equal to `byte`.
    static func equal(_ byte: UInt8, _ word: UInt64) -> UInt64 {
        let matches = word ^ (ones &* UInt64(byte))
        return (matches &- ones) & ~matches & highs
    }

    /// The index (0-7) of the first byte marked in a nonzero mask.
    static func first(_ mask: UInt64) -> Int {
        mask.trailingZeroBitCount / 8
    }

    static func anyNonASCII(_ word: UInt64) -> Bool {
        nonASCII(word) != 0
    }
}

/// The kinds of the containers open around a scanner's position, innermost last, one bit each
/// (set for an object, clear for an array): what recursion kept on the call stack. The first 64
/// levels take no allocation; deeper ones take a word per 64 levels.
private struct ContainerStack {
    private var first: UInt64 = 0
    private var deeper: [UInt64] = []
    private var count = 0

    @inline(__always)
    mutating func push(isObject: Bool) {
        let bit: UInt64 = 1 << UInt64(count % 64)
        if count < 64 {
            first = isObject ? first | bit : first & ~bit
        } else {
            let word = count / 64 - 1
            if word == deeper.count { deeper.append(0) }
            deeper[word] = isObject ? deeper[word] | bit : deeper[word] & ~bit
        }
        count += 1
    }

    @inline(__always)
    mutating func pop() {
        count -= 1
    }

    /// Whether the innermost open container is an object; nil when none is open.
    @inline(__always)
    var innermost: Bool? {
        guard count > 0 else { return nil }
        let level = count - 1
        let word = level < 64 ? first : deeper[level / 64 - 1]
        return word & (1 << UInt64(level % 64)) != 0
    }
}
