import Foundation
import Synchronization

// The lock for critical sections of a few instructions that are almost never contended: the
// read stripes (a stripe belongs to one dispatching thread, and writers take it briefly), the
// registry's table (held for one table operation; dispatch reads through the stripes) and the
// stream buffer (its producer and consumer each take it briefly). These are on the dispatch
// path, so an uncontended acquire and release must cost as little as possible.
//
// Same rule as `Lock`: never run user code while holding it.

/// A test-and-set lock on an `Atomic`, the same on every platform, which the thread sanitizer
/// understands: an uncontended acquire is one atomic exchange, where a pthread mutex costs a
/// library call.
///
/// A waiter first yields the processor rather than spinning hot, and after a bounded number of
/// yields sleeps briefly between looks. The sleep matters where the scheduler runs threads by
/// priority (the quality-of-service classes of Apple platforms): a high-priority waiter that
/// only yielded could keep a lower-priority owner from running, and so from releasing; a
/// sleeping one cannot. Held sections are a few instructions long, so a waiter almost never
/// gets past its first yield.
final class SpinLock: Sendable {
    // Padding on both sides keeps `held` on a cache line of its own: the stripes' locks are
    // written by different threads, and sharing a line would bring back the contention they
    // exist to avoid.
    private let paddingBefore: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0)
    private let held = Atomic<Bool>(false)
    private let paddingAfter: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0)

    /// How many times a waiter yields before it starts to sleep between looks.
    private static let yieldsBeforeSleeping = 64

    @inline(__always)
    func lock() {
        while held.exchange(true, ordering: .acquiring) {
            waitForRelease()
        }
    }

    /// Waits, without writing, until the lock looks free. Out of line: the uncontended path
    /// stays one exchange.
    @inline(never)
    private func waitForRelease() {
        var yields = 0
        while held.load(ordering: .relaxed) {
            if yields < Self.yieldsBeforeSleeping {
                yields += 1
                sched_yield()
            } else {
                usleep(50)
            }
        }
    }

    @inline(__always)
    func unlock() {
        held.store(false, ordering: .releasing)
    }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
