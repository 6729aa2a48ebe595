/// The keyed values of a named event: the typed replacement for `userInfo`.
///
/// Build one from a key and its value, then add more with ``setting(_:to:)``, or step by step
/// with ``set(_:to:)``; keys are ``PayloadKey``s, so each value must have its key's type:
///
/// ```swift
/// let payload = Payload(.uniqueID, "r1").setting(.opacity, to: 0.5)
///
/// var more = Payload()
/// more.set(.uniqueID, to: "r2")
/// center.dispatch(.opacityChanged, from: plane, payload: more.setting(.opacity, to: 0.8))
/// ```
///
/// Read values from the event a listener receives (`try event[.uniqueID]`), not from the payload:
/// the event knows its name, which makes the errors say where a value was missing.
///
/// Rules:
/// - Every value is `Sendable`; a payload can be read from any thread.
/// - Setting a key that is already set replaces its value.
/// - A payload that came from a `NotificationCenter` bridge may list values it could not carry
///   (``unbridgedValues``); reading one of them throws an error that says why.
public struct Payload: Sendable, CustomStringConvertible {
    /// One slot: a value, or the type name of a value a bridge could not carry, and why.
    enum Entry: Sendable {
        case value(any Sendable)
        case unbridged(typeName: String, reason: NotCarriedReason = .notKnownSendable)
    }

    var entries: [String: Entry] = [:]

    /// An empty payload.
    public init() {}

    /// A payload holding one value, under `key`.
    ///
    /// Add more values with ``setting(_:to:)``:
    ///
    /// ```swift
    /// center.dispatch(.opacityChanged, from: plane, payload: Payload(.uniqueID, "r1"))
    /// let both = Payload(.uniqueID, "r1").setting(.color, to: RGBColor(red: 255, green: 0, blue: 0))
    /// ```
    public init<Value>(_ key: PayloadKey<Value>, _ value: Value) {
        entries[key.name] = .value(value)
    }

    /// A payload holding each key and value pair, in order (a later pair with the same key wins).
    @available(
        *, deprecated,
        message: "write Payload(key, value), and add more values with .setting(key, to: value)"
    )
    public init<each Value: Sendable>(_ pairs: repeat (PayloadKey<each Value>, each Value)) {
        for (key, value) in repeat each pairs {
            entries[key.name] = .value(value)
        }
    }

    /// Sets the value of `key`.
    public mutating func set<Value>(_ key: PayloadKey<Value>, to value: Value) {
        entries[key.name] = .value(value)
    }

    /// This payload with the value of `key` set: a later value for the same key replaces an
    /// earlier one.
    ///
    /// ```swift
    /// let payload = Payload(.uniqueID, "r1").setting(.opacity, to: 0.5).setting(.color, to: teal)
    /// ```
    // Consuming, so that a chain of `setting` calls hands one dictionary along instead of
    // copying it at every step.
    public consuming func setting<Value>(_ key: PayloadKey<Value>, to value: Value) -> Payload {
        var copy = self
        copy.set(key, to: value)
        return copy
    }

    /// Removes the value of `key`, if any.
    public mutating func remove(_ key: PayloadKeys) {
        entries[key.name] = nil
    }

    /// Whether a value is set for `key` (of any type; a value a bridge could not carry does not
    /// count).
    public func contains(_ key: PayloadKeys) -> Bool {
        if case .value = entries[key.name] { return true }
        return false
    }

    /// The names of the keys that have a value, sorted.
    public var keys: [String] {
        entries.compactMap { name, entry in
            if case .value = entry { return name }
            return nil
        }.sorted()
    }

    /// Whether no key has a value.
    public var isEmpty: Bool {
        !entries.values.contains { entry in
            if case .value = entry { return true }
            return false
        }
    }

    /// Values that a `NotificationCenter` bridge found in a `userInfo` but could not carry: key
    /// name to the value's type name.
    ///
    /// A value is not carried when its type is not known to be `Sendable`, when it does not cast
    /// to the type of the key the bridge was given for its name, or when its key prints like
    /// another key of the same `userInfo` (the `Int` 5 and the `String` "5"): such a key is
    /// listed under its printed name and its type, `5 (key of type Int)`. Reading any of them
    /// throws a ``NamedEventError`` that says which.
    public var unbridgedValues: [String: String] {
        var result: [String: String] = [:]
        for (name, entry) in entries {
            if case .unbridged(let typeName, _) = entry { result[name] = typeName }
        }
        return result
    }

    /// Each value, in key order, with the type names of values a bridge could not carry.
    ///
    /// Values nested deeper than a fixed limit are cut short with `…`: describing a payload never
    /// overflows the stack, however deep its values nest.
    public var description: String {
        BoundedDescription.reflecting(self)
    }

    /// How ``description`` shows a value a bridge did not carry.
    static func notCarriedText(typeName: String, reason: NotCarriedReason) -> String {
        switch reason {
        case .notKnownSendable: "<not carried: \(typeName)>"
        case .notOfKeyTypes(let keyTypes, _):
            "<not carried: \(typeName), does not cast to \(keyTypes.joined(separator: " or "))>"
        case .lookalikeKey: "<not carried: \(typeName), its key prints like another>"
        }
    }
}
