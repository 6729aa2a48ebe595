/// The object that dispatched an event (the `from:` of a dispatch).
///
/// Pass the sender when dispatching (`center.dispatch(event, from: self)`) and listeners can ask
/// who it was by listening to ``Sent``:
///
/// ```swift
/// let subscription = center.listen(to: Sent<PostWritten>.self) { sent in
///     if sent.sender === editor { print("written in the editor") }
///     let writer = sent.sender?.object(as: PostWriter.self)   // typed, nil if it is something else
/// }
/// center.dispatch(PostWritten(title: "Hi"), from: editor)
/// ```
///
/// A `Sender` compares by identity, and hands out the object itself only as a `Sendable` type,
/// so reading it from a handler on another thread cannot race.
public struct Sender: Hashable, CustomStringConvertible, @unchecked Sendable {
    // Why @unchecked is safe: `object` is never dereferenced except through `object(as:)`, which
    // only returns it as a `Sendable` type (safe to use from any thread), and through identity
    // and metatype reads, which touch immutable object header data. Retain and release are
    // atomic, so copying a `Sender` between threads is safe. The one other reader is the
    // `NotificationCenter` bridge, which posts it as a notification's `object` from inside a
    // handler: on the thread that passed it to `dispatch(from:)`, so it crosses no thread.
    let object: AnyObject

    @usableFromInline
    init(_ object: AnyObject) {
        self.object = object
    }

    /// The identity of the sending object.
    public var id: ObjectIdentifier { ObjectIdentifier(object) }

    /// The dynamic type of the sending object.
    public var type: any AnyObject.Type { Swift.type(of: object) }

    /// The sending object as `T`, or `nil` when it is not a `T`.
    ///
    /// `T` must be `Sendable` because the handler may run on any thread.
    public func object<T: AnyObject & Sendable>(as type: T.Type = T.self) -> T? {
        object as? T
    }

    /// Whether this sender is `object` (identity, not equality).
    public func isIdentical(to object: AnyObject?) -> Bool {
        self.object === object
    }

    public var description: String { "\(Swift.type(of: object))@0x\(String(UInt(bitPattern: id), radix: 16))" }

    public static func == (lhs: Sender, rhs: Sender) -> Bool { lhs.object === rhs.object }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// Whether the event came from exactly `object` (identity).
///
/// ```swift
/// center.listen(to: Sent<Saved>.self) { sent in
///     if sent.sender === editor { ... }
/// }
/// ```
public func === (sender: Sender?, object: AnyObject?) -> Bool {
    guard let sender else { return object == nil }
    return sender.isIdentical(to: object)
}

/// Whether the event did not come from exactly `object` (identity).
public func !== (sender: Sender?, object: AnyObject?) -> Bool {
    !(sender === object)
}
