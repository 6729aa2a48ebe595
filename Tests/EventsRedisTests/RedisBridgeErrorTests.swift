import Testing

@testable import EventsRedis

/// The bridge's error as users read it: a code to match on, the facts as properties, and the
/// same one-line description whatever the code.
@Suite("RedisBridgeError")
struct RedisBridgeErrorTests {
    typealias Code = RedisBridgeError.Code

    /// One error of every code, with its code and its description word for word.
    static let samples: [(error: RedisBridgeError, code: Code, description: String)] = [
        (
            .invalidMessage(CloudEventError("no \"id\""), key: "events:orders"), .invalidMessage,
            #"Redis bridge: skipped a message on events:orders: invalid CloudEvent: no "id""#
        ),
        (
            .unknownType("com.unknown", id: "e-1", source: "shop/api-1"), .unknownType,
            #"Redis bridge: skipped event e-1 from shop/api-1: this bridge does not carry type "com.unknown""#
        ),
        (
            .undecodableData(type: "com.example.order", id: "e-2", source: "shop/api-2", reason: "missing orderID"),
            .undecodableData,
            #"Redis bridge: skipped event e-2 from shop/api-2: its data does not decode as "com.example.order": "#
                + "missing orderID"
        ),
        (
            .cannotEncode(type: "com.example.order", reason: "a Double is NaN"), .cannotEncode,
            #"Redis bridge: could not encode a "com.example.order" event, it was not published: a Double is NaN"#
        ),
        (
            .publishBufferFull(type: "com.example.order", id: "e-3", capacity: 1000), .publishBufferFull,
            #"Redis bridge: publish buffer full (1000 events waiting for Redis); "com.example.order" event e-3 "#
                + "was not published"
        ),
        (
            .pubSubEventLost(type: "com.example.ping", id: "e-4", cause: .connectionClosed), .pubSubEventLost,
            #"Redis bridge: Pub/Sub event e-4 ("com.example.ping") may not have been published (the connection "#
                + "failed before Redis confirmed it), and is not retried: The Redis connection was closed or broke; "
                + "replies in flight were lost. The next command reconnects."
        ),
        (
            .pubSubEventLost(type: "com.example.ping", id: "e-5", cause: .server("ERR no")), .pubSubEventLost,
            #"Redis bridge: Pub/Sub event e-5 ("com.example.ping") was not published: Redis error reply: ERR no"#
        ),
        (
            .redis(.timedOut("reply")), .redis,
            "Redis bridge: Redis reply timed out; the connection was closed. For blocking commands pass a longer "
                + "timeout.; retrying"
        ),
        (
            .consumerGroupLost(stream: "events:orders", group: "workers"), .consumerGroupLost,
            #"Redis bridge: consumer group "workers" of stream events:orders was gone (Redis lost its data, or "#
                + "the group was deleted) and was created again from the stream's start; entries written before "
                + "that and not yet read by the group were lost"
        ),
        (
            .stoppedWithUnpublishedEvents(3), .stoppedWithUnpublishedEvents,
            "Redis bridge: stopped with 3 events not yet acknowledged by Redis; they were not published"
        ),
        (
            .duplicateWireName("com.example.order"), .duplicateWireName,
            #"Redis bridge: two event types use the wire name "com.example.order""#
        ),
        (.alreadyStarted, .alreadyStarted, "Redis bridge: carry(...) must be called before start()"),
        (
            .invalidConfiguration("source is empty"), .invalidConfiguration,
            "Redis bridge: invalid configuration: source is empty"
        ),
        (
            .startFailed(.connectFailed(host: "127.0.0.1", port: 6379, reason: "refused")), .startFailed,
            "Redis bridge: could not start: Could not connect to Redis at 127.0.0.1:6379: refused. Check that the "
                + "server runs and the address is right. Nothing is received until start() succeeds, and outgoing "
                + "events wait in the publish buffer: call start() again."
        ),
    ]

    @Test("every code is distinct, and its description is its name")
    func codesAreDistinct() {
        let codes: [Code] = [
            .invalidMessage, .unknownType, .undecodableData, .cannotEncode, .publishBufferFull, .pubSubEventLost,
            .redis, .consumerGroupLost, .stoppedWithUnpublishedEvents, .duplicateWireName, .alreadyStarted,
            .invalidConfiguration, .startFailed,
        ]
        #expect(Set(codes).count == codes.count)
        #expect(
            codes.map(\.description) == [
                "invalidMessage", "unknownType", "undecodableData", "cannotEncode", "publishBufferFull",
                "pubSubEventLost", "redis", "consumerGroupLost", "stoppedWithUnpublishedEvents", "duplicateWireName",
                "alreadyStarted", "invalidConfiguration", "startFailed",
            ])
        #expect(Set(Self.samples.map(\.code)) == Set(codes), "a sample of every code")
    }

    @Test("each error has the code of the member that made it", arguments: RedisBridgeErrorTests.samples.indices)
    func errorsHaveTheirCode(index: Int) {
        let sample = Self.samples[index]
        #expect(sample.error.code == sample.code)
        #expect(sample.code ~= sample.error)
    }

    @Test(
        "each error's description is word for word what it always said",
        arguments: RedisBridgeErrorTests.samples.indices)
    func descriptionsAreUnchanged(index: Int) {
        let sample = Self.samples[index]
        #expect(sample.error.description == sample.description)
        #expect("\(sample.error)" == sample.description)
    }

    @Test("the facts of each error survive, and every other fact is nil")
    func factsSurvive() {
        let invalid = RedisBridgeError.invalidMessage(CloudEventError("no id"), key: "events:orders")
        #expect(invalid.cloudEventError == CloudEventError("no id"))
        #expect(invalid.key == "events:orders")
        #expect(invalid.type == nil && invalid.id == nil && invalid.reason == nil && invalid.cause == nil)

        let unknown = RedisBridgeError.unknownType("com.unknown", id: "e-1", source: "shop/api-1")
        #expect(unknown.type == "com.unknown" && unknown.id == "e-1" && unknown.source == "shop/api-1")
        #expect(unknown.key == nil && unknown.reason == nil && unknown.cloudEventError == nil)

        let undecodable = RedisBridgeError.undecodableData(type: "t", id: "e-2", source: "s", reason: "bad")
        #expect(undecodable.type == "t" && undecodable.id == "e-2" && undecodable.source == "s")
        #expect(undecodable.reason == "bad")

        let unencodable = RedisBridgeError.cannotEncode(type: "t", reason: "NaN")
        #expect(unencodable.type == "t" && unencodable.reason == "NaN" && unencodable.id == nil)

        let full = RedisBridgeError.publishBufferFull(type: "t", id: "e-3", capacity: 1000)
        #expect(full.type == "t" && full.id == "e-3" && full.capacity == 1000 && full.source == nil)

        let lost = RedisBridgeError.pubSubEventLost(type: "t", id: "e-4", cause: .connectionClosed)
        #expect(lost.type == "t" && lost.id == "e-4" && lost.cause == .connectionClosed && lost.capacity == nil)

        #expect(RedisBridgeError.redis(.clientClosed).cause == .clientClosed)
        #expect(RedisBridgeError.redis(.clientClosed).type == nil)

        let group = RedisBridgeError.consumerGroupLost(stream: "events:orders", group: "workers")
        #expect(group.stream == "events:orders" && group.group == "workers" && group.key == nil)

        #expect(RedisBridgeError.stoppedWithUnpublishedEvents(3).unpublishedCount == 3)
        #expect(RedisBridgeError.stoppedWithUnpublishedEvents(3).capacity == nil)
        #expect(RedisBridgeError.duplicateWireName("com.example.order").type == "com.example.order")
        #expect(RedisBridgeError.invalidConfiguration("empty source").reason == "empty source")
        #expect(RedisBridgeError.startFailed(.connectionClosed).cause == .connectionClosed)

        let started = RedisBridgeError.alreadyStarted
        let facts: [Any?] = [
            started.cloudEventError, started.key, started.type, started.id, started.source, started.reason,
            started.capacity, started.cause, started.stream, started.group, started.unpublishedCount,
        ]
        #expect(facts.allSatisfy { $0 == nil })
    }

    @Test("two errors are equal when their codes and all their facts are")
    func equality() {
        #expect(RedisBridgeError.stoppedWithUnpublishedEvents(2) == .stoppedWithUnpublishedEvents(2))
        #expect(RedisBridgeError.stoppedWithUnpublishedEvents(2) != .stoppedWithUnpublishedEvents(3))
        #expect(RedisBridgeError.redis(.connectionClosed) != .startFailed(.connectionClosed), "same cause")
        #expect(RedisBridgeError.invalidConfiguration("x") != .duplicateWireName("x"), "same text")
        #expect(RedisBridgeError.alreadyStarted == .alreadyStarted)
        for (i, a) in Self.samples.enumerated() {
            for (j, b) in Self.samples.enumerated() {
                #expect((a.error == b.error) == (i == j), "\(a.error) and \(b.error)")
            }
        }
    }

    /// Compiles only if a `switch` over codes can end in `default`, and a code can be a pattern
    /// for the error itself.
    static func handling(_ error: RedisBridgeError) -> String {
        switch error.code {
        case .publishBufferFull, .pubSubEventLost: "not published"
        case .startFailed: "start again"
        default: "other"
        }
    }

    static func matchingTheError(_ error: RedisBridgeError) -> String {
        switch error {
        case .stoppedWithUnpublishedEvents(1): "one left"
        case .stoppedWithUnpublishedEvents: "some left"
        case .alreadyStarted: "too late"
        default: "other"
        }
    }

    @Test("a switch over the code needs only a default, and codes match the error itself")
    func matching() throws {
        #expect(Self.handling(.publishBufferFull(type: "t", id: "1", capacity: 1)) == "not published")
        #expect(Self.handling(.pubSubEventLost(type: "t", id: "1", cause: .connectionClosed)) == "not published")
        #expect(Self.handling(.startFailed(.connectionClosed)) == "start again")
        #expect(Self.handling(.alreadyStarted) == "other")
        #expect(Self.matchingTheError(.stoppedWithUnpublishedEvents(1)) == "one left")
        #expect(Self.matchingTheError(.stoppedWithUnpublishedEvents(4)) == "some left")
        #expect(Self.matchingTheError(.alreadyStarted) == "too late")
        #expect(Self.matchingTheError(.redis(.connectionClosed)) == "other")

        func start() throws(RedisBridgeError) { throw .startFailed(.connectionClosed) }
        var caught: RedisError?
        do {
            try start()
        } catch let error where error.code == .startFailed {
            caught = error.cause
        } catch {
            Issue.record("not a start failure: \(error)")
        }
        #expect(caught == .connectionClosed)
        do {
            try start()
            Issue.record("did not throw")
        } catch .startFailed {
        } catch {
            Issue.record("the code did not match in catch: \(error)")
        }
    }

    @Test("the log names the code and gives the facts as fields")
    func logMetadata() {
        #expect(
            RedisBridgeError.invalidMessage(CloudEventError("no id"), key: "k").logMetadata == [
                "error": "invalidMessage", "key": "k", "reason": "invalid CloudEvent: no id",
            ])
        #expect(
            RedisBridgeError.unknownType("t", id: "1", source: "s").logMetadata == [
                "error": "unknownType", "type": "t", "id": "1", "source": "s",
            ])
        #expect(
            RedisBridgeError.undecodableData(type: "t", id: "1", source: "s", reason: "r").logMetadata == [
                "error": "undecodableData", "type": "t", "id": "1", "source": "s", "reason": "r",
            ])
        #expect(
            RedisBridgeError.cannotEncode(type: "t", reason: "r").logMetadata == [
                "error": "cannotEncode", "type": "t", "reason": "r",
            ])
        #expect(
            RedisBridgeError.publishBufferFull(type: "t", id: "1", capacity: 8).logMetadata == [
                "error": "publishBufferFull", "type": "t", "id": "1", "capacity": "8",
            ])
        #expect(
            RedisBridgeError.pubSubEventLost(type: "t", id: "1", cause: .server("ERR no")).logMetadata == [
                "error": "pubSubEventLost", "type": "t", "id": "1", "cause": "Redis error reply: ERR no",
            ])
        #expect(
            RedisBridgeError.redis(.server("ERR no")).logMetadata == [
                "error": "redis", "cause": "Redis error reply: ERR no",
            ])
        #expect(
            RedisBridgeError.consumerGroupLost(stream: "s", group: "g").logMetadata == [
                "error": "consumerGroupLost", "stream": "s", "group": "g",
            ])
        #expect(
            RedisBridgeError.stoppedWithUnpublishedEvents(2).logMetadata == [
                "error": "stoppedWithUnpublishedEvents", "count": "2",
            ])
        #expect(
            RedisBridgeError.duplicateWireName("t").logMetadata == ["error": "duplicateWireName", "type": "t"])
        #expect(RedisBridgeError.alreadyStarted.logMetadata == ["error": "alreadyStarted"])
        #expect(
            RedisBridgeError.invalidConfiguration("r").logMetadata == ["error": "invalidConfiguration", "reason": "r"])
        #expect(
            RedisBridgeError.startFailed(.server("ERR no")).logMetadata == [
                "error": "startFailed", "cause": "Redis error reply: ERR no",
            ])
    }

    @Test("only a lost or failed connection counts as one, and a failed start does not")
    func connectionLoss() {
        #expect(RedisBridgeError.redis(.connectionClosed).isConnectionLoss)
        #expect(RedisBridgeError.pubSubEventLost(type: "t", id: "1", cause: .timedOut("reply")).isConnectionLoss)
        #expect(!RedisBridgeError.redis(.server("ERR no")).isConnectionLoss)
        #expect(!RedisBridgeError.startFailed(.connectionClosed).isConnectionLoss)
        #expect(!RedisBridgeError.alreadyStarted.isConnectionLoss)
    }

    @Test("errors that set the bridge up or lose events are logged as errors, the rest as warnings")
    func logLevels() {
        let errors: [Code] = [
            .stoppedWithUnpublishedEvents, .consumerGroupLost, .startFailed, .invalidConfiguration,
            .duplicateWireName, .alreadyStarted,
        ]
        for sample in Self.samples {
            #expect(sample.error.logLevel == (errors.contains(sample.code) ? .error : .warning), "\(sample.code)")
        }
    }
}
