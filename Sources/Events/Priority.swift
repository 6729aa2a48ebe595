/// The order in which listeners of one event run: higher first.
///
/// Listeners with equal priority run in the order they were registered. Write a priority as an
/// integer literal or use the named levels:
///
/// ```swift
/// center.listen(to: Saved.self, priority: 10) { _ in print("runs before default listeners") }
/// center.listen(to: Saved.self, priority: .low) { _ in print("runs last") }
/// ```
public struct Priority: Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The numeric level; larger values run earlier.
    public var value: Int

    /// Creates a priority from a number; larger values run earlier.
    @inlinable
    public init(_ value: Int) {
        self.value = value
    }

    public init(integerLiteral value: Int) {
        self.value = value
    }

    // Computed and inlinable rather than a stored `static let` (a lazily initialized global):
    // it is the default argument of every `listen` and is read on every registration.

    /// Priority 0, used when `listen` is called without `priority:`.
    @inlinable public static var `default`: Priority { Priority(0) }
    /// Priority 1,000: runs before listeners at the default level.
    public static let high = Priority(1_000)
    /// Priority -1,000: runs after listeners at the default level.
    public static let low = Priority(-1_000)

    public static func < (lhs: Priority, rhs: Priority) -> Bool {
        lhs.value < rhs.value
    }

    public var description: String { String(value) }
}
