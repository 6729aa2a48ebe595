/// Why a value could not be read from a ``NamedEvent``: it is missing, it has another type, or a
/// `NotificationCenter` bridge could not carry it.
///
/// Every read of a named event's data or keyed values either returns a value of the type asked
/// for or throws this error; nothing is silently `nil`. The error names the event, the key (or
/// the whole data), the type expected and the type found, and its ``description`` says all of it
/// in one sentence:
///
/// ```swift
/// do {
///     let opacity = try event[.opacity]
/// } catch {
///     print(error)
///     // Named event "rectangleOpacityChanged" has a value of the wrong type for key "opacity"
///     // (expected Double, found Int).
/// }
/// ```
public struct NamedEventError: Error, Hashable, CustomStringConvertible {
    /// What went wrong.
    ///
    /// Compare problems with `==` or match them in a `switch`, which needs a `default`: new
    /// releases may add problems, and a `switch` with a `default` goes on compiling.
    ///
    /// ```swift
    /// func opacity(of event: NamedEvent) throws -> Double {
    ///     do {
    ///         return try event[.opacity]
    ///     } catch {
    ///         switch error.problem {
    ///         case .missing: return 1
    ///         default: throw error
    ///         }
    ///     }
    /// }
    /// ```
    public struct Problem: Hashable, Sendable, CustomStringConvertible {
        enum Kind: String, Hashable, Sendable {
            case missing, typeMismatch, notBridged
        }

        let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// There is no value (no data, or nothing under the key).
        public static let missing = Problem(.missing)
        /// There is a value of another type.
        public static let typeMismatch = Problem(.typeMismatch)
        /// The event came from a `NotificationCenter` bridge, whose notification held a value
        /// there that the bridge did not carry: its type is not known to be `Sendable`, it does
        /// not cast to the type of the key the bridge was given for it, or its key prints like
        /// another key of the notification. The ``NamedEventError/description`` says which.
        public static let notBridged = Problem(.notBridged)

        /// The problem's name, such as `"missing"`.
        public var description: String { kind.rawValue }
    }

    /// The name of the event that was read.
    public let eventName: EventName
    /// The key that was read, or nil when the whole data was read (`data(as:)`).
    public let key: String?
    /// The type the reader asked for.
    public let expectedType: String
    /// The type of the value that is there, or nil when there is none.
    public let actualType: String?
    /// What went wrong.
    public let problem: Problem
    /// Why a bridge did not carry the value, for ``Problem/notBridged``.
    let notCarried: NotCarriedReason?

    init(
        eventName: EventName, key: String?, expectedType: Any.Type, actualType: String?, problem: Problem,
        notCarried: NotCarriedReason? = nil
    ) {
        self.eventName = eventName
        self.key = key
        self.expectedType = String(describing: expectedType)
        self.actualType = actualType
        self.problem = problem
        self.notCarried = notCarried
    }

    /// One sentence that names the event, the key or data, the expected and the actual type.
    public var description: String {
        let event = "Named event \"\(eventName.rawValue)\""
        let found = actualType ?? "nothing"
        switch (problem.kind, key) {
        case (.missing, nil):
            return "\(event) has no data (expected \(expectedType), found nothing)."
        case (.missing, let key?):
            return "\(event) has no value for key \"\(key)\" (expected \(expectedType), found nothing)."
        case (.typeMismatch, nil):
            return "\(event) has data of the wrong type (expected \(expectedType), found \(found))."
        case (.typeMismatch, let key?):
            return
                "\(event) has a value of the wrong type for key \"\(key)\" (expected \(expectedType), found \(found))."
        case (.notBridged, nil):
            return
                "\(event) has no data (expected \(expectedType), found \(found)): the notification's object was not "
                + "carried because its type is not known to be Sendable; forward the notification as a typed event "
                + "to carry it."
        case (.notBridged, let key?):
            return "\(event) has no value for key \"\(key)\" (expected \(expectedType), found \(found)): the "
                + "notification's value was not carried because " + Self.reason(notCarried ?? .notKnownSendable, key)
        }
    }

    /// Why a `userInfo` value was not carried, and what carries it: true of this value.
    private static func reason(_ reason: NotCarriedReason, _ key: String) -> String {
        switch reason {
        case .notKnownSendable:
            return "its type is not known to be Sendable; if it is, list a PayloadKey for \"\(key)\" in the "
                + "bridge's keys."
        case .notOfKeyTypes(let keyTypes, let number):
            let types = keyTypes.joined(separator: " or ")
            let keys = keyTypes.count == 1 ? "the type of the bridge's key" : "the types of the bridge's keys"
            let hint =
                number.map {
                    " (whether an NSNumber casts to Bool or to a number type depends on its value, and this one "
                        + "holds \($0))"
                } ?? ""
            return "it does not cast to \(types), \(keys) for \"\(key)\"\(hint); give the bridge a key of a "
                + "Sendable type the value casts to, or forward the notification as a typed event to read it."
        case .lookalikeKey(let keyType, let printedAs):
            return "its key, of type \(keyType), prints as \"\(printedAs)\" like another key of the notification, so "
                + "no PayloadKey can tell them apart; forward the notification as a typed event to read it from "
                + "userInfo."
        }
    }
}

/// Why a `NotificationCenter` bridge did not carry a value it found.
enum NotCarriedReason: Hashable, Sendable {
    /// Its type is not known to be `Sendable`, and the bridge was given no key for its name.
    case notKnownSendable
    /// It does not cast to the value types of the keys the bridge was given for its name;
    /// `number` is the value when it is an `NSNumber` (whose casts depend on the value).
    case notOfKeyTypes([String], number: String?)
    /// Its key, of type `keyType`, prints as `printedAs`, as another key of the `userInfo` does.
    case lookalikeKey(keyType: String, printedAs: String)
}
