extension TraceContext {
    /// Checks a `traceparent` value (see `init(traceparent:tracestate:)`). Reads the string's
    /// bytes in place: a receiving bridge checks one per event.
    static func validate(traceparent: String) throws(TraceContextError) {
        var text = traceparent
        let problem = text.withUTF8 { Self.traceparentProblem($0) }
        if let problem { throw TraceContextError(.traceparent, problem, value: traceparent) }
    }

    /// Checks a `tracestate` value (see `init(traceparent:tracestate:)`); returns how many
    /// list members it has (0 for an empty or blank value).
    static func validate(tracestate: String) throws(TraceContextError) -> Int {
        var text = tracestate
        let (count, problem) = text.withUTF8 { Self.tracestateProblem($0) }
        if let problem { throw TraceContextError(.tracestate, problem, value: tracestate) }
        return count
    }

    /// What is wrong with the `traceparent` in `bytes`, or nil when nothing is.
    private static func traceparentProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count >= 55 else { return "it has \(bytes.count) characters, fewer than 55" }
        // version "-" trace-id "-" parent-id "-" flags: the dashes at 2, 35 and 52.
        for dash in 0..<3 {
            let offset = dash == 0 ? 2 : dash == 1 ? 35 : 52
            if bytes[offset] != UInt8(ascii: "-") { return "character \(offset + 1) must be \"-\"" }
        }
        /// What is wrong with the field `name` at `range`, if anything.
        func field(_ name: String, _ range: Range<Int>, zeroAllowed: Bool) -> String? {
            var allZero = true
            for offset in range {
                guard hexValue(bytes[offset]) != nil else {
                    let found = Character(Unicode.Scalar(bytes[offset]))
                    return "the \(name) must be lowercase hex digits, but has \"\(found)\""
                }
                if bytes[offset] != UInt8(ascii: "0") { allZero = false }
            }
            return allZero && !zeroAllowed ? "the \(name) is all zero" : nil
        }
        if let problem = field("version", 0..<2, zeroAllowed: true) ?? field("trace id", 3..<35, zeroAllowed: false)
            ?? field("parent id", 36..<52, zeroAllowed: false) ?? field("flags", 53..<55, zeroAllowed: true)
        {
            return problem
        }
        if bytes[0] == UInt8(ascii: "f"), bytes[1] == UInt8(ascii: "f") { return "version ff is not allowed" }
        if bytes.count > 55 {
            // A later version may add fields after a dash; version 00 has nothing more.
            if bytes[0] == UInt8(ascii: "0"), bytes[1] == UInt8(ascii: "0") {
                return "version 00 has exactly 55 characters, not \(bytes.count)"
            }
            guard bytes[55] == UInt8(ascii: "-") else { return "character 56 must be \"-\"" }
        }
        return nil
    }

    /// How many members the `tracestate` in `bytes` has, and what is wrong with it, if anything.
    private static func tracestateProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, String?) {
        guard bytes.count <= maxTracestateLength else {
            return (0, "it has \(bytes.count) characters, more than \(maxTracestateLength)")
        }
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        var count = 0
        var start = 0
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
            defer { start = end + 1 }
            // Empty members are allowed, and not counted.
            guard let member = trimmed(start..<end, in: bytes) else { continue }
            guard let equals = bytes[member].firstIndex(of: UInt8(ascii: "=")) else {
                return (count, "member \"\(text(member))\" has no \"=\"")
            }
            let key = member.lowerBound..<equals
            guard isValidKey(UnsafeBufferPointer(rebasing: bytes[key])) else {
                return (count, "key \"\(text(key))\" is not a valid tracestate key")
            }
            guard isValidValue(UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<member.upperBound])) else {
                return (count, "the value of \"\(text(key))\" is not a valid tracestate value")
            }
            if hasKey(bytes[key], before: start, in: bytes) {
                return (count, "key \"\(text(key))\" appears twice")
            }
            count += 1
            guard count <= maxTracestateMembers else {
                return (count, "it has more than \(maxTracestateMembers) members")
            }
        }
        return (count, nil)
    }

    /// Whether a member before `limit` (already checked) has the key `key`. Quadratic, over at
    /// most 32 members of a value of at most 512 bytes, and free of allocations.
    private static func hasKey(
        _ key: Slice<UnsafeBufferPointer<UInt8>>, before limit: Int, in bytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        var start = 0
        while start < limit {
            let end = bytes[start..<limit].firstIndex(of: UInt8(ascii: ",")) ?? limit
            defer { start = end + 1 }
            guard let member = trimmed(start..<end, in: bytes),
                let equals = bytes[member].firstIndex(of: UInt8(ascii: "="))
            else { continue }
            if bytes[member.lowerBound..<equals].elementsEqual(key) { return true }
        }
        return false
    }

    /// The part of `range` without the blanks around it; nil when nothing else is there.
    private static func trimmed(_ range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let first = bytes[range].firstIndex(where: { !isBlank($0) }),
            let last = bytes[range].lastIndex(where: { !isBlank($0) })
        else { return nil }
        return first..<(last + 1)
    }

    /// The value of a lowercase hex digit; nil for anything else.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// Optional white space around a list member: a space or a tab.
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func isLowercaseLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// A character allowed after the first in a key: lowercase letter, digit, `_ - * /`.
    private static func isKeyCharacter(_ byte: UInt8) -> Bool {
        isLowercaseLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "/")
    }

    /// `simple-key` (a lowercase letter, then up to 255 key characters) or `multi-tenant-key`
    /// (`tenant@system`: a tenant id of a letter or digit and up to 240 key characters, a system
    /// id of a letter and up to 13).
    private static func isValidKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        if let at = key.firstIndex(of: UInt8(ascii: "@")) {
            let tenant = key[..<at]
            let system = key[(at + 1)...]
            guard let tenantFirst = tenant.first, isLowercaseLetter(tenantFirst) || isDigit(tenantFirst),
                tenant.count <= 241, tenant.dropFirst().allSatisfy(isKeyCharacter)
            else { return false }
            guard let systemFirst = system.first, isLowercaseLetter(systemFirst), system.count <= 14,
                system.dropFirst().allSatisfy(isKeyCharacter)
            else { return false }
            return true
        }
        guard let first = key.first, isLowercaseLetter(first), key.count <= 256 else { return false }
        return key.dropFirst().allSatisfy(isKeyCharacter)
    }

    /// Up to 256 printable ASCII characters but `,` and `=`, the last one not a space.
    private static func isValidValue(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let last = value.last, last != UInt8(ascii: " "), value.count <= 256 else { return false }
        return value.allSatisfy { byte in
            (0x20...0x7E).contains(byte) && byte != UInt8(ascii: ",") && byte != UInt8(ascii: "=")
        }
    }
}
