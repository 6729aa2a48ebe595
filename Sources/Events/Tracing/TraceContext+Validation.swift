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
        if isValidAt55Characters(bytes) { return nil }
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

    /// Whether `bytes` is a valid `traceparent` of 55 characters, the length of every version
    /// in use: checked in one pass over the bytes, with none of the messages that
    /// ``traceparentProblem(_:)`` builds for a bad one (a receiving bridge checks one per event,
    /// and the field-by-field check cost more than the rest of the trace context's handling).
    private static func isValidAt55Characters(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 55, let base = bytes.baseAddress else { return false }
        let dash = UInt8(ascii: "-")
        guard base[2] == dash, base[35] == dash, base[52] == dash else { return false }
        /// Whether `range` holds only lowercase hex digits, and whether any of them is not "0".
        func hex(_ range: Range<Int>) -> (valid: Bool, nonZero: Bool) {
            // Accumulated without branches: a chain of `&&` and `||` per byte cost several
            // times as much. Wrapping: a byte below "0" or "a" wraps to a large value.
            var notHex: UInt8 = 0
            var differences: UInt8 = 0
            for offset in range {
                let byte = base[offset]
                let digit: UInt8 = byte &- UInt8(ascii: "0") < 10 ? 1 : 0
                let letter: UInt8 = byte &- UInt8(ascii: "a") < 6 ? 1 : 0
                notHex |= (digit | letter) ^ 1
                differences |= byte ^ UInt8(ascii: "0")
            }
            return (notHex == 0, differences != 0)
        }
        let version = hex(0..<2)
        let traceID = hex(3..<35)
        let parentID = hex(36..<52)
        let flags = hex(53..<55)
        return version.valid && traceID.valid && traceID.nonZero && parentID.valid && parentID.nonZero && flags.valid
            && !(base[0] == UInt8(ascii: "f") && base[1] == UInt8(ascii: "f"))
    }

    /// How many members the `tracestate` in `bytes` has, and what is wrong with it, if anything.
    private static func tracestateProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, String?) {
        if let count = membersIfPlain(bytes) { return (count, nil) }
        return tracestateProblemByMember(bytes)
    }

    /// ``tracestateProblem(_:)`` member by member, for every form the specification allows.
    static func tracestateProblemByMember(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, String?) {
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

    /// The member count of a valid `tracestate` in the form vendors write (`key=value` members
    /// split by commas, no blanks, no empty members, simple keys), checked in one pass; nil for
    /// anything else, valid or not, which ``tracestateProblem(_:)`` then reads member by member
    /// (a receiving bridge checks one per event, and that way cost several times as much).
    static func membersIfPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= maxTracestateLength, let base = bytes.baseAddress else { return nil }
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: maxTracestateMembers) { keys -> Int? in
            var count = 0
            var offset = 0
            while offset < bytes.count {
                // The key: a lowercase letter, then up to 255 key characters, up to "=".
                let keyStart = offset
                guard isLowercaseLetter(base[offset]) else { return nil }
                offset += 1
                while offset < bytes.count, base[offset] != UInt8(ascii: "=") {
                    guard isKeyCharacter(base[offset]) else { return nil }
                    offset += 1
                }
                let key = keyStart..<offset
                guard offset < bytes.count, key.count <= 256 else { return nil }
                offset += 1
                // The value: 1 to 256 printable characters but "," and "=", none of them a blank.
                let valueStart = offset
                while offset < bytes.count, base[offset] != UInt8(ascii: ",") {
                    let byte = base[offset]
                    guard byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "=") else { return nil }
                    offset += 1
                }
                guard offset > valueStart, offset - valueStart <= 256, count < maxTracestateMembers else { return nil }
                for index in 0..<count where keys[index].count == key.count {
                    if bytes[keys[index]].elementsEqual(bytes[key]) { return nil }
                }
                keys[count] = key
                count += 1
                // A comma must begin another member.
                if offset < bytes.count {
                    offset += 1
                    guard offset < bytes.count else { return nil }
                }
            }
            return count
        }
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
