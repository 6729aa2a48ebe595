/// The name of a named event: a string, compared exactly.
///
/// Use named events where a name is what both sides share: code migrating from
/// `NotificationCenter` or from an ActionScript-style `dispatch(dispatcher, eventName, data)`
/// API, names that come from configuration or another system, or a listener that wants every
/// event whatever its name. Where you control both sides, a typed ``Event`` says more.
///
/// Declare names once, as static members, and use them with a leading dot:
///
/// ```swift
/// extension EventName {
///     static let rectangleCreated: EventName = "rectangleCreated"
/// }
///
/// let subscription = center.listen(to: .rectangleCreated) { event in ... }
/// center.dispatch(.rectangleCreated, from: plane)
/// ```
///
/// Or take them from a `String`-backed enum that adopts ``EventNamespace``; its names are
/// qualified by the enum's type, so two enums never produce the same name:
///
/// ```swift
/// enum PhotoEvents: String, EventNamespace {
///     case listDidLoad
/// }
/// PhotoEvents.listDidLoad.eventName   // "PhotoEvents.listDidLoad"
/// ```
///
/// Rules:
/// - Two names are equal when their strings are equal (no case folding, no normalization).
/// - A name is just its string: `EventName("listDidLoad")` and a `Notification.Name` with the same
///   raw value name the same thing, which is what lets the `NotificationCenter` bridges line up.
public struct EventName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name's string.
    public let rawValue: String

    /// Creates a name from its string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a name from its string.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The name of a case of an ``EventNamespace`` enum, qualified by its namespace:
    /// `EventName(PhotoEvents.listDidLoad)` is "PhotoEvents.listDidLoad".
    public init(_ name: some EventNamespace) {
        self = name.eventName
    }

    public var description: String { rawValue }
}
