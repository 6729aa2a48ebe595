import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Synchronization
import Testing

@testable import EventsRedis

/// Collects a bridge's log records.
final class LogRecords: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var records: [RedisBridge.LogRecord] = []

    func record(_ record: RedisBridge.LogRecord) { lock.withLock { records.append(record) } }
    var all: [RedisBridge.LogRecord] { lock.withLock { records } }
}

/// The bridge's log: one handler receives every reported error and the life-cycle steps.
@Suite("Redis bridge logging")
struct BridgeLoggingTests {
    @Test("Every error that reaches the error handler reaches the log handler too, with its level and fields")
    func errorsAreLogged() async throws {
        let errors = ErrorLog()
        let log = LogRecords()
        let center = EventCenter()
        var configuration = RedisBridge.Configuration(source: "logging")
        configuration.publishBufferCapacity = 2
        configuration.errorHandler = { errors.record($0) }
        configuration.logHandler = { log.record($0) }
        let bridge = RedisBridge(center: center, configuration: configuration)
        try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        // Never started: two wait in the buffer, the third finds it full; the stop gives up on
        // the two.
        for n in 1...3 { center.dispatch(Sequenced(n: n)) }
        await bridge.stop()

        let reported = errors.all
        #expect(reported.count == 2)
        let logged = log.all.filter { $0.error != nil }
        #expect(logged.compactMap(\.error) == reported)
        let full = try #require(logged.first)
        #expect(full.level == .warning)
        #expect(full.message == reported[0].description)
        #expect(full.metadata["error"] == "publishBufferFull")
        #expect(full.metadata["type"] == Sequenced.wireName)
        #expect(full.metadata["capacity"] == "2")
        let unpublished = try #require(logged.last)
        #expect(unpublished.error == .stoppedWithUnpublishedEvents(2))
        #expect(unpublished.level == .error)
        #expect(unpublished.metadata["count"] == "2")
    }

    @Test("Without a log handler, log messages are not even made")
    func noHandlerCostsNothing() {
        let made = Atomic<Int>(0)
        let configuration = RedisBridge.Configuration(source: "quiet")
        #expect(configuration.logHandler == nil)
        let message = { () -> String in
            made.add(1, ordering: .relaxed)
            return "made"
        }
        configuration.log(.info, message(), metadata: ["made": message()])
        #expect(made.load(ordering: .relaxed) == 0)
    }

    @Test("A record reads as its level, message and sorted fields")
    func recordDescription() {
        let record = RedisBridge.LogRecord(
            level: .notice, message: "Redis bridge stopping", metadata: ["source": "a", "drainTimeout": "5 seconds"])
        #expect(record.description == "[notice] Redis bridge stopping (drainTimeout=5 seconds, source=a)")
        #expect(RedisBridge.LogRecord.Level.allCases.sorted() == [.debug, .info, .notice, .warning, .error])
    }
}

@Suite(
    "Redis bridge logging with a server",
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct BridgeLifecycleLoggingTests {
    @Test("The log tells the life cycle: starting, started with what is read, stopping, stopped with what was left")
    func lifeCycleIsLogged() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let log = LogRecords()
        var configuration = bridgeConfiguration(server, source: "life", errors: errors)
        configuration.logHandler = { log.record($0) }
        let bridge = RedisBridge(center: EventCenter(), configuration: configuration)
        try bridge.carry(Sequenced.self, mode: .stream)
        try bridge.carry(PubSubSequenced.self, mode: .pubSub, direction: .incoming)
        try await bridge.start()
        await bridge.stop()

        let records = log.all
        #expect(records.map(\.level) == [.debug, .debug, .info, .notice, .info], "\(records)")
        #expect(records.map(\.message).first == "Redis bridge starting")
        // A bridge that connects at start checks its streams' partition layouts before it returns.
        #expect(records[1].message == "Redis bridge checked the partition layouts of its streams")
        #expect(records[1].metadata["mismatches"] == "0")
        let started = records[2]
        #expect(started.message == "Redis bridge started, connected to Redis")
        #expect(started.metadata["streams"] == "test:" + Sequenced.wireName)
        #expect(started.metadata["channels"] == "test:" + PubSubSequenced.wireName)
        #expect(started.metadata["publishing"] == "test:" + Sequenced.wireName)
        #expect(started.metadata["source"] == "life")
        #expect(records[3].message == "Redis bridge stopping")
        let stopped = records[4]
        #expect(stopped.message.hasPrefix("Redis bridge stopped: unpublished 0"), "\(stopped)")
        #expect(stopped.metadata["unpublishedStreamEvents"] == "0")
        #expect(stopped.metadata["pendingEntries"] == "0")
        #expect(stopped.metadata["deadlineReached"] == "false")
        #expect(errors.all.isEmpty, "\(errors.all)")
    }

    @Test("A start that fails is logged as an error, and Redis errors while running as warnings")
    func failuresAreLogged() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let log = LogRecords()
        var configuration = bridgeConfiguration(server, source: "failing", errors: errors)
        configuration.logHandler = { log.record($0) }
        // Nothing answers: fail fast.
        configuration.redis.connectTimeout = .milliseconds(200)
        configuration.redis.replyTimeout = .milliseconds(300)
        server.stop()

        let receiving = RedisBridge(center: EventCenter(), configuration: configuration)
        try receiving.carry(Sequenced.self, mode: .stream, direction: .incoming)
        await #expect(throws: RedisBridgeError.self) { try await receiving.start() }
        let failed = try #require(log.all.last)
        #expect(failed.level == .error)
        #expect(failed.metadata["error"] == "startFailed")
        #expect(failed.error?.code == .startFailed, "not a start failure: \(failed)")
        await receiving.stop()

        // A publisher starts without Redis, and its attempts to publish fail and are retried.
        let center = EventCenter()
        let publishing = RedisBridge(center: center, configuration: configuration)
        try publishing.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await publishing.start()
        center.dispatch(Sequenced(n: 1))
        #expect(await eventually { log.all.contains { $0.metadata["error"] == "redis" } })
        let retried = try #require(log.all.first { $0.metadata["error"] == "redis" })
        #expect(retried.level == .warning)
        #expect(retried.message.hasSuffix("; retrying"))
        await publishing.stop(drainTimeout: .zero)
        #expect(log.all.last?.level == .warning, "a stop that left events is a warning: \(log.all)")
        #expect(errors.all.contains(.stoppedWithUnpublishedEvents(1)))
    }
}

extension BridgeLifecycleLoggingTests {
    @Test("After an outage, the log says once that Redis answers again, with the connection errors it brought")
    func reconnectionIsLogged() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let log = LogRecords()
        var configuration = bridgeConfiguration(server, source: "outage", errors: errors)
        configuration.logHandler = { log.record($0) }
        let bridge = RedisBridge(center: EventCenter(), configuration: configuration)
        try bridge.carry(Sequenced.self, mode: .stream, direction: .incoming)
        try await bridge.start()
        #expect(!bridge.connectionWatch.isProbing)

        server.kill()
        #expect(await eventually { bridge.connectionWatch.isProbing })
        #expect(log.all.contains { $0.error.map(\.isConnectionLoss) == true })
        let answering = { log.all.filter { $0.message.contains("Redis answers again") } }
        #expect(answering().isEmpty)

        try server.restart()
        #expect(await eventually { answering().count == 1 })
        let notice = try #require(answering().first)
        #expect(notice.level == .notice)
        #expect(Int(notice.metadata["connectionErrors"] ?? "") ?? 0 >= 1, "\(notice)")
        #expect(!bridge.connectionWatch.isProbing)
        await bridge.stop()
    }

    @Test("Without a log handler, an outage starts no probe")
    func noProbeWithoutLogHandler() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let bridge = RedisBridge(
            center: EventCenter(), configuration: bridgeConfiguration(server, source: "quiet", errors: errors))
        try bridge.carry(Sequenced.self, mode: .stream, direction: .incoming)
        try await bridge.start()
        server.kill()
        #expect(await eventually { errors.all.contains { $0.isConnectionLoss } })
        #expect(!bridge.connectionWatch.isProbing)
        await bridge.stop()
    }

    @Test("A refused command is not an outage: it starts no probe")
    func refusalIsNotAnOutage() {
        #expect(!RedisBridgeError.redis(.server("OOM command not allowed")).isConnectionLoss)
        #expect(RedisBridgeError.redis(.connectionClosed).isConnectionLoss)
        #expect(RedisBridgeError.pubSubEventLost(type: "t", id: "1", cause: .timedOut("reply")).isConnectionLoss)
        #expect(!RedisBridgeError.stoppedWithUnpublishedEvents(1).isConnectionLoss)
    }
}
