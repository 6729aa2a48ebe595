import Dispatch
import Synchronization

/// Polls `condition` every few milliseconds until it holds or `timeout` passes; returns whether
/// it held. For waiting on another process (a server state) where no event can be awaited.
///
/// The default timeout only bounds how long a failing test waits: a passing one returns as soon
/// as the condition holds. It is generous because what these tests assert is what arrives, never
/// how fast: the sanitizer runs on 2 cores slow the bridge's tasks tenfold and more, and in a full
/// parallel run, where the model tests keep every core busy, a burst that takes under a second
/// alone once took longer than 15 s, every event arriving once and in order.
package func eventually(
    timeout: Duration = .seconds(60), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}

/// Waits `duration`, so that the checks after it can show that something did not happen: no
/// event arrived, none came twice, a flush did not finish.
///
/// A fixed wait is the only way to show an absence: what must never happen gives nothing to
/// await, and a wait for it can only end at a deadline. Use it for that alone; to wait for
/// something that must happen use `eventually`, which returns as soon as it does. Await first
/// whatever marks the window (a statistic that counts the event skipped, a flush begun), so that
/// the wait covers the moment the unwanted thing would have come.
package func waitToShowNothingArrives(for duration: Duration = .milliseconds(300)) async {
    try? await Task.sleep(for: duration)
}

/// A gate a handler on another thread stops at until the test opens it, so that a test can act
/// (kill a server, cancel a task) at a known step of the other thread's work. Once open, it
/// lets every later arrival through. Made for one thread stopping at it, and that thread must
/// not be one of the concurrency pool's (two here): run the handler that stops on a queue.
package final class Gate: Sendable {
    private let opened = Atomic<Bool>(false)
    private let arrivals = Atomic<Int>(0)
    private let release = DispatchSemaphore(value: 0)

    package init() {}

    /// Blocks the calling thread until `open()`, unless the gate is open already.
    package func pass() {
        arrivals.add(1, ordering: .sequentiallyConsistent)
        guard !opened.load(ordering: .sequentiallyConsistent) else { return }
        release.wait()
    }

    /// Whether a thread has reached the gate.
    package var isReached: Bool { arrivals.load(ordering: .sequentiallyConsistent) > 0 }

    /// Lets the thread waiting at the gate, and every later one, through.
    package func open() {
        guard !opened.exchange(true, ordering: .sequentiallyConsistent) else { return }
        release.signal()
    }
}

/// Lets other tests' tasks run every `every` iterations of a long CPU-bound loop.
///
/// Swift Testing runs tests in parallel on the cooperative pool, one thread per core (2 here). A
/// fuzz loop that never suspends holds a pool thread for its whole run; two of them starved every
/// Redis test for 10 s and more under the thread sanitizer, long enough for waits with a deadline
/// to expire before the bridge's own tasks could run.
package func yieldNow(every: Int, at iteration: Int) async {
    if iteration % every == every - 1 { await Task.yield() }
}
