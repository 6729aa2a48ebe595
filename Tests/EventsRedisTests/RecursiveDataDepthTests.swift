import Events
import Foundation
import Synchronization
import Testing

@testable import EventsRedis

/// A free-form JSON value, as apps carry for metadata: decoding it recurses once per level, in
/// the decoder and in its own `init(from:)`, so how deep a sender nests it decides how much call
/// stack the receiver spends.
indirect enum TreeValue: Codable, Sendable, Equatable {
    case number(Int)
    case list([TreeValue])
    case object([String: TreeValue])

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            var members: [String: TreeValue] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(TreeValue.self, forKey: key) }
            self = .object(members)
        } else if var list = try? decoder.unkeyedContainer() {
            var elements: [TreeValue] = []
            while !list.isAtEnd { elements.append(try list.decode(TreeValue.self)) }
            self = .list(elements)
        } else {
            self = .number(try decoder.singleValueContainer().decode(Int.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .number(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .list(let elements):
            var list = encoder.unkeyedContainer()
            for element in elements { try list.encode(element) }
        case .object(let members):
            var object = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try object.encode(value, forKey: Key(stringValue: key)) }
        }
    }

    /// How many arrays and objects nest around the innermost number.
    var depth: Int {
        switch self {
        case .number: 0
        case .list(let elements): 1 + (elements.map(\.depth).max() ?? 0)
        case .object(let members): 1 + (members.values.map(\.depth).max() ?? 0)
        }
    }
}

/// An event whose data is a `TreeValue` itself.
struct TreeEvent: RemoteEvent {
    static let wireName = "com.example.test.tree"
    let value: TreeValue

    init(from decoder: any Decoder) throws { value = try TreeValue(from: decoder) }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

@Suite("Received data nested deeper than the limit, on the smallest stack")
struct RecursiveDataDepthTests {
    /// Receives one CloudEvent whose data is `depth` levels of `kind` around `1`, on a thread
    /// with the smallest stack, and returns the depth delivered (nil when none) and the errors.
    static func receive(
        depth: Int, _ kind: String, limits: Inbound.Limits = Inbound.Limits(), base64: Bool = false
    ) async -> (delivered: Int?, undecodable: Int, errors: [RedisBridgeError]) {
        let (center, counters, errors) = (EventCenter(), BridgeCounters(), ErrorLog())
        let received = Mutex<Int?>(nil)
        let subscription = center.listen(to: TreeEvent.self) { event in received.withLock { $0 = event.value.depth } }
        let inbound = Inbound(
            center: center, source: "me", ownIDPrefix: "own-",
            carried: [TreeEvent.wireName: .typed(TreeEvent.self, mode: .pubSub, key: "k")],
            deduplicationWindow: 100, limits: limits, counters: counters, report: { errors.record($0) })
        let data = DeepNestingTests.nestedJSON(depth, kind)
        // Base64 data arrives as bytes the envelope's reading does not measure.
        let member = base64 ? #""data_base64":"\#(Data(data.utf8).base64EncodedString())""# : #""data":\#(data)"#
        let json = Array(
            #"{"specversion":"1.0","id":"1","source":"other","type":"\#(TreeEvent.wireName)",\#(member)}"#.utf8)
        await onThread { inbound.receiveNow(json, key: "k") }
        withExtendedLifetime(subscription) {}
        return (received.withLock { $0 }, counters.undecodable.load(ordering: .relaxed), errors.all)
    }

    @Test(
        "A recursive type's data nested as deep as the limit is decoded on a 512 KiB stack",
        arguments: ["arrays", "objects", "mixed"])
    func dataAtTheLimitIsDelivered(kind: String) async {
        let outcome = await Self.receive(depth: Inbound.Limits.defaultMaxDataDepth, kind)
        #expect(outcome.delivered == Inbound.Limits.defaultMaxDataDepth)
        #expect(outcome.errors.isEmpty)
    }

    @Test(
        "Data nested deeper than the limit is reported as undecodable, not decoded, whatever the depth",
        arguments: [Inbound.Limits.defaultMaxDataDepth + 1, 200, 400, 511])
    func deeperDataIsReported(depth: Int) async {
        for kind in ["arrays", "objects", "mixed"] {
            let outcome = await Self.receive(depth: depth, kind)
            #expect(outcome.delivered == nil, "\(kind), \(depth) levels")
            #expect(outcome.undecodable == 1, "\(kind), \(depth) levels")
            guard case .undecodableData(let type, _, _, let reason)? = outcome.errors.first else {
                Issue.record("\(kind), \(depth) levels: \(outcome.errors)")
                continue
            }
            #expect(type == TreeEvent.wireName)
            #expect(reason.contains("deeper than 100 levels"), "\(reason)")
        }
    }

    @Test("Base64 data is held to the same limit", arguments: ["arrays", "objects"])
    func base64DataHasTheSameLimit(kind: String) async {
        let limit = Inbound.Limits.defaultMaxDataDepth
        #expect(await Self.receive(depth: limit, kind, base64: true).delivered == limit)
        let deeper = await Self.receive(depth: 400, kind, base64: true)
        #expect(deeper.delivered == nil)
        #expect(deeper.undecodable == 1)
    }

    @Test("maxReceivedDataDepth sets the limit: as deep is decoded, one level more refused")
    func configuredLimit() async throws {
        var configuration = RedisBridge.Configuration(source: "test")
        configuration.maxReceivedDataDepth = 10
        let limits = Inbound.Limits(try configuration.validated())
        #expect(await Self.receive(depth: 10, "mixed", limits: limits).delivered == 10)
        let deeper = await Self.receive(depth: 11, "mixed", limits: limits)
        #expect(deeper.delivered == nil)
        #expect(deeper.undecodable == 1)
    }

    @Test("A configuration outside 1 to 512 levels is refused with a clear error", arguments: [0, -1, 513])
    func invalidLimitIsRefused(depth: Int) {
        var configuration = RedisBridge.Configuration(source: "test")
        configuration.maxReceivedDataDepth = depth
        #expect(throws: RedisBridgeError.self) { try configuration.validated() }
        do {
            _ = try configuration.validated()
        } catch {
            #expect("\(error)".contains("maxReceivedDataDepth is \(depth)"), "\(error)")
        }
    }
}
