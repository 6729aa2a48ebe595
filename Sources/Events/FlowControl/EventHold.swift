/// How long, and how many, events dispatched while nobody listens are held for the first
/// listener that registers.
///
/// ```swift
/// struct SessionExpired: Event {}
///
/// let app = EventCenter()
/// // Dispatched during launch, before the login screen listens: held for it, up to 30 s.
/// app.dispatch(SessionExpired(), holdingIfUnheard: .for(.seconds(30)))
/// let login = app.listen(to: SessionExpired.self) { _ in print("show login") }   // receives it now
/// ```
///
/// ## Rules
/// - An event is held only when no listener received it. It is delivered once, to the first
///   listener of its type or name that registers and would receive it (its sender filter
///   matches), in that listener's own context, before any newer event; then it is dropped. It
///   is never replayed to later listeners (for that, keep a current value: ``CurrentValueScope``).
/// - Held events of one type or name reach their listener in the order they were dispatched.
/// - At most ``limit`` events of one type or name are held; holding one more drops the oldest.
///   An event that expires or is dropped unheard is reported to ``EventCenter/warningHandler``
///   as an ``EventWarning/Kind-swift.enum/deadEvent`` whose `duration` is how long it was held.
public struct EventHold: Sendable {
    /// How long an event is held before it expires unheard.
    public let duration: Duration
    /// The most events of one type or name held at once.
    public let limit: Int
    let sleep: @Sendable () async throws -> Void
    /// Starts measuring, on the hold's clock, how long an event has been held.
    let startTimer: @Sendable () -> @Sendable () -> Duration

    /// Holds events for `duration`, measured on `clock`, at most `limit` of one type or name.
    ///
    /// - Parameters:
    ///   - duration: How long an unheard event waits for a listener.
    ///   - limit: The most events of one type or name held at once; at least 1.
    ///   - clock: The clock that measures `duration`; a test can pass a clock it advances itself.
    public static func `for`(
        _ duration: Duration, limit: Int = 16, clock: some Clock<Duration> = ContinuousClock()
    ) -> EventHold {
        EventHold(duration: duration, limit: max(1, limit)) {
            try await clock.sleep(for: duration)
        } startTimer: {
            let start = clock.now
            return { start.duration(to: clock.now) }
        }
    }
}
