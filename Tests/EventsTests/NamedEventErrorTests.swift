import Testing

@testable import Events

extension EventName {
    fileprivate static let edited: EventName = "test.edited"
}

extension PayloadKeys {
    fileprivate static let title = PayloadKey<String>("title")
}

/// What a named event's reader learns from the error: the problem to match on, and one sentence.
@Suite("NamedEventError")
struct NamedEventErrorTests {
    typealias Problem = NamedEventError.Problem

    @Test("every problem is distinct, and its description is its name")
    func problemsAreDistinct() {
        let problems: [Problem] = [.missing, .typeMismatch, .notBridged]
        #expect(Set(problems).count == 3)
        #expect(problems.map(\.description) == ["missing", "typeMismatch", "notBridged"])
        #expect(problems.map { "\($0)" } == ["missing", "typeMismatch", "notBridged"])
    }

    @Test("a read that fails says so in the same words, with the problem and the facts")
    func readsThrowTheirProblem() {
        let empty = NamedEvent(name: .edited)
        let noData = #expect(throws: NamedEventError.self) { _ = try empty.data(as: Int.self) }
        #expect(noData?.problem == .missing)
        #expect(noData?.description == #"Named event "test.edited" has no data (expected Int, found nothing)."#)
        let noValue = #expect(throws: NamedEventError.self) { _ = try empty[.title] }
        #expect(noValue?.problem == .missing)
        #expect(noValue?.key == "title")
        #expect(
            noValue?.description
                == #"Named event "test.edited" has no value for key "title" (expected String, found nothing)."#)

        let numbered = NamedEvent(name: .edited, data: 3, payload: Payload(PayloadKey<Int>("title"), 4))
        let wrongData = #expect(throws: NamedEventError.self) { _ = try numbered.data(as: String.self) }
        #expect(wrongData?.problem == .typeMismatch)
        #expect(wrongData?.expectedType == "String" && wrongData?.actualType == "Int")
        #expect(
            wrongData?.description
                == #"Named event "test.edited" has data of the wrong type (expected String, found Int)."#)
        let wrongValue = #expect(throws: NamedEventError.self) { _ = try numbered[.title] }
        #expect(wrongValue?.problem == .typeMismatch)
        #expect(
            wrongValue?.description
                == #"Named event "test.edited" has a value of the wrong type for key "title" (expected String, "#
                + "found Int).")
    }

    @Test("a value a bridge did not carry is told apart from one that is missing")
    func notBridgedIsItsOwnProblem() {
        let data = NamedEventError(
            eventName: .edited, key: nil, expectedType: Int.self, actualType: "NSObject", problem: .notBridged)
        #expect(data.problem == .notBridged && data.problem != .missing)
        #expect(
            data.description
                == #"Named event "test.edited" has no data (expected Int, found NSObject): the notification's "#
                + "object was not carried because its type is not known to be Sendable; forward the notification "
                + "as a typed event to carry it.")
        let value = NamedEventError(
            eventName: .edited, key: "title", expectedType: String.self, actualType: "NSObject", problem: .notBridged)
        #expect(
            value.description
                == #"Named event "test.edited" has no value for key "title" (expected String, found NSObject): "#
                + "the notification's value was not carried because its type is not known to be Sendable; if it "
                + #"is, list a PayloadKey for "title" in the bridge's keys."#)
    }

    /// Compiles only if a `switch` over problems can end in `default`.
    static func fallback(for error: NamedEventError) -> String? {
        switch error.problem {
        case .missing: "default title"
        case .typeMismatch: nil
        default: nil
        }
    }

    @Test("a switch over the problem needs only a default")
    func switchingOverProblems() {
        let empty = NamedEvent(name: .edited)
        let error = #expect(throws: NamedEventError.self) { _ = try empty[.title] }
        #expect(error.flatMap(Self.fallback) == "default title")
        let numbered = NamedEvent(name: .edited, payload: Payload(PayloadKey<Int>("title"), 4))
        let mismatch = #expect(throws: NamedEventError.self) { _ = try numbered[.title] }
        #expect(mismatch != nil && mismatch.flatMap(Self.fallback) == nil)
    }
}
