/// What a center watches for while an app runs: the options behind
/// ``EventCenter/diagnostics``.
///
/// Everything is off by default, and a center with diagnostics off dispatches exactly as fast
/// as one without them. Turn them on in debug builds and tests:
///
/// ```swift
/// #if DEBUG
/// center.diagnostics = .development
/// #endif
/// center.warningHandler = { warning in print("events:", warning) }
/// ```
///
/// Warnings go to ``EventCenter/warningHandler``; counts show in
/// ``EventCenter/registrations()``; the recorded flow in ``EventCenter/topology()``.
public struct EventDiagnostics: Sendable, Hashable {
    /// Count the events each listener receives, shown as ``EventRegistrations/Listener/received``.
    public var countsDeliveries: Bool

    /// Record who dispatches what and who receives it, for ``EventCenter/topology()``.
    public var recordsTopology: Bool

    /// Warn about events dispatched while no listener received them, at most once per event
    /// type or name in each interval (later ones are counted and reported with the next
    /// warning); nil for no warning.
    public var deadEventInterval: Duration?

    /// Warn about a handler that runs longer than this; nil for no warning. Checked where
    /// ``slowListenerScope`` says.
    public var slowListenerThreshold: Duration?

    /// Which handlers the slow-listener warning times.
    public var slowListenerScope: SlowListenerScope

    /// Warn when one event has more than this many live listeners registered from one call
    /// site, or owned by objects of one type: the usual sign of a listener registered again
    /// and again, as a view appears, without being removed. Nil for no warning.
    ///
    /// The rule, for each call site and each owner type of each event: the first warning comes
    /// when the count of live listeners first exceeds the threshold, at `threshold + 1`; the
    /// next ones each time the count doubles again from there, at `2 × (threshold + 1)`,
    /// `4 × (threshold + 1)`, and so on. With a threshold of 3 the warnings come at 4, 8, 16, 32
    /// listeners; with 10, at 11, 22, 44, 88. The count is checked as a listener registers, and
    /// each level warns once: a count that falls and rises again does not repeat a warning, and
    /// one that passed several levels between two checks warns once, for the highest.
    ///
    /// ```swift
    /// center.diagnostics.leakThreshold = 10
    /// // The 11th live listener to one event from one line warns; the 22nd warns again.
    /// ```
    public var leakThreshold: Int?

    /// Warn when a dispatch happens inside more than this many dispatches already running on
    /// its thread (handlers that dispatch, whose listeners dispatch...); nil for no warning.
    public var nestingThreshold: Int?

    /// Which handlers ``slowListenerThreshold`` applies to.
    public enum SlowListenerScope: Sendable, Hashable {
        /// Handlers that run on the main actor, where a slow one freezes the interface.
        case mainActor
        /// Every handler, in every context.
        case everyContext
    }

    /// Options with every check chosen one by one; the defaults are off.
    public init(
        countsDeliveries: Bool = false, recordsTopology: Bool = false, deadEventInterval: Duration? = nil,
        slowListenerThreshold: Duration? = nil, slowListenerScope: SlowListenerScope = .mainActor,
        leakThreshold: Int? = nil, nestingThreshold: Int? = nil
    ) {
        self.countsDeliveries = countsDeliveries
        self.recordsTopology = recordsTopology
        self.deadEventInterval = deadEventInterval
        self.slowListenerThreshold = slowListenerThreshold
        self.slowListenerScope = slowListenerScope
        self.leakThreshold = leakThreshold
        self.nestingThreshold = nestingThreshold
    }

    /// Nothing watched: the default.
    public static var off: EventDiagnostics { EventDiagnostics() }

    /// Everything on, with thresholds that suit development: counts and topology recorded,
    /// dead events warned once a minute per event, main-actor handlers over 16 ms (a frame at
    /// 60 Hz), more than 10 listeners from one place, nesting deeper than 8.
    public static var development: EventDiagnostics {
        EventDiagnostics(
            countsDeliveries: true, recordsTopology: true, deadEventInterval: .seconds(60),
            slowListenerThreshold: .milliseconds(16), slowListenerScope: .mainActor, leakThreshold: 10,
            nestingThreshold: 8)
    }

    /// Whether any check is on, so that dispatch takes the observed path.
    var isActive: Bool { self != .off }
}
