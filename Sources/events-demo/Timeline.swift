import Synchronization

/// Prints numbered, indented steps so that each scenario reads as a timeline.
final class Timeline: Sendable {
    private let step = Atomic<Int>(0)
    let title: String

    init(_ title: String) {
        self.title = title
        print("\n== \(title) ==")
    }

    /// A numbered action of the scenario.
    func action(_ text: String) {
        let number = step.wrappingAdd(1, ordering: .relaxed).newValue
        print("[\(number)] \(text)")
    }

    /// A reaction to the last action (a listener running, a result).
    func reaction(_ text: String) {
        print("      -> \(text)")
    }
}
