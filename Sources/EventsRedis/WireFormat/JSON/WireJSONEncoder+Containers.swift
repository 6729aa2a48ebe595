// The three Codable containers of `WireJSONEncoder`. Each is a handle on the encoder plus the
// depth and identity of its frame; the encoder does the writing and refuses misuse.

struct WireJSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: WireJSONEncoder
    let depth: Int
    let id: Int

    var codingPath: [any CodingKey] { encoder.codingPath(depth: depth) }

    mutating func encodeNil(forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.writeNull()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.writeString(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        try encoder.write(value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        // Foundation's float formatting is its own (not `Float.description`): left to it.
        throw encoder.fail("Float is left to Foundation")
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        encoder.write(value)
    }

    // 128-bit integers: left to Foundation (the protocols' defaults would refuse them).
    mutating func encode(_ value: Int128, forKey key: Key) throws {
        throw encoder.fail("Int128 is left to Foundation")
    }

    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        throw encoder.fail("UInt128 is left to Foundation")
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.beginMember(key, depth: depth, id: id)
        try encoder.encodeValue(value, forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let (depth, id) = openNested(keyed: true, key: key)
        return KeyedEncodingContainer(WireJSONKeyedEncodingContainer<NestedKey>(encoder: encoder, depth: depth, id: id))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let (depth, id) = openNested(keyed: false, key: key)
        return WireJSONUnkeyedEncodingContainer(encoder: encoder, depth: depth, id: id)
    }

    private func openNested(keyed: Bool, key: Key) -> (depth: Int, id: Int) {
        do {
            try encoder.beginMember(key, depth: depth, id: id)
        } catch {
            encoder.refuse(String(describing: error))
            return (-1, -1)
        }
        return encoder.openNested(keyed: keyed, forKey: key)
    }

    mutating func superEncoder() -> any Encoder {
        encoder.refuse("superEncoder is left to Foundation")
        return encoder
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.refuse("superEncoder is left to Foundation")
        return encoder
    }
}

struct WireJSONUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: WireJSONEncoder
    let depth: Int
    let id: Int

    var codingPath: [any CodingKey] { encoder.codingPath(depth: depth) }
    var count: Int { encoder.count(depth: depth, id: id) }

    mutating func encodeNil() throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: String) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        try encoder.write(value)
    }

    mutating func encode(_ value: Float) throws {
        throw encoder.fail("Float is left to Foundation")
    }

    mutating func encode(_ value: Int) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: Int8) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: Int16) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: Int32) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: Int64) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt8) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt16) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt32) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt64) throws {
        _ = try encoder.beginElement(depth: depth, id: id)
        encoder.write(value)
    }

    mutating func encode(_ value: Int128) throws {
        throw encoder.fail("Int128 is left to Foundation")
    }

    mutating func encode(_ value: UInt128) throws {
        throw encoder.fail("UInt128 is left to Foundation")
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = try encoder.beginElement(depth: depth, id: id)
        try encoder.encodeValue(value, forKey: WireJSONIndexKey(index: index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let (depth, id) = openNested(keyed: true)
        return KeyedEncodingContainer(WireJSONKeyedEncodingContainer<NestedKey>(encoder: encoder, depth: depth, id: id))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (depth, id) = openNested(keyed: false)
        return WireJSONUnkeyedEncodingContainer(encoder: encoder, depth: depth, id: id)
    }

    private func openNested(keyed: Bool) -> (depth: Int, id: Int) {
        let index: Int
        do {
            index = try encoder.beginElement(depth: depth, id: id)
        } catch {
            encoder.refuse(String(describing: error))
            return (-1, -1)
        }
        return encoder.openNested(keyed: keyed, forKey: WireJSONIndexKey(index: index))
    }

    mutating func superEncoder() -> any Encoder {
        encoder.refuse("superEncoder is left to Foundation")
        return encoder
    }
}

struct WireJSONSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: WireJSONEncoder

    var codingPath: [any CodingKey] { encoder.codingPath(depth: nil) }

    mutating func encodeNil() throws {
        try encoder.beginSingleValue()
        encoder.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: String) throws {
        try encoder.beginSingleValue()
        encoder.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        try encoder.beginSingleValue()
        try encoder.write(value)
    }

    mutating func encode(_ value: Float) throws {
        throw encoder.fail("Float is left to Foundation")
    }

    mutating func encode(_ value: Int) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: Int8) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: Int16) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: Int32) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: Int64) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: UInt) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: UInt8) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: UInt16) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: UInt32) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: UInt64) throws {
        try encoder.beginSingleValue()
        encoder.write(value)
    }

    mutating func encode(_ value: Int128) throws {
        throw encoder.fail("Int128 is left to Foundation")
    }

    mutating func encode(_ value: UInt128) throws {
        throw encoder.fail("UInt128 is left to Foundation")
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.beginSingleValue()
        try encoder.encodeValue(value, key: encoder.pendingValueKey)
    }
}
