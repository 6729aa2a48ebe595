/// A ready-made ``EventTracer`` that writes a compact timeline, one line per dispatch and per
/// queued delivery, indented by nesting:
///
/// ```
/// +0.000 ms #1 PostWritten from FeedController (App/Feed.swift:20): 2 of 2 received, 0.041 ms
///             App/Log.swift:9 on posting thread: ran 0.012 ms
///             FeedViewModel on main actor: queued
/// +0.180 ms #1 → FeedViewModel on main actor: ran 0.020 ms, waited 0.139 ms
/// ```
///
/// ```swift
/// center.tracer = TimelineTracer()                                  // standard output
/// center.tracer = TimelineTracer(listeners: false) { log.debug($0) }   // dispatches only
/// ```
public final class TimelineTracer: EventTracer {
    private let write: @Sendable (String) -> Void
    private let showsListeners: Bool
    private let origin: ContinuousClock.Instant

    /// A tracer that hands each line to `write` (by default, prints it). Times are measured from
    /// the tracer's creation. With `listeners: false`, a dispatch is one line, without a line
    /// per listener.
    public init(listeners: Bool = true, write: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.write = write
        self.showsListeners = listeners
        self.origin = .now
    }

    public func didDispatch(_ trace: DispatchTrace) {
        let indent = String(repeating: "  ", count: trace.depth)
        var head = "\(offset(trace.start)) \(indent)#\(trace.id) \(trace.eventDescription)"
        if let sender = trace.senderType { head += " from \(sender)" }
        if let site = trace.callSite { head += " (\(site))" }
        if let parent = trace.parent { head += " in #\(parent)" }
        head += ": \(trace.received) of \(trace.listeners.count) received, \(EventWarning.format(trace.duration))"
        if let stopper = trace.stoppedBy {
            head += ", stopped by \(stopper.ownerType ?? stopper.callSite.description)"
        }
        var lines = [head]
        if showsListeners {
            let pad = String(repeating: " ", count: offset(trace.start).count + 1) + indent + "  "
            for listener in trace.listeners {
                let who = listener.ownerType ?? listener.callSite.description
                let what: String
                switch listener.outcome {
                case .ran: what = "ran \(EventWarning.format(listener.duration))"
                case .failed: what = "threw after \(EventWarning.format(listener.duration))"
                case .queued: what = "queued"
                case .skipped: what = "skipped"
                }
                lines.append("\(pad)\(who) on \(listener.context): \(what)")
            }
        }
        write(lines.joined(separator: "\n"))
    }

    public func didRunQueuedDelivery(_ trace: DeliveryTrace) {
        let who = trace.ownerType ?? trace.callSite.description
        let what =
            !trace.ran
            ? "skipped (ended before its turn)"
            : "\(trace.failed ? "threw after" : "ran") \(EventWarning.format(trace.duration)), waited \(EventWarning.format(trace.waited))"
        write("\(offset(.now - trace.duration)) #\(trace.dispatchID) → \(who) on \(trace.context): \(what)")
    }

    private func offset(_ instant: ContinuousClock.Instant) -> String {
        let elapsed = instant - origin
        let (seconds, attoseconds) = elapsed.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        let rounded = (milliseconds * 1000).rounded() / 1000
        return "+\(rounded) ms"
    }
}
