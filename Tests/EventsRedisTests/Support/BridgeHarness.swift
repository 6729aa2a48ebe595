import Events
import Foundation
import RedisServerSupport
import RedisTestSupport

@testable import EventsRedis

struct ShipmentSent: RemoteEvent, Equatable {
    static let wireName = "com.example.shop.shipment-sent"
    let orderID: String
}

struct Sequenced: RemoteEvent, Equatable {
    static let wireName = "com.example.test.sequenced"
    let n: Int
}

struct PubSubSequenced: RemoteEvent, Equatable {
    static let wireName = "com.example.test.pubsub-sequenced"
    let n: Int
}

/// A sender whose type name becomes the CloudEvents subject.
final class Checkout: Sendable {}

/// Collects a bridge's reported errors.
final class ErrorLog: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var errors: [RedisBridgeError] = []

    func record(_ error: RedisBridgeError) { lock.withLock { errors.append(error) } }
    var all: [RedisBridgeError] { lock.withLock { errors } }
}

/// A bridge configuration for tests: short block and claim times, errors collected.
func bridgeConfiguration(
    _ server: RedisServer, source: String, errors: ErrorLog, prefix: String = "test:"
) -> RedisBridge.Configuration {
    var configuration = RedisBridge.Configuration(redis: server.configuration, source: source)
    configuration.keyPrefix = prefix
    configuration.readBlock = .milliseconds(100)
    configuration.claimInterval = .milliseconds(100)
    configuration.claimMinimumIdle = .milliseconds(200)
    configuration.errorHandler = { errors.record($0) }
    return configuration
}

/// A CloudEvent as another service would write it by hand (source "other"), with `data` given
/// as raw JSON text.
func foreignMessage(type: String, id: String, data: String) -> RedisArgument {
    RedisArgument(#"{"specversion":"1.0","id":"\#(id)","source":"other","type":"\#(type)","data":\#(data)}"#)
}

/// A foreign message of `type` whose data is `{"n": n}`, padded by `padding` bytes (to go over
/// a frame limit); the event's id is `n`.
func foreignMessage(type: String, n: Int, padding: Int = 0) -> RedisArgument {
    foreignMessage(type: type, id: "\(n)", data: #"{"n":\#(n),"pad":"\#(String(repeating: "x", count: padding))"}"#)
}

/// Two started bridges on one server carrying `Sequenced` in stream mode: one publishing from
/// `publisherCenter` (source "p"), one consuming (source "c") into `received`.
struct StreamPair {
    let publisherCenter = EventCenter()
    let publisher: RedisBridge
    let consumer: RedisBridge
    let consumerConfiguration: RedisBridge.Configuration
    let received = Log<Int>()
    let listener: Subscription

    /// `configure` adjusts the consumer's configuration.
    init(
        _ server: RedisServer, errors: ErrorLog, configure: (inout RedisBridge.Configuration) -> Void = { _ in }
    ) async throws {
        publisher = RedisBridge(
            center: publisherCenter, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        try publisher.carry(Sequenced.self, mode: .stream)
        try await publisher.start()
        let center = EventCenter()
        listener = center.listen(to: Sequenced.self) { [received] in received.append($0.n) }
        var configuration = bridgeConfiguration(server, source: "c", errors: errors)
        configure(&configuration)
        consumerConfiguration = configuration
        consumer = RedisBridge(center: center, configuration: configuration)
        try consumer.carry(Sequenced.self, mode: .stream)
        try await consumer.start()
    }

    func publish(_ numbers: ClosedRange<Int>) {
        for n in numbers { publisherCenter.dispatch(Sequenced(n: n)) }
    }

    func stop() async {
        await consumer.stop()
        await publisher.stop()
    }
}
