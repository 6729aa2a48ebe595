import RedisTestSupport
import Testing

@testable import EventsRedis
@testable import EventsRedisClient

@Suite("Stream read replies")
struct StreamReplyTests {
    /// The entries `entries(fromRead:)` gives for `value`, or its error (an error reply thrown
    /// as the consumer throws it).
    private func fromValue(_ value: RESPValue) -> Result<[StreamConsumer.Entry], RedisError> {
        do throws(RedisError) {
            if case .error(let text) = value { throw RedisError.server(text) }
            return .success(try StreamConsumer.entries(fromRead: value))
        } catch {
            return .failure(error)
        }
    }

    private func fromVerbatim(_ bytes: [UInt8]) -> Result<[StreamConsumer.Entry], RedisError> {
        bytes.withUnsafeBufferPointer { StreamConsumer.entries(fromVerbatimRead: $0) }
    }

    private func bulk(_ text: String) -> RESPValue { .bulkString(Array(text.utf8)) }

    private func entry(_ id: String, _ fields: [RESPValue]) -> RESPValue { .array([bulk(id), .array(fields)]) }

    @Test("A reply read in place gives the entries the value reader gives, for every shape")
    func agreesWithValueReader() {
        let replies: [RESPValue] = [
            // Two streams, an entry with extra fields, a deleted entry, an entry without `event`,
            // binary payloads with CRLF inside, and two `event` fields (the last wins).
            .array([
                .array([
                    bulk("events:a"),
                    .array([
                        entry("1-0", [bulk("event"), .bulkString([0, 13, 10, 255])]),
                        entry("2-0", [bulk("other"), bulk("x"), bulk("event"), bulk("{}")]),
                        .array([bulk("3-0"), .null]),
                        entry("4-0", [bulk("other"), bulk("y")]),
                        entry("5-0", [bulk("event"), bulk("first"), bulk("event"), bulk("second")]),
                    ]),
                ]),
                .array([bulk("events:b"), .array([entry("9-1", [bulk("event"), bulk("")])])]),
            ]),
            .array([]),
            .array([.array([bulk("k"), .array([])])]),
            .null,
            .error("NOGROUP No such key"),
            // Shapes the walker leaves to the value reader: its answer (entries or an error) stands.
            .integer(3),
            .simpleString("OK"),
            .array([.array([bulk("k")])]),
            .array([.array([bulk("k"), .array([entry("1-0", [bulk("event")])])])]),
            .array([.array([bulk("k"), .array([.array([.simpleString("1-0"), .array([])])])])]),
            .array([.array([bulk("k"), .array([entry("1-0", [.simpleString("event"), bulk("v")])])])]),
            .array([.array([bulk("k"), .array([entry("1-0", [bulk("event"), .integer(5)])])])]),
            .array([.array([.integer(1), .array([])])]),
            .array([.array([bulk("k"), .null])]),
        ]
        for reply in replies {
            let expected = fromValue(reply)
            #expect(fromVerbatim(reply.wireBytes) == expected, "\(reply)")
        }
        guard case .success(let entries) = fromVerbatim(replies[0].wireBytes) else {
            Issue.record("the usual reply failed")
            return
        }
        #expect(entries.map(\.id) == ["1-0", "2-0", "3-0", "4-0", "5-0", "9-1"])
        #expect(entries[0].message == [0, 13, 10, 255] && entries[0].key == "events:a")
        #expect(entries[2].deleted && entries[2].message == nil)
        #expect(!entries[3].deleted && entries[3].message == nil)
        #expect(entries[4].message == Array("second".utf8))
        #expect(entries[5].key == "events:b" && entries[5].message == [])
    }

    @Test("Random replies of stream shape read the same in place as built (fixed seed)")
    func randomReplies() {
        var random = SeededGenerator(seed: 0x5EED_0003)
        func randomText() -> RESPValue {
            switch Int.random(in: 0..<8, using: &random) {
            case 0: .null
            case 1: .simpleString("event")
            case 2: .integer(7)
            case 3: .bulkString(Array("event".utf8))
            default:
                .bulkString(
                    (0..<Int.random(in: 0..<12, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            }
        }
        func randomEntry() -> RESPValue {
            if Int.random(in: 0..<10, using: &random) == 0 { return randomText() }
            let fields: RESPValue =
                Int.random(in: 0..<8, using: &random) == 0
                ? .null : .array((0..<Int.random(in: 0..<5, using: &random)).map { _ in randomText() })
            return .array([randomText(), fields])
        }
        for _ in 0..<3000 {
            let reply: RESPValue = .array(
                (0..<Int.random(in: 0..<3, using: &random)).map { _ in
                    .array([
                        randomText(), .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in randomEntry() }),
                    ])
                })
            #expect(fromVerbatim(reply.wireBytes) == fromValue(reply), "\(reply)")
        }
    }

    @Test("The parser hands out a value's bytes verbatim, whatever byte they are split at, with next()'s errors")
    func verbatimValues() throws {
        let values: [RESPValue] = [
            .simpleString("OK"), .integer(-3), .null, .bulkString([13, 10, 0]),
            .array([.array([bulk("k"), .null]), .error("E")]),
        ]
        let bytes = values.flatMap { $0.wireBytes }
        for split in 0...bytes.count {
            var parser = RESPParser()
            var read: [[UInt8]] = []
            parser.append(contentsOf: bytes[..<split])
            while let next = try parser.nextParsed({ Array($0) }) { read.append(next) }
            parser.append(contentsOf: bytes[split...])
            while let next = try parser.nextParsed({ Array($0) }) { read.append(next) }
            #expect(read == values.map(\.wireBytes), "split at \(split)")
        }
        var bad = RESPParser(limits: RESPLimits(maxBulkBytes: 4, maxArrayCount: 8, maxNesting: 4))
        bad.append(contentsOf: Array("$5\r\nhello\r\n".utf8))
        #expect(throws: RedisError.frameTooLarge(limit: 4, declared: 5)) { try bad.nextParsed({ Array($0) }) }
    }
}
