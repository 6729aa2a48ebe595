/// The base class of every ``PayloadKey``, and the place where keys are declared.
///
/// Declare each key once, as a static member of an extension of `PayloadKeys`, with the type of
/// its value; then use it with a leading dot wherever a key is expected:
///
/// ```swift
/// extension PayloadKeys {
///     static let uniqueID = PayloadKey<String>("uniqueID")
///     static let opacity = PayloadKey<Double>("opacity")
/// }
///
/// center.dispatch(.opacityChanged, from: plane, payload: Payload(.uniqueID, id).setting(.opacity, to: 0.5))
/// let opacity = try event[.opacity]   // a Double, or an error that says what was there instead
/// ```
///
/// Keys are compared by ``name``: two keys with the same name address the same value, and the
/// type of the key that reads decides the type that is expected.
public class PayloadKeys: @unchecked Sendable, CustomStringConvertible {
    // Why @unchecked is safe: the only stored property is an immutable `String`; the class is
    // non-final only so that `PayloadKey` can carry the value type, and adds no stored state.

    /// The key's name: the dictionary key it stands for in a `userInfo`.
    public let name: String

    init(name: String) {
        self.name = name
    }

    /// The type of the key's value, for messages.
    var valueTypeName: String { "Any" }

    /// `value` as this key's `Sendable` value type, or nil when it is not one. The base class
    /// knows no type, so carries nothing.
    func sendableValue(from value: Any) -> (any Sendable)? { nil }

    public var description: String { "\"\(name)\" (\(valueTypeName))" }
}

/// A key for one value of a named event's ``Payload``, with the value's type.
///
/// This replaces `userInfo["uniqueID"] as? String`: the key carries the type, writing a value of
/// another type does not compile, and reading one that is missing or of another type throws an
/// error that says so (``NamedEventError``).
///
/// ```swift
/// extension PayloadKeys {
///     static let uniqueID = PayloadKey<String>("uniqueID")
/// }
/// let id = try event[.uniqueID]
/// ```
///
/// The value type must be `Sendable`: payloads travel with the event to whatever thread
/// dispatches it.
public final class PayloadKey<Value: Sendable>: PayloadKeys, @unchecked Sendable {
    // Why @unchecked is safe: adds no stored properties to `PayloadKeys`.

    /// Creates a key; `name` is the string it stands for in a `userInfo` dictionary.
    public init(_ name: String) {
        super.init(name: name)
    }

    override var valueTypeName: String { String(describing: Value.self) }

    override func sendableValue(from value: Any) -> (any Sendable)? {
        value as? Value
    }
}
