import Events

extension TraceContext {
    /// The trace context of a received event's `traceparent` and `tracestate` attributes, as
    /// leniently as the W3C recommendation lets a receiver be: nil for an invalid `traceparent`
    /// (another SDK's mistake never costs the event), and an invalid `tracestate` left out.
    static func received(traceparent: String, tracestate: String?) -> TraceContext? {
        do {
            return try TraceContext(traceparent: traceparent, tracestate: tracestate)
        } catch  where error.field == .tracestate {
            return try? TraceContext(traceparent: traceparent)
        } catch {
            return nil
        }
    }
}
