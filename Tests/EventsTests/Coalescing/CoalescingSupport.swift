import Dispatch
import Foundation

@testable import Events

/// An event that carries an object, to show when a pending event has been let go.
struct Carried: Event {
    let n: Int
    let payload: Probe
}

/// A private serial queue held shut until `open()`, so that a burst queues behind it.
final class ShutQueue: Sendable {
    let queue = DispatchQueue(label: "coalescing.shut")
    private let gate = DispatchSemaphore(value: 0)

    init() {
        let gate = self.gate
        queue.async { gate.wait() }
    }

    func open() { gate.signal() }
}

/// Holds an object weakly, to check that it was released.
final class WeakBox<T: AnyObject>: @unchecked Sendable {
    // Why @unchecked is safe: written once in init, then only read.
    weak var object: T?
    init(_ object: T) { self.object = object }
}

/// An actor that records what it hears.
actor CoalescedTally {
    var heard: [Int] = []
    func add(_ n: Int) { heard.append(n) }
}
