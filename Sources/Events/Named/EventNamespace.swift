/// A `String`-backed enum whose cases are event names, qualified by the enum's type.
///
/// Names grouped by the area of an app they belong to, so that names cannot collide: list the
/// names of one area as cases, and each case turns into an ``EventName`` that starts with the
/// namespace (by default, the type's name).
///
/// ```swift
/// enum PhotoEvents: String, EventNamespace {
///     case listDidLoad
///     case detailDidLoad
/// }
/// enum VideoEvents: String, EventNamespace {
///     case listDidLoad                       // "VideoEvents.listDidLoad": no clash with photos
/// }
///
/// let subscription = center.listen(to: PhotoEvents.listDidLoad.eventName) { event in ... }
/// center.dispatch(PhotoEvents.listDidLoad.eventName, from: self)
/// ```
///
/// Rules:
/// - A case's name is `"\(namespace).\(rawValue)"`.
/// - ``namespace`` defaults to the type's own name, without its module or enclosing types
///   (`"PhotoEvents"`). Override it to keep names stable across a rename, or to tell apart two
///   types that share a name (in different modules, or nested in different types).
/// - Two different types must never produce the same namespace: the first time the second of
///   them makes a name, the program stops with a message naming both types. A collision would
///   otherwise deliver one area's events to the other's listeners without any sign.
public protocol EventNamespace: RawRepresentable where RawValue == String {
    /// The prefix of every name of this type: by default the type's own name.
    static var namespace: String { get }
}

extension EventNamespace {
    /// The type's own name, without its module or enclosing types.
    public static var namespace: String { String(describing: Self.self) }

    /// This case as an ``EventName``: `"\(namespace).\(rawValue)"`.
    public var eventName: EventName {
        let namespace = Self.namespace
        namespaceClaims.claim(namespace, for: Self.self)
        return EventName(namespace + "." + rawValue)
    }
}

/// The process-wide table of which type produces which namespace, so that a collision between
/// two ``EventNamespace`` types is caught the first time both are used.
let namespaceClaims = NamespaceClaims()

final class NamespaceClaims: Sendable {
    private let lock = Lock()
    // Safe to share although mutable: read and written only under `lock`. It holds identifiers
    // and strings only, so no user code runs under the lock.
    nonisolated(unsafe) private var owners: [String: (id: ObjectIdentifier, type: String)] = [:]

    /// Records that `type` produces `namespace`, or stops the program if another type already does.
    func claim<T>(_ namespace: String, for type: T.Type) {
        let id = ObjectIdentifier(type)
        let holder = lock.withLock { () -> String? in
            if let owner = owners[namespace] {
                return owner.id == id ? nil : owner.type
            }
            owners[namespace] = (id, String(reflecting: type))
            return nil
        }
        if let holder {
            preconditionFailure(
                """
                swift-events: \(String(reflecting: type)) and \(holder) both use the event namespace \
                "\(namespace)", so their names would collide; give one of them a distinct \
                `static var namespace`
                """)
        }
    }
}
