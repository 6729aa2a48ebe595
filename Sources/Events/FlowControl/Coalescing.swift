/// How a listener in another delivery context merges a burst of events into fewer deliveries.
///
/// Pass it as `coalescing:` when registering a listener that runs in another context (a queue,
/// the main actor, an actor). The listener then receives only some events of a burst, always
/// the newest of those dispatched so far, with its sender:
///
/// ```swift
/// let refresh = center.listen(to: CartChanged.self, on: .main, coalescing: .mainActorTurn) { _ in
///     badge.reload()   // once per main-actor turn, however many changes it held
/// }
/// ```
///
/// Modes:
/// - ``latest``: while an event waits for its turn in the listener's context, a newer one
///   replaces it. A listener that keeps up receives every event; one that lags receives the
///   newest.
/// - ``mainActorTurn``: the events dispatched during one turn of the main actor arrive once, the
///   newest, after that turn. Made for UI refresh.
/// - ``once(per:clock:)``: a throttle. The first event of a burst is delivered at once; later
///   events within the interval merge into the newest, delivered when the interval ends.
/// - ``debounce(for:clock:)``: the newest event is delivered once a quiet period has passed with
///   no newer event.
///
/// Rules, for every mode:
/// - Order: a delivery is always the newest event dispatched before it ran, and a listener never
///   receives an older event after a newer one.
/// - Lifetime: after `cancel()` or `remove` returns, or once the owner is gone, no pending event
///   is delivered; a pending timer is cancelled, and a coalesced listener holds its owner weakly,
///   as every listener does. A waiting event holds its sender, as a queued delivery does.
/// - `once: true`: the first event dispatched ends the listener, as without coalescing. It is
///   delivered when the mode says (at once for ``latest`` and ``once(per:clock:)``, after the
///   turn for ``mainActorTurn``, after the quiet period for ``debounce(for:clock:)``); later
///   events are not heard, so there is nothing to merge.
/// - ``EventCenter/idle(isolation:)`` waits for a coalesced event once its delivery has been
///   handed to the listener's context, never for a timer: an event held by
///   ``once(per:clock:)`` or ``debounce(for:clock:)`` until its interval ends does not keep
///   `idle()` waiting (advance the clock, or let the interval pass, then call `idle()`).
///   ``mainActorTurn`` events are waited for, since the main actor's turn is no timer.
/// - ``EventCenter/dispatchAndWait(_:from:isolation:)`` waits until its event was delivered or
///   replaced by a newer one; a replaced event was not received, so ``DispatchReport/received``
///   does not count it. Under a timer mode it may wait as long as the interval.
/// - A coalesced listener needs a context: registering one with `on: .postingThread` (the
///   default of the `Delivery` forms) stops the program with a precondition failure.
///
/// See <doc:CoalescingAndDebouncing> for when to use which mode.
public struct Coalescing: Sendable {
    enum Mode: Sendable {
        case latest
        case mainActorTurn
        case throttle(Duration, CoalescingClock)
        case debounce(Duration, CoalescingClock)
    }

    let mode: Mode

    private init(_ mode: Mode) {
        self.mode = mode
    }

    /// While an event waits to be delivered in the listener's context, a newer one replaces it:
    /// the newest wins, with its sender.
    ///
    /// ```swift
    /// center.listen(to: ProgressChanged.self, on: .queue(renderQueue), coalescing: .latest) { progress in
    ///     render(progress.fraction)   // a busy render queue skips the frames it could not draw
    /// }
    /// ```
    ///
    /// Nothing is delayed: a listener whose context keeps up receives every event. A `.main`
    /// listener dispatched to on the main thread, with nothing waiting, still runs inline inside
    /// `dispatch`, as ``MainActorDelivery/main`` says.
    public static var latest: Coalescing { Coalescing(.latest) }

    /// The events dispatched during one turn of the main actor are delivered once, the newest,
    /// after that turn: for UI refresh.
    ///
    /// ```swift
    /// center.listen(to: CartChanged.self, owner: self, on: .main, coalescing: .mainActorTurn) { view, _ in
    ///     view.reloadBadge()   // ten changes in one turn: one reload
    /// }
    /// ```
    ///
    /// For a main-actor listener the delivery is always enqueued to the main actor, never run
    /// inline inside `dispatch`, even with `on: .main`. For a listener in another context (a
    /// queue, an actor), the delivery waits for the main actor's next turn, then is handed to
    /// the listener's own context; events dispatched until it runs there merge into it too.
    public static var mainActorTurn: Coalescing { Coalescing(.mainActorTurn) }

    /// A throttle: the first event of a burst is delivered at once; later events within
    /// `interval` merge into the newest, delivered when the interval ends, which starts a new
    /// interval.
    ///
    /// ```swift
    /// center.listen(to: ScrollMoved.self, on: .background, coalescing: .once(per: .milliseconds(100))) { move in
    ///     prefetch(around: move.offset)   // at most once per 100 ms, always the newest offset
    /// }
    /// ```
    ///
    /// An interval that ends with no event waiting starts none: the next event is delivered at
    /// once. A negative interval counts as zero.
    ///
    /// - Parameters:
    ///   - interval: The shortest time between two deliveries' hand-overs to the context.
    ///   - clock: Measures the interval. Pass a clock the test advances (`TestClock` of
    ///     `EventsTesting`) to test without waiting.
    public static func once(
        per interval: Duration, clock: some Clock<Duration> = ContinuousClock()
    ) -> Coalescing {
        Coalescing(.throttle(max(interval, .zero), CoalescingClock(clock)))
    }

    /// The newest event is delivered once `quietPeriod` has passed with no newer event; each new
    /// event restarts the wait.
    ///
    /// ```swift
    /// center.listen(to: SearchTextChanged.self, on: .background, coalescing: .debounce(for: .milliseconds(300))) {
    ///     changed in
    ///     search(changed.text)   // once the user pauses typing
    /// }
    /// ```
    ///
    /// A negative period counts as zero.
    ///
    /// - Parameters:
    ///   - quietPeriod: How long no newer event must arrive before the newest is delivered.
    ///   - clock: Measures the period. Pass a clock the test advances (`TestClock` of
    ///     `EventsTesting`) to test without waiting.
    public static func debounce(
        for quietPeriod: Duration, clock: some Clock<Duration> = ContinuousClock()
    ) -> Coalescing {
        Coalescing(.debounce(max(quietPeriod, .zero), CoalescingClock(clock)))
    }
}
