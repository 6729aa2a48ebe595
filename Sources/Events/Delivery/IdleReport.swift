/// What a center's ``EventCenter/idle(isolation:)`` is still waiting for: the listeners with
/// deliveries queued in their context and not run yet, and the streams holding events their
/// consumer has not taken. ``EventCenter/idle(reportingAfter:isolation:_:)`` hands it over when
/// the wait takes long.
///
/// Print it for one line per listener:
///
/// ```swift
/// await center.idle(reportingAfter: .seconds(5)) { report in print(report) }
/// // idle() is waiting for 2 listeners:
/// // - stream of Tick made at App/Feed.swift:12: 1 event not taken
/// // - listener to Saved on queue com.app.db, registered at App/Store.swift:40: 3 deliveries not run
/// ```
///
/// A stream keeps `idle()` waiting while it holds an event that its consumer has not taken
/// (a consumer that stopped iterating, or never began), and a listener while its context has
/// not run its deliveries (a suspended queue, a blocked main thread, a busy actor). A listener
/// cancelled or removed while deliveries were queued for it is listed until they have been
/// skipped in its context; a stream whose listener was removed, until its consumer has taken
/// what it held or the stream was let go.
public struct IdleReport: Sendable, Hashable, CustomStringConvertible {
    /// A listener with deliveries not run, or a stream with events not taken.
    public struct Listener: Sendable, Hashable, CustomStringConvertible {
        /// The event: a type name, a named event's name in quotes, or "every named event".
        public let event: String
        /// Where its deliveries wait: "stream" for a stream (`events(of:)`, `events(named:)`),
        /// otherwise the context its handler runs in, named as in ``EventRegistrations``:
        /// "background queue", "queue com.app.db", "main actor", "actor Store", ...
        public let context: String
        /// Where the listener was registered: the `listen` or `events` call.
        public let callSite: CallSite
        /// How many deliveries are queued and not run (the one running, if any, included), or
        /// how many events the stream holds.
        public let pending: Int
        /// Whether this is a stream holding events its consumer has not taken.
        public let isStream: Bool

        public var description: String {
            if isStream {
                let events = pending == 1 ? "event" : "events"
                return "stream of \(event) made at \(callSite): \(pending) \(events) not taken"
            }
            let deliveries = pending == 1 ? "delivery" : "deliveries"
            return "listener to \(event) on \(context), registered at \(callSite): \(pending) \(deliveries) not run"
        }

        init(event: String, context: String?, callSite: CallSite, pending: Int) {
            self.event = event
            self.context = context ?? "stream"
            self.callSite = callSite
            self.pending = pending
            self.isStream = context == nil
        }
    }

    /// The listeners and streams still pending, sorted by event, then by where they were
    /// registered.
    public let listeners: [Listener]

    /// Whether nothing is pending.
    public var isEmpty: Bool { listeners.isEmpty }

    public var description: String {
        guard !listeners.isEmpty else { return "idle() is waiting for nothing" }
        let count = listeners.count == 1 ? "1 listener" : "\(listeners.count) listeners"
        return (["idle() is waiting for \(count):"] + listeners.map { "- \($0)" }).joined(separator: "\n")
    }

    init(listeners: [Listener]) {
        self.listeners = listeners.sorted {
            ($0.event, $0.callSite.fileID, $0.callSite.line) < ($1.event, $1.callSite.fileID, $1.callSite.line)
        }
    }
}

/// What a pending delivery or a stream says about its listener in an ``IdleReport``: kept as
/// values that name themselves only when a report is made.
struct PendingLabel: Sendable {
    let event: EventIdentity
    /// Nil for a stream.
    let context: ListenerContext?
    let callSite: CallSite

    /// The label of a listener served by a mailbox.
    init(_ listener: ListenerRecord) {
        event = EventIdentity(of: listener)
        context = listener.context
        callSite = listener.callSite
    }

    /// The label of a stream of the list `eventKey`, whose events are `E`s.
    init<E>(streamOf type: E.Type, eventKey: EventKey, callSite: CallSite) {
        switch eventKey {
        case .type: event = .type(TypeIdentity(type))
        case .name(let name): event = .name(name)
        case .anyName: event = .anyName
        }
        context = nil
        self.callSite = callSite
    }

    func listener(pending: Int) -> IdleReport.Listener {
        IdleReport.Listener(
            event: event.description, context: context?.description, callSite: callSite, pending: pending)
    }
}
