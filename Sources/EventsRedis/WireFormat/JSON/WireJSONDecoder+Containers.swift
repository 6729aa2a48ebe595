// The three Codable containers of `WireJSONDecoder`. Each reads the decoder's bytes in place at
// offsets found when it was created (keyed) or as it goes (unkeyed).

/// A member of an object: where its name is and where its value starts. (Not nested in the
/// generic container: a generic's nested type costs a metadata lookup on every use.)
struct WireJSONMember {
    let name: WireJSONToken
    let value: Int
    /// The value's token when it is a string, found while scanning past it: decoding it then
    /// makes the string without scanning it again.
    let string: WireJSONToken?
}

/// Finds the members of an object for a keyed container. Not in the container: the container is
/// generic, and its static functions cost a metadata lookup on every call.
enum WireJSONObjectScan {
    /// Records the members of the object at `offset` in the decoder's `memberTable`; returns
    /// where they are and, for a large object, where its member indexes by name are. Throws
    /// when two members have the same name (Foundation keeps one of them; which one is its
    /// business).
    static func members(
        of offset: Int, in bytes: WireJSONBytes, _ decoder: WireJSONDecoder
    ) throws -> (range: Range<Int>, indexTable: Int?) {
        // Every step checks the byte it stands on: the walk never relies on the document
        // having been validated (see `WireJSONBytes`).
        var first: Int?
        var last = 0
        var index = bytes.skipWhitespace(from: offset + 1)
        if bytes[index] != UInt8(ascii: "}") {
            while true {
                let name = try decoder.stringToken(at: index, in: bytes)
                index = bytes.skipWhitespace(from: name.content.upperBound + 1)
                guard bytes[index] == UInt8(ascii: ":") else { throw decoder.fail("expected ':'") }
                let value = bytes.skipWhitespace(from: index + 1)
                let end: Int
                var string: WireJSONToken?
                if bytes[value] == UInt8(ascii: "\"") {
                    let token = try decoder.stringToken(at: value, in: bytes)
                    string = token
                    end = token.content.upperBound + 1
                } else {
                    end = try decoder.end(ofValueAt: value, in: bytes)
                }
                last = decoder.appendMember(WireJSONMember(name: name, value: value, string: string))
                if first == nil { first = last }
                index = bytes.skipWhitespace(from: end)
                if bytes[index] == UInt8(ascii: "}") { break }
                guard bytes[index] == UInt8(ascii: ",") else { throw decoder.fail("expected ',' or '}'") }
                index = bytes.skipWhitespace(from: index + 1)
            }
        }
        // (An empty object's run is empty, wherever it starts.)
        let members = first.map { $0..<last + 1 } ?? 0..<0
        guard members.count > 16 else {
            if hasRepeatedName(members, bytes, decoder) { throw decoder.fail("an object repeats a member name") }
            return (members, nil)
        }
        // Names compare as Swift strings, as in Foundation's dictionary.
        var indexes = [String: Int](minimumCapacity: members.count)
        for index in members
        where indexes.updateValue(index, forKey: bytes.string(decoder.memberTable[index].name)) != nil {
            throw decoder.fail("an object repeats a member name")
        }
        return (members, decoder.appendMemberIndexTable(indexes))
    }

    /// Whether two of a few members have the same name.
    private static func hasRepeatedName(
        _ members: Range<Int>, _ bytes: WireJSONBytes, _ decoder: WireJSONDecoder
    ) -> Bool {
        guard members.count > 1 else { return false }
        let table = decoder.memberTable
        for later in members.dropFirst() {
            for earlier in members.lowerBound..<later where sameName(table[earlier].name, table[later].name, bytes) {
                return true
            }
        }
        return false
    }

    /// Names compare as Swift strings do; plain ASCII names by bytes, which agrees.
    private static func sameName(_ a: WireJSONToken, _ b: WireJSONToken, _ bytes: WireJSONBytes) -> Bool {
        if a.isASCII && b.isASCII && !a.hasEscapes && !b.hasEscapes {
            return bytes.sameBytes(a.content, bytes.buffer(b.content))
        }
        return bytes.string(a) == bytes.string(b)
    }
}

struct WireJSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: WireJSONDecoder
    /// The decoder's document (see `WireJSONDecoder.container(keyedBy:)`).
    let bytes: WireJSONBytes
    /// Where this container's members are in the decoder's `memberTable`.
    let members: Range<Int>
    /// Where the member indexes by name are in the decoder's `memberIndexTables`, for objects
    /// with more than a few members (looking a key up by scanning the members made decoding a
    /// dictionary quadratic in its size); nil for the others.
    let memberIndexesByName: Int?
    /// How many of the decoder's keys lead to this container's value, and where the keys of the
    /// nested containers between that value and this container are in the decoder's
    /// `nestedKeyTable`.
    ///
    /// Tables in the decoder rather than arrays here: the standard library's box copies the
    /// container for every value decoded, through its value witnesses, and each reference in
    /// it cost a retain and a release there.
    let pathDepth: Int
    let nestedKeys: Range<Int>

    init(decoder: WireJSONDecoder, bytes: WireJSONBytes, offset: Int, nestedKeys: Range<Int>) throws {
        let members = try WireJSONObjectScan.members(of: offset, in: bytes, decoder)
        // Every property at once, after the last throw: the container is generic, and storing
        // some before a throw cost a copy of it through its value witnesses.
        self.decoder = decoder
        self.bytes = bytes
        self.members = members.range
        self.memberIndexesByName = members.indexTable
        self.pathDepth = decoder.keys.count
        self.nestedKeys = nestedKeys
    }

    var codingPath: [any CodingKey] {
        Array(decoder.keys.prefix(pathDepth)) + decoder.nestedKeyTable[nestedKeys]
    }

    var allKeys: [Key] {
        decoder.memberTable[members].compactMap { Key(stringValue: bytes.string($0.name)) }
    }

    func contains(_ key: Key) -> Bool {
        member(for: key) != nil
    }

    /// The member named `key`, found by comparing bytes when both names are plain
    /// ASCII and as Swift strings otherwise (which is how Foundation's dictionary compares: a
    /// non-ASCII key such as the Kelvin sign can equal an ASCII name).
    private func member(for key: Key) -> WireJSONMember? {
        if let memberIndexesByName {
            return decoder.memberIndexTables[memberIndexesByName][key.stringValue].map { decoder.memberTable[$0] }
        }
        var name = key.stringValue
        // One access to the table, not one per member.
        let table = decoder.memberTable
        return name.withUTF8 { keyBytes -> WireJSONMember? in
            let keyIsASCII = !keyBytes.contains { $0 >= 0x80 }
            for index in members {
                let member = table[index]
                if keyIsASCII && member.name.isASCII && !member.name.hasEscapes {
                    if bytes.sameBytes(member.name.content, keyBytes) { return member }
                } else if bytes.string(member.name) == String(decoding: keyBytes, as: UTF8.self) {
                    return member
                }
            }
            return nil
        }
    }

    private func valueMember(for key: Key) throws -> WireJSONMember {
        guard let member = member(for: key) else { throw decoder.fail("no value for key \"\(key.stringValue)\"") }
        return member
    }

    private func valueOffset(for key: Key) throws -> Int {
        try valueMember(for: key).value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.isNull(at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.readBool(at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let member = try valueMember(for: key)
        if let token = member.string { return bytes.string(token) }
        return try decoder.readString(at: member.value, in: bytes)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.readDouble(at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.readFloat(at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try decoder.readInteger(Int.self, at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try decoder.readInteger(Int8.self, at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try decoder.readInteger(Int16.self, at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try decoder.readInteger(Int32.self, at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try decoder.readInteger(Int64.self, at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try decoder.readInteger(UInt.self, at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try decoder.readInteger(UInt8.self, at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try decoder.readInteger(UInt16.self, at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try decoder.readInteger(UInt32.self, at: try valueOffset(for: key), in: bytes)
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try decoder.readInteger(UInt64.self, at: try valueOffset(for: key), in: bytes)
    }

    // 128-bit integers: left to Foundation (the protocols' defaults would refuse them).
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
        throw decoder.fail("Int128 is left to Foundation")
    }

    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
        throw decoder.fail("UInt128 is left to Foundation")
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decodeValue(type, at: try valueOffset(for: key), nestedKeys: nestedKeys, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let offset = try valueOffset(for: key)
        guard bytes[offset] == UInt8(ascii: "{") else { throw decoder.fail("expected an object") }
        return KeyedDecodingContainer(
            try WireJSONKeyedDecodingContainer<NestedKey>(
                decoder: decoder, bytes: bytes, offset: offset, nestedKeys: decoder.appendNestedKeys(nestedKeys, key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let offset = try valueOffset(for: key)
        guard bytes[offset] == UInt8(ascii: "[") else { throw decoder.fail("expected an array") }
        return WireJSONUnkeyedDecodingContainer(
            decoder: decoder, bytes: bytes, offset: offset, nestedKeys: decoder.appendNestedKeys(nestedKeys, key))
    }

    func superDecoder() throws -> any Decoder {
        throw decoder.fail("superDecoder is left to Foundation")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw decoder.fail("superDecoder is left to Foundation")
    }
}

struct WireJSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: WireJSONDecoder
    /// As in the keyed container.
    let bytes: WireJSONBytes
    /// The offset of the opening bracket.
    let start: Int
    /// The offset of the next element, or of the closing bracket.
    private var cursor: Int
    private(set) var currentIndex = 0
    /// As in the keyed container.
    let pathDepth: Int
    let nestedKeys: Range<Int>

    init(decoder: WireJSONDecoder, bytes: WireJSONBytes, offset: Int, nestedKeys: Range<Int>) {
        self.decoder = decoder
        self.bytes = bytes
        self.start = offset
        self.cursor = bytes.skipWhitespace(from: offset + 1)
        self.pathDepth = decoder.keys.count
        self.nestedKeys = nestedKeys
    }

    var codingPath: [any CodingKey] {
        Array(decoder.keys.prefix(pathDepth)) + decoder.nestedKeyTable[nestedKeys]
    }

    /// The number of elements; nil (and the decode refused) when the array is not one a
    /// validation would accept that far.
    var count: Int? {
        var index = bytes.skipWhitespace(from: start + 1)
        var count = 0
        while bytes[index] != UInt8(ascii: "]") {
            count += 1
            guard let end = bytes.end(ofValueAt: index) else {
                _ = decoder.fail("the document ends inside an array")
                return nil
            }
            index = bytes.skipWhitespace(from: end)
            if bytes[index] == UInt8(ascii: ",") {
                index = bytes.skipWhitespace(from: index + 1)
            } else if bytes[index] != UInt8(ascii: "]") {
                _ = decoder.fail("expected ',' or ']'")
                return nil
            }
        }
        return count
    }

    var isAtEnd: Bool { bytes[cursor] == UInt8(ascii: "]") }

    private func current() throws -> Int {
        guard !isAtEnd else { throw decoder.fail("no more elements") }
        return cursor
    }

    private mutating func advance() throws {
        var index = bytes.skipWhitespace(from: try decoder.end(ofValueAt: cursor, in: bytes))
        if bytes[index] == UInt8(ascii: ",") {
            index = bytes.skipWhitespace(from: index + 1)
        } else if bytes[index] != UInt8(ascii: "]") {
            throw decoder.fail("expected ',' or ']'")
        }
        cursor = index
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        guard decoder.isNull(at: try current(), in: bytes) else { return false }
        try advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let value = try decoder.readBool(at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let value = try decoder.readString(at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let value = try decoder.readDouble(at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        let value = try decoder.readFloat(at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        let value = try decoder.readInteger(Int.self, at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        let value = try decoder.readInteger(Int8.self, at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        let value = try decoder.readInteger(Int16.self, at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        let value = try decoder.readInteger(Int32.self, at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        let value = try decoder.readInteger(Int64.self, at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: UInt.Type) throws -> UInt {
        let value = try decoder.readInteger(UInt.self, at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        let value = try decoder.readInteger(UInt8.self, at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        let value = try decoder.readInteger(UInt16.self, at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        let value = try decoder.readInteger(UInt32.self, at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        let value = try decoder.readInteger(UInt64.self, at: try current(), in: bytes)
        try advance()
        return value
    }

    mutating func decode(_ type: Int128.Type) throws -> Int128 {
        throw decoder.fail("Int128 is left to Foundation")
    }

    mutating func decode(_ type: UInt128.Type) throws -> UInt128 {
        throw decoder.fail("UInt128 is left to Foundation")
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try decoder.decodeValue(
            type, at: try current(), nestedKeys: nestedKeys, key: WireJSONIndexKey(index: currentIndex))
        try advance()
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let offset = try current()
        guard bytes[offset] == UInt8(ascii: "{") else { throw decoder.fail("expected an object") }
        let container = try WireJSONKeyedDecodingContainer<NestedKey>(
            decoder: decoder, bytes: bytes, offset: offset,
            nestedKeys: decoder.appendNestedKeys(nestedKeys, WireJSONIndexKey(index: currentIndex)))
        try advance()
        return KeyedDecodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let offset = try current()
        guard bytes[offset] == UInt8(ascii: "[") else { throw decoder.fail("expected an array") }
        let container = WireJSONUnkeyedDecodingContainer(
            decoder: decoder, bytes: bytes, offset: offset,
            nestedKeys: decoder.appendNestedKeys(nestedKeys, WireJSONIndexKey(index: currentIndex)))
        try advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        throw decoder.fail("superDecoder is left to Foundation")
    }
}

struct WireJSONSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: WireJSONDecoder
    /// As in the keyed container.
    let bytes: WireJSONBytes
    let offset: Int

    var codingPath: [any CodingKey] { decoder.keys }

    func decodeNil() -> Bool {
        decoder.isNull(at: offset, in: bytes)
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        try decoder.readBool(at: offset, in: bytes)
    }

    func decode(_ type: String.Type) throws -> String {
        try decoder.readString(at: offset, in: bytes)
    }

    func decode(_ type: Double.Type) throws -> Double {
        try decoder.readDouble(at: offset, in: bytes)
    }

    func decode(_ type: Float.Type) throws -> Float {
        try decoder.readFloat(at: offset, in: bytes)
    }

    func decode(_ type: Int.Type) throws -> Int {
        try decoder.readInteger(Int.self, at: offset, in: bytes)
    }

    func decode(_ type: Int8.Type) throws -> Int8 {
        try decoder.readInteger(Int8.self, at: offset, in: bytes)
    }

    func decode(_ type: Int16.Type) throws -> Int16 {
        try decoder.readInteger(Int16.self, at: offset, in: bytes)
    }

    func decode(_ type: Int32.Type) throws -> Int32 {
        try decoder.readInteger(Int32.self, at: offset, in: bytes)
    }

    func decode(_ type: Int64.Type) throws -> Int64 {
        try decoder.readInteger(Int64.self, at: offset, in: bytes)
    }

    func decode(_ type: UInt.Type) throws -> UInt {
        try decoder.readInteger(UInt.self, at: offset, in: bytes)
    }

    func decode(_ type: UInt8.Type) throws -> UInt8 {
        try decoder.readInteger(UInt8.self, at: offset, in: bytes)
    }

    func decode(_ type: UInt16.Type) throws -> UInt16 {
        try decoder.readInteger(UInt16.self, at: offset, in: bytes)
    }

    func decode(_ type: UInt32.Type) throws -> UInt32 {
        try decoder.readInteger(UInt32.self, at: offset, in: bytes)
    }

    func decode(_ type: UInt64.Type) throws -> UInt64 {
        try decoder.readInteger(UInt64.self, at: offset, in: bytes)
    }

    func decode(_ type: Int128.Type) throws -> Int128 {
        throw decoder.fail("Int128 is left to Foundation")
    }

    func decode(_ type: UInt128.Type) throws -> UInt128 {
        throw decoder.fail("UInt128 is left to Foundation")
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(type, at: offset)
    }
}
