import Testing
@testable import Events
@Test func lockRuns() { let lock = Lock(); #expect(lock.withLock { 1 } == 1) }
