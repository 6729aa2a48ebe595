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
    // All state is in one struct, changed through its methods, each one short access to this
    // property that never calls out to other code (the value's `encode(to:)` runs between
    // accesses, never inside one), and an encoder is used by one thread at a time. Accesses can
    // therefore never overlap, and the dynamic exclusivity checks, which every value encoded
    // would pay several times (a large share of an encoding, measured), are turned off
    // for this property.
    @exclusivity(unchecked) private var state = WireJSONEncoderState()

    private init() {}

    /// The encoder the last encode left behind: an encoder per event allocated itself, its
    /// open containers and its keys.
    private static let spare = SpareCoder<WireJSONEncoder>()

    static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        try encode(value, appendingTo: &bytes)
        return bytes
    }

    /// Appends `value`'s JSON to `output`. On a throw, `output` holds what it held before plus
    /// whatever was written of the value: the caller truncates it.
    static func encode<Value: Encodable>(_ value: Value, appendingTo output: inout [UInt8]) throws {
        var encoder = spare.take() ?? WireJSONEncoder()
        encoder.state.output = JSONOutput(continuing: output)
        output = []  // the encoder holds the only reference, so appending never copies the buffer
        defer {
            output = encoder.state.output.take()
            encoder.state.reset()
            spare.keep(&encoder)
        }
        let start = encoder.state.output.bytes.count
        try encoder.encodeValue(value, key: .none)
        try encoder.state.finish(from: start)
    }

    /// Encodes a nested value (or the top-level one) at the current output position, after its
    /// key or separator has been written.
    func encodeValue<Value: Encodable>(_ value: Value, key: WireJSONKeyHandle) throws {
        // Foundation formats these specially (dates as seconds, data as base64, ...).
        if Value.self == Date.self || Value.self == Data.self || Value.self == URL.self || Value.self == Decimal.self {
            throw state.fail("\(Value.self) is left to Foundation")
        }
        let outer = state.beginValue(key: key)
        defer { state.restoreValue(outer) }
        do {
            try value.encode(to: self)
        } catch {
            // The value's own error: its key or separator and whatever it wrote are already
            // out, and a caller that catches the error and goes on would leave invalid JSON
            // (Foundation leaves the member out). Refuse, so Foundation codes the whole value.
            state.refuse("a value threw \(error)")
            throw error
        }
        try state.endValue()
    }

    func refuse(_ reason: String) {
        state.refuse(reason)
    }

    func fail(_ reason: String) -> WireJSONUnsupported {
        state.fail(reason)
    }

    var pendingValueKey: WireJSONKeyHandle { state.pendingValueKey }

    var recordedKeyCount: Int { state.recordedKeyCount }

    /// Opens a nested container of an open one under `key`, which is recorded for the
    /// container's coding paths and forgotten when it closes.
    func openNested(keyed: Bool, forKey key: some CodingKey) -> (depth: Int, id: Int) {
        state.open(keyed: keyed, key: state.handle(for: key), ownsKey: true)
    }

    /// Encodes a nested value under `key`, which is recorded for the value's coding paths.
    func encodeValue<Value: Encodable>(_ value: Value, forKey key: some CodingKey) throws {
        let handle = state.handle(for: key)
        defer { state.forgetKeys(from: handle) }
        try encodeValue(value, key: handle)
    }

    func openValueContainer(keyed: Bool) -> (depth: Int, id: Int) {
        state.openValueContainer(keyed: keyed)
    }

    func beginMember(_ key: some CodingKey, depth: Int, id: Int) throws {
        try state.beginMember(key.stringValue, depth: depth, id: id)
    }

    func beginElement(depth: Int, id: Int) throws -> Int {
        try state.beginElement(depth: depth, id: id)
    }

    func beginSingleValue() throws {
        try state.beginSingleValue()
    }

    func count(depth: Int, id: Int) -> Int {
        state.count(depth: depth, id: id)
    }

    func codingPath(depth: Int?) -> [any CodingKey] {
        state.codingPath(depth: depth)
    }

    func writeNull() {
        state.output.append(contentsOf: "null")
    }

    func write(_ value: Bool) {
        state.output.append(contentsOf: value ? "true" : "false")
    }

    func write(_ value: some FixedWidthInteger) {
        state.output.appendInteger(value)
    }

    /// Foundation refuses NaN and the infinities (it throws; Foundation's coder produces that
    /// error).
    func write(_ value: Double) throws {
        try state.writeDouble(value)
    }

    func writeString(_ value: String) {
        state.output.appendString(value)
    }
}

/// The state of a `WireJSONEncoder`: its output and its open containers.
struct WireJSONEncoderState {
    /// An open container.
    struct Frame {
        let isKeyed: Bool
        /// Distinguishes this container from later ones at the same depth.
        let id: Int
        /// The key it was created for (none at the top level), for `codingPath`.
        let key: WireJSONKeyHandle
        /// Whether `key` was recorded for this container (a nested one), not for its value.
        let ownsKey: Bool
        /// Where its keys start in `keyLog`.
        let keyStart: Int
        var count = 0
        /// Its keys once it has more than a few, so that finding a repeated key is not a scan
        /// of all of them (which made encoding a dictionary quadratic in its size); its later
        /// keys go here rather than to `keyLog`.
        var names: Set<String>? = nil
    }

    /// Empty until `encode(_:appendingTo:)` hands it the caller's buffer.
    var output = JSONOutput(continuing: [])
    private var frames: [Frame] = []
    /// The keys written into the open keyed containers, each container's keys together, to
    /// refuse a repeated key (Foundation keeps only the last value of a repeated key).
    private var keyLog: [String] = []
    private var nextFrameID = 0
    /// Where the value being encoded starts: its depth and its first output byte.
    private var valueDepth = 0
    private var valueStart = 0
    /// The key of the value being encoded, until its container records it.
    private var valueKey = WireJSONKeyHandle.none
    /// The keys of the values and containers open now, innermost last, for coding paths:
    /// handles index it. Keys are referred to by handle rather than held as optional
    /// existentials, whose every copy and destruction went through generic witnesses (several
    /// per value, even for the top level's nil).
    private var keys: [any CodingKey] = []
    /// Set when something was refused where Codable gives no way to throw.
    private var refusal: String?

    /// Where a value started, saved while a nested value is encoded. (A struct, not a tuple: a
    /// tuple holding an existential is copied through its generic metadata, which cost more than
    /// the rest of saving it.)
    struct ValueContext {
        let depth: Int
        let start: Int
        let key: WireJSONKeyHandle
    }

    /// Empties the state for the next value, keeping its arrays' storage.
    mutating func reset() {
        frames.truncate(to: 0)
        keyLog.truncate(to: 0)
        keys.truncate(to: 0)
        nextFrameID = 0
        valueDepth = 0
        valueStart = 0
        valueKey = .none
        refusal = nil
    }

    /// Records the key of a value or container about to open; `forgetKeys(from:)` drops it
    /// when that value ends (a container's is dropped when it closes).
    mutating func handle(for key: some CodingKey) -> WireJSONKeyHandle {
        keys.append(key)
        return WireJSONKeyHandle(index: keys.count - 1)
    }

    /// Drops the key `handle` stands for and every key recorded after it.
    mutating func forgetKeys(from handle: WireJSONKeyHandle) {
        if let index = handle.index { keys.truncate(to: index) }
    }

    /// How many keys are recorded now: as many as values and containers are open below the
    /// top level, however many were coded before them.
    var recordedKeyCount: Int { keys.count }

    /// Checks the value that was written from offset `start` on.
    mutating func finish(from start: Int) throws {
        if let refusal { throw WireJSONUnsupported(reason: refusal) }
        // Foundation refuses a top-level value that encodes nothing.
        guard output.bytes.count > start else { throw WireJSONUnsupported(reason: "the value encoded nothing") }
    }

    // MARK: - Values

    /// Starts a value at the current position; returns the enclosing value's context.
    mutating func beginValue(key: WireJSONKeyHandle) -> ValueContext {
        let outer = ValueContext(depth: valueDepth, start: valueStart, key: valueKey)
        valueDepth = frames.count
        valueStart = output.bytes.count
        valueKey = key
        return outer
    }

    /// Finishes the value that `encode(to:)` just wrote, closing its containers.
    mutating func endValue() throws {
        if let refusal { throw WireJSONUnsupported(reason: refusal) }
        if frames.count == valueDepth && output.bytes.count == valueStart && valueDepth > 0 {
            // A nested value that encoded nothing is an empty object in Foundation's output.
            output.append(contentsOf: "{}")
        }
        close(downTo: valueDepth)
    }

    mutating func restoreValue(_ outer: ValueContext) {
        valueDepth = outer.depth
        valueStart = outer.start
        valueKey = outer.key
    }

    mutating func refuse(_ reason: String) {
        if refusal == nil { refusal = reason }
    }

    /// Refuses the whole value: even if the caller's code catches this error and goes on, the
    /// result is discarded for Foundation's.
    mutating func fail(_ reason: String) -> WireJSONUnsupported {
        refuse(reason)
        return WireJSONUnsupported(reason: reason)
    }

    /// The key of the value being encoded, while it has no container yet.
    var pendingValueKey: WireJSONKeyHandle { frames.count == valueDepth ? valueKey : .none }

    mutating func writeDouble(_ value: Double) throws {
        guard output.appendDouble(value) else { throw fail("\(value) is not valid JSON") }
    }

    // MARK: - Containers

    /// Opens a container for the value being encoded, or (`ownsKey`) for a nested container of
    /// an open one, whose key was recorded for it and is forgotten when it closes.
    mutating func open(keyed: Bool, key: WireJSONKeyHandle, ownsKey: Bool) -> (depth: Int, id: Int) {
        output.append(keyed ? UInt8(ascii: "{") : UInt8(ascii: "["))
        let id = nextFrameID
        nextFrameID += 1
        // Room for typical nesting and key counts at once, rather than growing one by one.
        if frames.capacity == 0 { frames.reserveCapacity(8) }
        if keyed && keyLog.capacity == 0 { keyLog.reserveCapacity(16) }
        frames.append(Frame(isKeyed: keyed, id: id, key: key, ownsKey: ownsKey, keyStart: keyLog.count))
        return (frames.count - 1, id)
    }

    /// Opens the container that a value's `encode(to:)` asked the encoder for.
    mutating func openValueContainer(keyed: Bool) -> (depth: Int, id: Int) {
        guard frames.count == valueDepth, output.bytes.count == valueStart else {
            refuse("a value asked for a second container")
            return (-1, -1)
        }
        return open(keyed: keyed, key: valueKey, ownsKey: false)
    }

    /// Checks that a container may still be written to, closing its nested containers.
    private mutating func use(depth: Int, id: Int) throws {
        if let refusal { throw WireJSONUnsupported(reason: refusal) }
        guard depth >= valueDepth, depth < frames.count, frames[depth].id == id else {
            throw fail("a container was used after it was closed")
        }
        close(downTo: depth + 1)
    }

    private mutating func close(downTo depth: Int) {
        while frames.count > depth {
            let frame = frames.removeLast()
            output.append(frame.isKeyed ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            if frame.isKeyed { keyLog.truncate(to: frame.keyStart) }
            if frame.ownsKey { forgetKeys(from: frame.key) }
        }
    }

    /// Writes the separator and `"key":` for the next member of a keyed container.
    mutating func beginMember(_ name: String, depth: Int, id: Int) throws {
        try use(depth: depth, id: id)
        if frames[depth].names != nil {
            guard frames[depth].names!.insert(name).inserted else {
                throw fail("the key \"\(name)\" was encoded twice")
            }
        } else {
            let start = frames[depth].keyStart
            for index in start..<keyLog.count where keyLog[index] == name {
                throw fail("the key \"\(name)\" was encoded twice")
            }
            if keyLog.count - start < 16 {
                keyLog.append(name)
            } else {
                var names = Set(keyLog[start...])
                names.insert(name)
                frames[depth].names = names
            }
        }
        if frames[depth].count > 0 { output.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
        output.appendString(name)
        output.append(UInt8(ascii: ":"))
    }

    /// Writes the separator before the next element of an unkeyed container; returns its index.
    mutating func beginElement(depth: Int, id: Int) throws -> Int {
        try use(depth: depth, id: id)
        let index = frames[depth].count
        if index > 0 { output.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
        return index
    }

    /// Checks that a single value container may write the value being encoded.
    mutating func beginSingleValue() throws {
        if let refusal { throw WireJSONUnsupported(reason: refusal) }
        guard frames.count == valueDepth, output.bytes.count == valueStart else {
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
            if let key = key(frame.key) { path.append(key) }
        }
        if depth == nil, frames.count == valueDepth, let valueKey = key(valueKey) { path.append(valueKey) }
        return path
    }

    /// The key `handle` stands for. A container misused after its value ended may hold a
    /// handle whose key was dropped: no key then (coding paths are only for messages).
    private func key(_ handle: WireJSONKeyHandle) -> (any CodingKey)? {
        guard let index = handle.index, index < keys.count else { return nil }
        return keys[index]
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

/// A key recorded in the encoder's state (see `WireJSONEncoderState.keys`), or none.
struct WireJSONKeyHandle {
    /// Where the key is in `keys`; nil for none.
    let index: Int?

    static let none = WireJSONKeyHandle(index: nil)
}
