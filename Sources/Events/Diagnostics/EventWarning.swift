/// A warning from a center's diagnostics: something that works, but probably not as meant.
///
/// Warnings arrive at ``EventCenter/warningHandler`` while the matching check of
/// ``EventCenter/diagnostics`` is on. Read ``kind`` to tell them apart, and print the warning
/// itself for a one-line message that names the event and the code involved.
public struct EventWarning: Sendable, Hashable, CustomStringConvertible {
    /// What a warning is about.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An event was dispatched and no listener received it.
        case deadEvent
        /// A handler ran longer than ``EventDiagnostics/slowListenerThreshold``.
        case slowListener
        /// Listeners of one event piled up from one call site or one owner type.
        case likelyLeak
        /// A dispatch ran nested deeper than ``EventDiagnostics/nestingThreshold``.
        case deepNesting
    }

    public let kind: Kind
    /// The event: a type name, or a named event's name in quotes.
    public let event: String
    /// The code concerned: the `dispatch` call for dead events and deep nesting, the `listen`
    /// call for slow listeners and leaks (nil when the dispatch came from code whose call site
    /// is not known, such as the NotificationCenter bridge).
    public let callSite: CallSite?
    /// The owner type concerned, for a leak counted by owner type, or a slow owner-bound listener.
    public let ownerType: String?
    /// How long the handler ran (slow listeners), or how long a dead event had been held for
    /// its first listener (events dispatched with `holdingIfUnheard:` that expired or were
    /// dropped unheard).
    public let duration: Duration?
    /// The number the check counted: the listeners (leaks), the depth (nesting), or the dead
    /// dispatches since the last warning about this event, this one included (dead events).
    public let count: Int
    /// For a held event that went unheard: why it was let go.
    let heldOutcome: HeldOutcome?

    /// Why a held event was let go unheard.
    enum HeldOutcome: Sendable, Hashable {
        case expired
        /// More events of its type or name were held than the hold's limit.
        case droppedOverLimit(limit: Int)
    }

    init(
        _ kind: Kind, event: String, callSite: CallSite?, ownerType: String? = nil, duration: Duration? = nil,
        count: Int = 1, heldOutcome: HeldOutcome? = nil
    ) {
        self.kind = kind
        self.event = event
        self.callSite = callSite
        self.ownerType = ownerType
        self.duration = duration
        self.count = count
        self.heldOutcome = heldOutcome
    }

    public var description: String {
        let site = callSite.map { " at \($0)" } ?? ""
        switch (kind, heldOutcome) {
        case (.deadEvent, .expired?):
            let held = duration.map { " for \(Self.format($0))" } ?? ""
            return "\(event) was dispatched\(site) and held\(held), but no listener registered before it expired"
        case (.deadEvent, .droppedOverLimit(let limit)?):
            let held = duration.map { " for \(Self.format($0))" } ?? ""
            return "\(event) was dispatched\(site) and held\(held), but dropped unheard: more than \(limit) were held"
        case (.deadEvent, nil):
            let times = count == 1 ? "" : " (\(count) times since the last warning)"
            return "\(event) was dispatched\(site) but no listener received it\(times)"
        case (.slowListener, _):
            let owner = ownerType.map { " of \($0)" } ?? ""
            let took = duration.map { Self.format($0) } ?? "long"
            return "a listener\(owner) to \(event), registered\(site), took \(took)"
        case (.likelyLeak, _):
            let source = ownerType.map { "owned by \($0) objects" } ?? "registered\(site)"
            return
                "\(count) listeners to \(event) \(source): a likely leak (listeners added again and again, never removed)"
        case (.deepNesting, _):
            return "\(event) was dispatched\(site) \(count) dispatches deep: handlers dispatching from handlers"
        }
    }

    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        if milliseconds >= 1000 { return "\((milliseconds / 100).rounded() / 10) s" }
        if milliseconds >= 1 { return "\((milliseconds * 10).rounded() / 10) ms" }
        return "\((milliseconds * 10_000).rounded() / 10) µs"
    }
}
