import Foundation

/// Reads a `Decodable` value straight from JSON bytes, giving what Foundation's `JSONDecoder()`
/// gives (see ``WireJSON`` for what it leaves to Foundation).
///
/// The document is validated once, strictly; after that, values are read in place by offset: a
/// keyed container records where its members are (one small array), an unkeyed one walks its
/// elements, and only the strings that are asked for become `String`s.
///
/// Every error this decoder throws also marks the whole decode as refused, so the value is
/// decoded again by Foundation even when the type's own `init(from:)` catches the error and
/// carries on (`(try? container.decode(Int.self, forKey: .n)) ?? 0` must see what Foundation
/// would have given it).
final class WireJSONDecoder {
    /// The document being decoded: a copy of it in the decoder's own buffer (`storage`), so
    /// that containers can read it at any offset for as long as they live. Every read is
    /// checked (see ``WireJSONBytes``): none depends on the document having been validated.
    private(set) var bytes = WireJSONBytes(base: nil, count: 0)
    /// Owned by the decoder (freed in `deinit`) and kept between decodes (see `spare`).
    private var storage = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    // No property turns off exclusivity checking: the types' own `init(from:)` drive every
    // access here, and a checked access is the one that cannot be made to overlap unseen.

    /// Where the value being decoded starts.
    private(set) var valueOffset = 0
    /// The keys of the values being decoded, outermost first.
    private(set) var keys: [any CodingKey] = []
    /// What containers record during a decode: in one property so that making the decoder
    /// ready for the next decode is one checked access, not one per table.
    private var tables = WireJSONDecoderTables()

    /// The members of every keyed container made during this decode (see
    /// ``WireJSONDecoderTables/members``).
    var memberTable: [WireJSONMember] { tables.members }
    /// The nested keys of the containers made during this decode (see
    /// ``WireJSONDecoderTables/nestedKeys``).
    var nestedKeyTable: [any CodingKey] { tables.nestedKeys }
    /// The member indexes of large objects (see ``WireJSONDecoderTables/memberIndexes``).
    var memberIndexTables: [[String: Int]] { tables.memberIndexes }

    private init() {}

    deinit {
        storage.deallocate()
    }

    /// The decoder the last decode left behind, with its buffers: a decoder per event allocated
    /// itself, the document's copy and the key path.
    private static let spare = SpareCoder<WireJSONDecoder>()
    /// The largest buffer a spare decoder keeps; one that held a larger document is freed.
    static let largestSpareBuffer = 64 * 1024

    /// Makes the decoder ready to decode a copy of `range` of `source`.
    private func load(_ source: [UInt8], range: Range<Int>) {
        if storage.count < range.count {
            storage.deallocate()
            storage = .allocate(capacity: max(range.count, 512))
        }
        // An array slice: its bounds are checked, so a range outside `source` traps.
        source[range].withUnsafeBytes { UnsafeMutableRawBufferPointer(storage).copyMemory(from: $0) }
        bytes = WireJSONBytes(base: UnsafePointer(storage.baseAddress), count: range.count)
        // `valueOffset` and `keys` need no reset: every decode leaves them as it found them
        // (`decodeValue` restores both, on a throw too).
        tables.reset()
    }

    /// The most members a spare decoder's table keeps room for.
    static let largestSpareMemberTable = 1024

    /// Records a member of the keyed container being made; returns its index in `memberTable`.
    @discardableResult
    func appendMember(_ member: WireJSONMember) -> Int {
        tables.appendMember(member)
    }

    /// Records the nested keys of a container inside another: the outer one's (`outer`, a run
    /// of `nestedKeyTable`) and then `key`. Returns where they are.
    func appendNestedKeys(_ outer: Range<Int>, _ key: any CodingKey) -> Range<Int> {
        tables.appendNestedKeys(outer, key)
    }

    /// Records the member indexes of a large object; returns where they are in
    /// `memberIndexTables`.
    func appendMemberIndexTable(_ indexes: [String: Int]) -> Int {
        tables.memberIndexes.append(indexes)
        return tables.memberIndexes.count - 1
    }

    /// The deepest document the wire decoder reads; Foundation reads deeper ones.
    static let maximumDepth = 256

    /// Decodes the JSON at `range` of `bytes` (all of them by default; copied once, into the
    /// decoder's own buffer), validating it first unless `validatedDepth` says it was validated
    /// (by a `JSONScanner`, as strictly) and how deep it is nested. Bytes wrongly said to be
    /// validated are never read outside: the decode refuses, or gives some value.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: [UInt8], in range: Range<Int>? = nil, validatedDepth: Int? = nil
    ) throws -> Value {
        let range = range ?? bytes.indices
        guard !range.isEmpty else { throw WireJSONUnsupported(reason: "no JSON") }
        var decoder = spare.take() ?? WireJSONDecoder()
        decoder.load(bytes, range: range)
        defer {
            if decoder.storage.count <= largestSpareBuffer { spare.keep(&decoder) }
        }
        if let validatedDepth {
            guard validatedDepth <= maximumDepth else {
                throw WireJSONUnsupported(reason: "nested deeper than \(maximumDepth) levels")
            }
        } else {
            let failure: JSONScanner.Failure? = bytes[range].withUnsafeBufferPointer {
                document -> JSONScanner.Failure? in
                var scanner = JSONScanner(document, maxDepth: maximumDepth)
                do throws(JSONScanner.Failure) {
                    try scanner.validateDocument()
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw WireJSONUnsupported(reason: "not strictly valid JSON: \(failure.message)") }
        }
        let start = decoder.bytes.skipWhitespace(from: 0)
        let value = try decoder.decodeValue(type, at: start)
        if let refusal = decoder.tables.refusal { throw WireJSONUnsupported(reason: refusal) }
        return value
    }

    /// Refuses the whole decode (see the type's comment) and returns the error to throw.
    func fail(_ reason: String) -> WireJSONUnsupported {
        tables.refuse(reason)
        return WireJSONUnsupported(reason: reason)
    }

    /// Decodes a nested value that starts at `offset`. A container passes the keys of its
    /// nesting beyond its value's (`nestedKeys`) and the value's own key.
    func decodeValue<Value: Decodable>(
        _ type: Value.Type, at offset: Int, nestedKeys: Range<Int>, key: any CodingKey
    ) throws -> Value {
        let outerKeyCount = keys.count
        if !nestedKeys.isEmpty { keys.append(contentsOf: tables.nestedKeys[nestedKeys]) }
        keys.append(key)
        defer { keys.truncate(to: outerKeyCount) }
        return try decodeValue(type, at: offset)
    }

    /// Decodes the top-level value, or a value with the key path of the one being decoded (a
    /// single value container's), that starts at `offset`.
    ///
    /// Apart from the keyed form, because an optional key cost a copy and two destructions
    /// through the existential's generic witnesses on every value, even when it was nil.
    func decodeValue<Value: Decodable>(_ type: Value.Type, at offset: Int) throws -> Value {
        // Foundation reads these specially (dates from seconds, data from base64, ...).
        if Value.self == Date.self || Value.self == Data.self || Value.self == URL.self || Value.self == Decimal.self {
            throw fail("\(Value.self) is left to Foundation")
        }
        let outerOffset = valueOffset
        valueOffset = offset
        defer { valueOffset = outerOffset }
        return try Value(from: self)
    }

    // MARK: - Reading in place

    /// The offset just past the value at `offset`; refuses the decode when no value starts
    /// there or the document ends inside it.
    func end(ofValueAt offset: Int, in bytes: WireJSONBytes) throws -> Int {
        guard let end = bytes.end(ofValueAt: offset) else { throw fail("the document ends inside a value") }
        return end
    }

    /// The string token at `offset`, whose opening quote is there; refuses the decode when the
    /// document ends inside it.
    func stringToken(at offset: Int, in bytes: WireJSONBytes) throws -> WireJSONToken {
        guard let token = bytes.stringToken(at: offset) else { throw fail("expected a closed string") }
        return token
    }

    // MARK: - Scalars

    func isNull(at offset: Int, in bytes: WireJSONBytes) -> Bool {
        bytes[offset] == UInt8(ascii: "n")
    }

    func readBool(at offset: Int, in bytes: WireJSONBytes) throws -> Bool {
        switch bytes[offset] {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: throw fail("expected a Bool")
        }
    }

    func readString(at offset: Int, in bytes: WireJSONBytes) throws -> String {
        guard bytes[offset] == UInt8(ascii: "\"") else { throw fail("expected a String") }
        return bytes.string(try stringToken(at: offset, in: bytes))
    }

    /// Reads an integer written as plain digits; other forms (`1.0`, `1e2`, which Foundation
    /// accepts when the value is whole) and values out of range are left to Foundation.
    func readInteger<Integer: FixedWidthInteger>(
        _ type: Integer.Type, at offset: Int, in bytes: WireJSONBytes
    ) throws -> Integer {
        var index = offset
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var magnitude: UInt64 = 0
        let digitsStart = index
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1 && !overflow2 else { throw fail("integer out of range") }
            magnitude = sum
            index += 1
        }
        guard index > digitsStart else { throw fail("expected a number") }
        if index < bytes.count {
            let next = bytes[index]
            guard next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E") else {
                throw fail("a number in a form left to Foundation")
            }
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw fail("integer out of range") }
            let value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
            guard let result = Integer(exactly: value) else { throw fail("integer out of range") }
            return result
        }
        guard let result = Integer(exactly: magnitude) else { throw fail("integer out of range") }
        return result
    }

    /// Reads a double. Foundation refuses numbers that overflow or underflow (`1e400`,
    /// `1e-400`); subnormal results are left to it as well, and so are zeros written with an
    /// exponent (see `isPlainZero`).
    func readDouble(at offset: Int, in bytes: WireJSONBytes) throws -> Double {
        let text = try numberText(at: offset, in: bytes)
        guard let value = Double(text), value.isFinite, !value.isSubnormal else {
            throw fail("a number left to Foundation")
        }
        guard value != 0 || isPlainZero(text) else { throw fail("a zero left to Foundation") }
        return value
    }

    /// Reads a float only when parsing it directly and through a double agree (whichever way
    /// Foundation goes, it gets this value); anything else is left to Foundation.
    func readFloat(at offset: Int, in bytes: WireJSONBytes) throws -> Float {
        let text = try numberText(at: offset, in: bytes)
        guard let direct = Float(text), let double = Double(text), direct.isFinite, !direct.isSubnormal,
            Float(double) == direct, direct != 0 || isPlainZero(text)
        else { throw fail("a number left to Foundation") }
        return direct
    }

    private func numberText(at offset: Int, in bytes: WireJSONBytes) throws -> String {
        let byte = bytes[offset]
        guard byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else {
            throw fail("expected a number")
        }
        let end = try end(ofValueAt: offset, in: bytes)
        return String(decoding: bytes.buffer(offset..<end), as: UTF8.self)
    }

    /// Whether a number that reads as zero is written without an exponent, with zeros only
    /// (`0`, `-0.00`): the zeros Foundation reads alike everywhere. Nonzero digits that round
    /// to zero underflow, which Foundation refuses. Zeros with an exponent are valid JSON, but
    /// Foundation's `JSONDecoder` on Linux refuses some of them as a `Double` or `Float` (`0e1`
    /// through `0e9`, `0.00e1`, `-0.0e1`, not `0e10` or `0.0e1`): they are left to it, so that
    /// they decode, or fail, exactly as Foundation decides on each platform.
    private func isPlainZero(_ text: String) -> Bool {
        for byte in text.utf8 {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
            if byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") { return false }
        }
        return true
    }
}

extension WireJSONDecoder: Decoder {
    var codingPath: [any CodingKey] { keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    // Each container keeps its own copy of `bytes` (a pointer and a count): reading a class
    // property is an exclusivity-checked access, and the containers read bytes on every call.

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let (bytes, offset) = (self.bytes, valueOffset)
        guard bytes[offset] == UInt8(ascii: "{") else { throw fail("expected an object") }
        return KeyedDecodingContainer(
            try WireJSONKeyedDecodingContainer<Key>(decoder: self, bytes: bytes, offset: offset, nestedKeys: 0..<0))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (bytes, offset) = (self.bytes, valueOffset)
        guard bytes[offset] == UInt8(ascii: "[") else { throw fail("expected an array") }
        return WireJSONUnkeyedDecodingContainer(decoder: self, bytes: bytes, offset: offset, nestedKeys: 0..<0)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        WireJSONSingleValueDecodingContainer(decoder: self, bytes: bytes, offset: valueOffset)
    }
}

/// What the containers of one decode record in their decoder.
struct WireJSONDecoderTables {
    /// The members of every keyed container made during this decode, each container's in one
    /// run (see `appendMember`). Never trimmed during a decode, so a container's run stays
    /// valid for as long as the container lives: a decoder that a container outlives is not
    /// used again (see ``SpareCoder``). In the decoder rather than in each container, so that a
    /// container costs no array of its own and copying it (which the standard library's box
    /// does for each value decoded) retains less.
    var members: [WireJSONMember] = []
    /// The nested keys of the containers made during this decode (see
    /// `WireJSONKeyedDecodingContainer.nestedKeys`), each container's in one run; never trimmed
    /// during a decode, like `members`.
    var nestedKeys: [any CodingKey] = []
    /// The indexes in `members` by name of the members of the large objects decoded so far
    /// (see `WireJSONKeyedDecodingContainer.memberIndexesByName`); never trimmed during a decode.
    var memberIndexes: [[String: Int]] = []
    /// Why the decode is refused, once something refused it (see `WireJSONDecoder.fail`).
    var refusal: String?

    /// Empties the tables for the next decode.
    mutating func reset() {
        // A document of many objects leaves a large table; a spare decoder keeps a small one.
        if members.capacity <= WireJSONDecoder.largestSpareMemberTable {
            members.truncate(to: 0)
        } else {
            members = []
        }
        if !nestedKeys.isEmpty { nestedKeys = [] }
        if !memberIndexes.isEmpty { memberIndexes = [] }
        refusal = nil
    }

    mutating func appendMember(_ member: WireJSONMember) -> Int {
        members.append(member)
        return members.count - 1
    }

    mutating func appendNestedKeys(_ outer: Range<Int>, _ key: any CodingKey) -> Range<Int> {
        let start = nestedKeys.count
        // One by one: appending a slice of the table to itself would copy the whole table.
        for index in outer { nestedKeys.append(nestedKeys[index]) }
        nestedKeys.append(key)
        return start..<nestedKeys.count
    }

    mutating func refuse(_ reason: String) {
        if refusal == nil { refusal = reason }
    }
}
