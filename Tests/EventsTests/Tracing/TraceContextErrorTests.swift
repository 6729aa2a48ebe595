import Testing

@testable import Events

/// What a refused `traceparent` or `tracestate` says: the field to match on, and one sentence.
@Suite("TraceContextError")
struct TraceContextErrorTests {
    typealias Field = TraceContextError.Field

    @Test("the two fields are distinct and print as the specification names them")
    func fieldsAreDistinct() {
        #expect(Field.traceparent != Field.tracestate)
        #expect(Set([Field.traceparent, .tracestate]).count == 2)
        #expect(Field.traceparent.description == "traceparent")
        #expect("\(Field.tracestate)" == "tracestate")
    }

    @Test("a refusal names its field, the value and the reason in the same words")
    func descriptions() {
        let zero = "00-00000000000000000000000000000000-00f067aa0ba902b7-01"
        let parent = #expect(throws: TraceContextError.self) { try TraceContext(traceparent: zero) }
        #expect(parent?.field == .traceparent)
        #expect(parent?.value == zero)
        #expect(parent?.description == #"Invalid traceparent "\#(zero)": the trace id is all zero."#)

        let members = String(repeating: "a=1,", count: 30)
        let state = TraceContextError(.tracestate, "it has more than 32 members", value: members)
        #expect(state.field == .tracestate && state.reason == "it has more than 32 members")
        #expect(
            state.description
                == #"Invalid tracestate "a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,a=1,"#
                + #"a=1,a=1,…": it has more than 32 members."#)
    }

    /// Compiles only if a `switch` over fields can end in `default`.
    static func keepsTheTrace(_ error: TraceContextError) -> Bool {
        switch error.field {
        case .tracestate: true
        default: false
        }
    }

    @Test("a switch over the field needs only a default")
    func switchingOverFields() {
        #expect(Self.keepsTheTrace(TraceContextError(.tracestate, "bad", value: "x")))
        #expect(!Self.keepsTheTrace(TraceContextError(.traceparent, "bad", value: "x")))
    }
}
