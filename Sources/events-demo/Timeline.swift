import Synchronization

/// Prints numbered steps with indented lines below them, so each scene reads as a timeline.
final class Timeline: Sendable {
    private let steps = Atomic<Int>(0)

    init(_ title: String) {
        print("\n== \(title) ==")
    }

    /// A numbered action of the scene.
    func step(_ text: String) {
        let number = steps.wrappingAdd(1, ordering: .relaxed).newValue
        print("\n[\(number)] \(text)")
    }

    /// A result or reaction that follows the last step.
    func note(_ text: String) {
        print("    \(text)")
    }

    /// A listener or delegate reacting: who, and what it did.
    func call(_ who: String, _ text: String) {
        print("      → \(who): \(text)")
    }
}
