extension TraceContext {
    /// Checks a `traceparent` value (see `init(traceparent:tracestate:)`).
    static func validate(traceparent: String) throws(TraceContextError) {
        func fail(_ reason: String) -> TraceContextError {
            TraceContextError(.traceparent, reason, value: traceparent)
        }
        let utf8 = Array(traceparent.utf8)
        guard utf8.count >= 55 else { throw fail("it has \(utf8.count) characters, fewer than 55") }
        // version "-" trace-id "-" parent-id "-" flags: the dashes at 2, 35 and 52.
        for dash in [2, 35, 52] where utf8[dash] != UInt8(ascii: "-") {
            throw fail("character \(dash + 1) must be \"-\"")
        }
        func hexField(_ range: Range<Int>, _ name: String) throws(TraceContextError) -> Bool {
            var allZero = true
            for offset in range {
                guard Self.hexValue(utf8[offset]) != nil else {
                    throw fail(
                        "the \(name) must be lowercase hex digits, but has \"\(Character(Unicode.Scalar(utf8[offset])))\""
                    )
                }
                if utf8[offset] != UInt8(ascii: "0") { allZero = false }
            }
            return allZero
        }
        _ = try hexField(0..<2, "version")
        if utf8[0] == UInt8(ascii: "f"), utf8[1] == UInt8(ascii: "f") { throw fail("version ff is not allowed") }
        if try hexField(3..<35, "trace id") { throw fail("the trace id is all zero") }
        if try hexField(36..<52, "parent id") { throw fail("the parent id is all zero") }
        _ = try hexField(53..<55, "flags")
        let isVersionZero = utf8[0] == UInt8(ascii: "0") && utf8[1] == UInt8(ascii: "0")
        if utf8.count > 55 {
            // A later version may add fields after a dash; version 00 has nothing more.
            guard !isVersionZero else { throw fail("version 00 has exactly 55 characters, not \(utf8.count)") }
            guard utf8[55] == UInt8(ascii: "-") else { throw fail("character 56 must be \"-\"") }
        }
    }

    /// Checks a `tracestate` value (see `init(traceparent:tracestate:)`); returns how many
    /// list members it has (0 for an empty or blank value).
    static func validate(tracestate: String) throws(TraceContextError) -> Int {
        func fail(_ reason: String) -> TraceContextError {
            TraceContextError(.tracestate, reason, value: tracestate)
        }
        let utf8 = Array(tracestate.utf8)
        guard utf8.count <= maxTracestateLength else {
            throw fail("it has \(utf8.count) characters, more than \(maxTracestateLength)")
        }
        var keys: [ArraySlice<UInt8>] = []
        for member in utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            // Empty members are allowed, and not counted.
            let text = trimmed(member)
            guard !text.isEmpty else { continue }
            guard let equals = text.firstIndex(of: UInt8(ascii: "=")) else {
                throw fail("member \"\(String(decoding: text, as: UTF8.self))\" has no \"=\"")
            }
            let key = text[..<equals]
            let value = text[(equals + 1)...]
            guard isValidKey(key) else {
                throw fail("key \"\(String(decoding: key, as: UTF8.self))\" is not a valid tracestate key")
            }
            guard isValidValue(value) else {
                throw fail("the value of \"\(String(decoding: key, as: UTF8.self))\" is not a valid tracestate value")
            }
            guard !keys.contains(where: { $0.elementsEqual(key) }) else {
                throw fail("key \"\(String(decoding: key, as: UTF8.self))\" appears twice")
            }
            keys.append(key)
            guard keys.count <= maxTracestateMembers else {
                throw fail("it has more than \(maxTracestateMembers) members")
            }
        }
        return keys.count
    }

    /// The value of a lowercase hex digit; nil for anything else.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// `member` without the blanks around it.
    private static func trimmed(_ member: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let start = member.drop(while: isBlank)
        guard let last = start.lastIndex(where: { !isBlank($0) }) else {
            return start[start.startIndex..<start.startIndex]
        }
        return start[...last]
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
    private static func isValidKey(_ key: ArraySlice<UInt8>) -> Bool {
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
    private static func isValidValue(_ value: ArraySlice<UInt8>) -> Bool {
        guard let last = value.last, last != UInt8(ascii: " "), value.count <= 256 else { return false }
        return value.allSatisfy { byte in
            (0x20...0x7E).contains(byte) && byte != UInt8(ascii: ",") && byte != UInt8(ascii: "=")
        }
    }
}
