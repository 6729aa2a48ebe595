/// What a listener is registered for; the registry keeps one list of listeners per key, so a
/// dispatch only ever looks at the listeners of its own key.
@usableFromInline
enum EventKey: Hashable, Sendable {
    /// A typed event, identified by its exact static type.
    case type(ObjectIdentifier)
    /// A named event (`NamedEvent`) with this name.
    case name(String)
    /// Listeners of every named event, whatever its name (like a nil name in `NotificationCenter`).
    case anyName

    @inlinable
    init<E>(_ type: E.Type) {
        self = .type(ObjectIdentifier(type))
    }
}
