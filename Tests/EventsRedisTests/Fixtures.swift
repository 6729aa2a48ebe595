import Events
import Synchronization

@testable import EventsRedis
@testable import EventsRedisClient

/// A thread-safe counter for handlers.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)
    func increment(by amount: Int = 1) { storage.add(amount, ordering: .relaxed) }
    var value: Int { storage.load(ordering: .relaxed) }
}
