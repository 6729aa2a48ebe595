/// The clock of a timed ``Coalescing`` mode with its type erased: instants become durations
/// since the moment the mode was made, so the coalescer needs no generic parameter.
struct CoalescingClock: Sendable {
    /// The time elapsed since the clock was wrapped.
    let now: @Sendable () -> Duration
    /// Sleeps until `now()` reaches the given value; throws when the task is cancelled.
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock<Duration>>(_ clock: C) {
        let start = clock.now
        now = { start.duration(to: clock.now) }
        sleep = { elapsed in try await clock.sleep(until: start.advanced(by: elapsed), tolerance: nil) }
    }
}
