/// What a listener of a name receives: the name, who dispatched it, and its data.
///
/// The counterpart of `NotificationCenter`'s `Notification` (`name`, `object`, `userInfo`),
/// with typed reads that cannot fail silently:
///
/// ```swift
/// extension PayloadKeys {
///     static let uniqueID = PayloadKey<String>("uniqueID")
/// }
///
/// let subscription = center.listen(to: .rectangleColorChanged) { event in
///     do {
///         let id = try event[.uniqueID]                 // a keyed value
///         let color = try event.data(as: RGBColor.self)  // the whole data
///         print(event.name, "from", event.sender?.description ?? "nobody", id, color)
///     } catch {
///         print(error)   // names the event, the key, the expected and the actual type
///     }
/// }
/// ```
///
/// A named event carries two kinds of data, either or both: one value (``data(as:)``, passed as
/// `dispatch(name, from: sender, data: value)`) and keyed values (``payload``, read with a
/// ``PayloadKey``, in place of `userInfo`). Every value is `Sendable`.
///
/// Dispatch named events by name (`center.dispatch(name, from:data:payload:)`); a `NamedEvent`
/// is what listeners get, and can be handed on with `center.dispatch(event, from: self)`, which
/// dispatches it under its name.
///
/// Listening to `NamedEvent.self` (`listen(to: NamedEvent.self)`) is listening to every name,
/// as a nil name is in `NotificationCenter`; to hear one name, listen to that ``EventName``.
public struct NamedEvent: Event, CustomStringConvertible {
    /// The event's name.
    public let name: EventName
    /// The object that dispatched the event (`from:`), if any: `NotificationCenter`'s `object`.
    public let sender: Sender?
    /// The keyed values.
    public let payload: Payload
    /// The single value, if any.
    let data: Payload.Entry?

    /// Creates an event to hand to a handler directly, in a test for example. Events that
    /// listeners receive are made by `dispatch`.
    public init(name: EventName, data: (any Sendable)? = nil, payload: Payload = Payload()) {
        self.init(name: name, sender: nil, data: data.map { .value($0) }, payload: payload)
    }

    init(name: EventName, sender: Sender?, data: Payload.Entry?, payload: Payload) {
        self.name = name
        self.sender = sender
        self.data = data
        self.payload = payload
    }

    /// Whether the event carries a single value (read it with ``data(as:)``).
    public var hasData: Bool {
        if case .value = data { return true }
        return false
    }

    /// The event's single value as `T`.
    ///
    /// ```swift
    /// let post = try event.data(as: Post.self)
    /// ```
    ///
    /// - Throws: ``NamedEventError`` when the event has no data, or data of another type.
    public func data<T>(as type: T.Type = T.self) throws(NamedEventError) -> T {
        try read(data, key: nil, as: type)
    }

    /// The value of `key`.
    ///
    /// ```swift
    /// let id = try event[.uniqueID]
    /// ```
    ///
    /// - Throws: ``NamedEventError`` when there is no value for the key, or one of another type.
    public subscript<Value>(key: PayloadKey<Value>) -> Value {
        get throws(NamedEventError) {
            try read(payload.entries[key.name], key: key.name, as: Value.self)
        }
    }

    /// The value of `key`, or nil when the key has no value: for values that are optional by
    /// design. A value of another type still throws.
    ///
    /// - Throws: ``NamedEventError`` when the value has another type, or a bridge could not
    ///   carry it.
    public func value<Value>(for key: PayloadKey<Value>) throws(NamedEventError) -> Value? {
        guard let entry = payload.entries[key.name] else { return nil }
        return try read(entry, key: key.name, as: Value.self)
    }

    private func read<T>(_ entry: Payload.Entry?, key: String?, as type: T.Type) throws(NamedEventError) -> T {
        switch entry {
        case .value(let value)?:
            if let typed = value as? T { return typed }
            throw NamedEventError(
                eventName: name, key: key, expectedType: T.self,
                actualType: String(describing: Swift.type(of: value)), problem: .typeMismatch)
        case .unbridged(let typeName, let reason)?:
            throw NamedEventError(
                eventName: name, key: key, expectedType: T.self, actualType: typeName, problem: .notBridged,
                notCarried: reason)
        case nil:
            throw NamedEventError(eventName: name, key: key, expectedType: T.self, actualType: nil, problem: .missing)
        }
    }

    /// The name, the sender, the data and the payload, as in
    /// `NamedEvent("saved" from Document@0x6000, data: 42, payload: [itemID: "a"])`.
    ///
    /// Values nested deeper than a fixed limit are cut short with `…`: describing an event never
    /// overflows the stack, however deep its values nest (an event carried as the data of an
    /// event carried as the data of an event, ...).
    public var description: String {
        BoundedDescription.reflecting(self)
    }
}
