/// Polls `condition` every few milliseconds until it holds or `timeout` passes; returns whether
/// it held. For waiting on another process (a server state) where no event can be awaited.
///
/// The default timeout only bounds how long a failing test waits: a passing one returns as soon
/// as the condition holds. It is generous because the sanitizer runs on 2 cores slow the bridge's
/// tasks tenfold and more, and 5 s ran out there on a loaded machine.
func eventually(
    timeout: Duration = .seconds(15), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}

/// Lets other tests' tasks run every `every` iterations of a long CPU-bound loop.
///
/// Swift Testing runs tests in parallel on the cooperative pool, one thread per core (2 here). A
/// fuzz loop that never suspends holds a pool thread for its whole run; two of them starved every
/// Redis test for 10 s and more under the thread sanitizer, long enough for waits with a deadline
/// to expire before the bridge's own tasks could run.
func yieldNow(every: Int, at iteration: Int) async {
    if iteration % every == every - 1 { await Task.yield() }
}
