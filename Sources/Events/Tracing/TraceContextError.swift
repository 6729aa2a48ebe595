/// Why a `traceparent` or `tracestate` value is not a valid W3C Trace Context.
///
/// ```swift
/// do {
///     _ = try TraceContext(traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01")
/// } catch {
///     print(error)   // Invalid traceparent "00-0000…": the trace id is all zero.
/// }
/// ```
public struct TraceContextError: Error, Hashable, CustomStringConvertible {
    /// Which of the two values is wrong.
    ///
    /// Compare fields with `==` or match them in a `switch`, which needs a `default`: the set of
    /// fields may grow with new releases of the specification.
    ///
    /// ```swift
    /// switch error.field {
    /// case .tracestate: context = try TraceContext(traceparent: traceparent)   // keep the trace
    /// default: context = nil
    /// }
    /// ```
    public struct Field: Hashable, Sendable, CustomStringConvertible {
        let name: String

        private init(name: String) {
            self.name = name
        }

        /// The `traceparent` value.
        public static let traceparent = Field(name: "traceparent")
        /// The `tracestate` value.
        public static let tracestate = Field(name: "tracestate")

        /// The field's name as the specification spells it: `"traceparent"` or `"tracestate"`.
        public var description: String { name }
    }

    /// Which of the two values is wrong.
    public let field: Field
    /// What is wrong with it, as a phrase: "the trace id is all zero".
    public let reason: String
    /// The value that was refused.
    public let value: String

    init(_ field: Field, _ reason: String, value: String) {
        self.field = field
        self.reason = reason
        self.value = value
    }

    /// One sentence naming the field, the value (its beginning, when it is long) and the reason.
    public var description: String {
        let shown = value.count > 80 ? String(value.prefix(80)) + "…" : value
        return "Invalid \(field) \"\(shown)\": \(reason)."
    }
}
