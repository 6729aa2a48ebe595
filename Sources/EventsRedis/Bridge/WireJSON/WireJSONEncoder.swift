import Foundation

/// Writes an `Encodable` value straight into JSON bytes, the way Foundation's `JSONEncoder()`
/// formats them (see ``WireJSON`` for what it leaves to Foundation).
///
/// Containers are written as they are used: opening a container writes its bracket, each
/// element goes out as it is encoded, and a container closes when its value's `encode(to:)`
/// returns or when its parent writes its next element. Codable allows more (writing into a
/// nested container after the parent moved on, asking for a second container for one value,
/// encoding a key twice); those need Foundation's tree, so they are detected and refused with
/// ``WireJSONUnsupported``.
final class WireJSONEncoder {
    /// An open container.
    struct Frame {
        let isKeyed: Bool
        /// Distinguishes this container from later ones at the same depth.
        let id: Int
        /// The key it was created for (nil at the top level), for `codingPath`.
        let key: (any CodingKey)?
        /// Where its keys start in `keyLog`.
        let keyStart: Int
        var count = 0
    }

    private(set) var output: [UInt8] = []
    private(set) var frames: [Frame] = []
    /// The keys written into the open keyed containers, each container's keys together, to
    /// refuse a repeated key (Foundation keeps only the last value of a repeated key).
    private var keyLog: [String] = []
    private var nextFrameID = 0
    /// Where the value being encoded starts: its depth and its first output byte.
    private var valueDepth = 0
    private var valueStart = 0
    /// The key of the value being encoded, until its container records it.
    private var valueKey: (any CodingKey)?
    /// Set when something was refused where Codable gives no way to throw.
    private var refusal: String?

    private init() {
        output.reserveCapacity(256)
    }

    static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let encoder = WireJSONEncoder()
        try encoder.encodeValue(value, key: nil)
        guard encoder.output.count > 0 else {
            // Foundation refuses a top-level value that encodes nothing.
            throw WireJSONUnsupported(reason: "the value encoded nothing")
        }
        if let refusal = encoder.refusal { throw WireJSONUnsupported(reason: refusal) }
        return encoder.output
    }

    // MARK: - Values

    /// Encodes a nested value (or the top-level one) at the current output position, after its
    /// key or separator has been written.
    func encodeValue<Value: Encodable>(_ value: Value, key: (any CodingKey)?) throws {
        // Foundation formats these specially (dates as seconds, data as base64, ...).
        if Value.self == Date.self || Value.self == Data.self || Value.self == URL.self || Value.self == Decimal.self {
            throw fail("\(Value.self) is left to Foundation")
        }
        let outer = (depth: valueDepth, start: valueStart, key: valueKey)
        valueDepth = frames.count
        valueStart = output.count
        valueKey = key
        defer {
            valueDepth = outer.depth
            valueStart = outer.start
            valueKey = outer.key
        }
        try value.encode(to: self)
        if let refusal { throw WireJSONUnsupported(reason: refusal) }
        if frames.count == valueDepth && output.count == valueStart && valueDepth > 0 {
            // A nested value that encoded nothing is an empty object in Foundation's output.
            output.append(contentsOf: "{}".utf8)
        }
        close(downTo: valueDepth)
    }

    func refuse(_ reason: String) {
        if refusal == nil { refusal = reason }
    }

    /// Refuses the whole value: even if the caller's code catches this error and goes on, the
    /// result is discarded for Foundation's.
    func fail(_ reason: String) -> WireJSONUnsupported {
        refuse(reason)
        return WireJSONUnsupported(reason: reason)
    }

    /// The key of the value being encoded, while it has no container yet.
    var pendingValueKey: (any CodingKey)? { frames.count == valueDepth ? valueKey : nil }

    // MARK: - Containers

    /// Opens a container for the value being encoded, or for a nested container of an open one.
    func open(keyed: Bool, key: (any CodingKey)?) -> (depth: Int, id: Int) {
        output.append(keyed ? UInt8(ascii: "{") : UInt8(ascii: "["))
        let id = nextFrameID
        nextFrameID += 1
        frames.append(Frame(isKeyed: keyed, id: id, key: key, keyStart: keyLog.count))
        return (frames.count - 1, id)
    }

    /// Opens the container that a value's `encode(to:)` asked the encoder for.
    func openValueContainer(keyed: Bool) -> (depth: Int, id: Int) {
        guard frames.count == valueDepth, output.count == valueStart else {
            refuse("a value asked for a second container")
            return (-1, -1)
        }
        return open(keyed: keyed, key: valueKey)
    }

    /// Checks that a container may still be written to, closing its nested containers.
    private func use(depth: Int, id: Int) throws {
        if let refusal { throw WireJSONUnsupported(reason: refusal) }
        guard depth >= valueDepth, depth < frames.count, frames[depth].id == id else {
            throw fail("a container was used after it was closed")
        }
        close(downTo: depth + 1)
    }

    private func close(downTo depth: Int) {
        while frames.count > depth {
            let frame = frames.removeLast()
            output.append(frame.isKeyed ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            if frame.isKeyed { keyLog.removeSubrange(frame.keyStart...) }
        }
    }

    /// Writes the separator and `"key":` for the next member of a keyed container.
    func beginMember(_ key: some CodingKey, depth: Int, id: Int) throws {
        try use(depth: depth, id: id)
        let name = key.stringValue
        let start = frames[depth].keyStart
        for index in start..<keyLog.count where keyLog[index] == name {
            throw fail("the key \"\(name)\" was encoded twice")
        }
        keyLog.append(name)
        if frames[depth].count > 0 { output.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
        writeString(name)
        output.append(UInt8(ascii: ":"))
    }

    /// Writes the separator before the next element of an unkeyed container; returns its index.
    func beginElement(depth: Int, id: Int) throws -> Int {
        try use(depth: depth, id: id)
        let index = frames[depth].count
        if index > 0 { output.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
        return index
    }

    /// Checks that a single value container may write the value being encoded.
    func beginSingleValue() throws {
        if let refusal { throw WireJSONUnsupported(reason: refusal) }
        guard frames.count == valueDepth, output.count == valueStart else {
            throw fail("a single value container was written twice")
        }
    }

    func count(depth: Int, id: Int) -> Int {
        depth >= 0 && depth < frames.count && frames[depth].id == id ? frames[depth].count : 0
    }

    /// The coding path of a container at `depth`, or of the value being encoded (`depth` nil).
    func codingPath(depth: Int?) -> [any CodingKey] {
        let frameCount = depth.map { min($0 + 1, frames.count) } ?? frames.count
        var path: [any CodingKey] = []
        for frame in frames[..<frameCount] {
            if let key = frame.key { path.append(key) }
        }
        if depth == nil, frames.count == valueDepth, let valueKey { path.append(valueKey) }
        return path
    }

    // MARK: - Scalars

    func writeNull() {
        output.append(contentsOf: "null".utf8)
    }

    func write(_ value: Bool) {
        output.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    func write(_ value: some FixedWidthInteger) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        // The magnitude fits in a UInt64 for every standard integer type up to 64 bits.
        var magnitude = UInt64(value.magnitude)
        let start = output.count
        repeat {
            output.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        output[start...].reverse()
    }

    /// Foundation writes a double's `description` without a trailing `.0`, and refuses NaN and
    /// the infinities (it throws; Foundation's coder produces that error).
    func write(_ value: Double) throws {
        guard value.isFinite else { throw fail("\(value) is not valid JSON") }
        var text = value.description
        text.withUTF8 { bytes in
            let count = bytes.count
            let endsInPointZero =
                count > 2 && bytes[count - 2] == UInt8(ascii: ".") && bytes[count - 1] == UInt8(ascii: "0")
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<(endsInPointZero ? count - 2 : count)]))
        }
    }

    /// Writes a JSON string with Foundation's escaping: `"`, `\` and `/` are escaped, control
    /// characters use the short escapes where JSON has them and `\u00xx` otherwise, everything
    /// else (DEL and all non-ASCII text included) is written as is.
    func writeString(_ value: String) {
        var text = value
        text.withUTF8 { bytes in
            output.append(UInt8(ascii: "\""))
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard
                    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/")
                else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                case 0..<0x20:
                    let hex: StaticString = "0123456789abcdef"
                    output.append(contentsOf: "u00".utf8)
                    output.append(hex.utf8Start[Int(byte >> 4)])
                    output.append(hex.utf8Start[Int(byte & 0x0F)])
                default: output.append(byte)
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            output.append(UInt8(ascii: "\""))
        }
    }
}

extension WireJSONEncoder: Encoder {
    var codingPath: [any CodingKey] { codingPath(depth: nil) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let (depth, id) = openValueContainer(keyed: true)
        return KeyedEncodingContainer(WireJSONKeyedEncodingContainer<Key>(encoder: self, depth: depth, id: id))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let (depth, id) = openValueContainer(keyed: false)
        return WireJSONUnkeyedEncodingContainer(encoder: self, depth: depth, id: id)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        WireJSONSingleValueEncodingContainer(encoder: self)
    }
}
