import Foundation

/// JSON coding of carried event data: a fast path for what it can reproduce exactly, Foundation's
/// coders for everything else.
///
/// Foundation's `JSONEncoder` and `JSONDecoder` build an intermediate tree for every value,
/// which was most of the bridge's time per event, even for a two-field struct. The
/// wire coders write and read bytes directly. They produce what Foundation produces (with its
/// default settings) and accept what it accepts; whenever they meet something they do not
/// reproduce exactly (a `Date`, `Data`, `URL` or `Decimal`, a `Float`, a NaN, a repeated key, an
/// unusual number form, a malformed document...), they give up with ``WireJSONUnsupported`` and
/// the value is coded by Foundation from scratch, so Foundation's output and Foundation's errors
/// stay authoritative: `decode` gives exactly what Foundation's `JSONDecoder()` gives for the
/// same bytes and type, a value or an error, on every platform. (Zeros written with an exponent,
/// such as `0e1`, are valid JSON that Foundation on Linux refuses as a `Double` in some forms
/// and not others; they are left to it, rather than accepted here and refused whenever some
/// other member makes the value go to Foundation.)
///
/// The wire decoder reads bytes from the network: every read is checked against the end of the
/// document (see `WireJSONBytes`), so bytes that are not what a caller said they were make it
/// refuse, never read outside them.
///
/// One difference is deliberate: object members are written in the order they are encoded.
/// Foundation on Linux keeps members in a `Dictionary` and writes them in hash order, which
/// differs from one encoding to the next; any order is the same JSON object to a reader.
enum WireJSON {
    // Foundation's coders are Sendable and safe to share between threads; one each is cheaper
    // than one per event.
    private static let foundationEncoder = JSONEncoder()
    private static let foundationDecoder = JSONDecoder()

    /// Encodes `value` as Foundation's `JSONEncoder()` would.
    static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try encode(value, appendingTo: &bytes)
        return bytes
    }

    /// Appends `value`'s JSON, as Foundation's `JSONEncoder()` would write it, to `output`; on a
    /// throw, `output` is as it was.
    static func encode<Value: Encodable>(_ value: Value, appendingTo output: inout [UInt8]) throws {
        let start = output.count
        do {
            try WireJSONEncoder.encode(value, appendingTo: &output)
        } catch {
            output.removeSubrange(start...)
            output.append(contentsOf: try foundationEncoder.encode(value))
        }
    }

    /// Decodes a `Value` from the JSON at `range` of `bytes` (all of them by default) as
    /// Foundation's `JSONDecoder()` would, throwing its error on failure.
    ///
    /// `validatedDepth` is for bytes known to be strictly valid JSON nested that deep (data a
    /// CloudEvent scan validated): the wire decoder then skips validating them again.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: [UInt8], in range: Range<Int>? = nil, validatedDepth: Int? = nil
    ) throws -> Value {
        let range = range ?? bytes.indices
        do {
            return try WireJSONDecoder.decode(type, from: bytes, in: range, validatedDepth: validatedDepth)
        } catch {
            return try foundationDecoder.decode(type, from: Data(bytes[range]))
        }
    }
}

/// The wire coders cannot reproduce Foundation exactly for this value; Foundation codes it.
struct WireJSONUnsupported: Error {
    let reason: String
}

/// The key of an array element in a coding path, as Foundation names it.
struct WireJSONIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(index: Int) {
        intValue = index
    }

    init?(stringValue: String) {
        return nil
    }

    init?(intValue: Int) {
        self.intValue = intValue
    }
}

extension Array {
    /// Removes elements from the end until `count` is `newCount` (no more than it is), keeping
    /// the capacity. For a few elements, one at a time: `removeLast(_:)` and
    /// `removeAll(keepingCapacity:)` go through `replaceSubrange`, costly even for one or two
    /// elements, and the coders trim their stacks several times per value.
    mutating func truncate(to newCount: Int) {
        guard count > newCount else { return }
        if count - newCount > 8 {
            removeSubrange(newCount...)
        } else {
            while count > newCount { removeLast() }
        }
    }
}
