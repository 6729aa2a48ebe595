import Foundation
import Synchronization

/// A thread-safe counter for handlers.
package final class Counter: Sendable {
    private let storage = Atomic<Int>(0)
    package init() {}
    package func increment(by amount: Int = 1) { storage.add(amount, ordering: .relaxed) }
    package var value: Int { storage.load(ordering: .relaxed) }
}

/// A thread-safe log of values, in arrival order.
package final class Log<Value: Sendable>: Sendable {
    // An NSLock (a pthread mutex, which the thread sanitizer sees), so that the tests' own
    // bookkeeping leans on nothing of the modules under test.
    private let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var items: [Value] = []

    package init() {}

    package func append(_ value: Value) { lock.withLock { items.append(value) } }
    package var values: [Value] { lock.withLock { items } }
    package var count: Int { lock.withLock { items.count } }
}
