import RedisTestSupport
import Testing

@testable import EventsRedisClient

/// The parser fed as a socket feeds it: a reply in many small reads, values asked for after each.
@Suite("RESP parser fed in small reads")
struct RESPParserIncrementalTests {
    /// The payload of a TCP segment on an Ethernet link: what a slow link, or a server that
    /// writes slowly on purpose, hands over per read.
    static let segment = 1_460

    /// Which of the parser's readers takes the values out.
    enum Reader: String, CaseIterable, Sendable {
        case next, nextFrame, nextParsed
    }

    /// Replies whose size grows with `size`, each a shape a reply can take in full.
    enum Shape: String, CaseIterable, Sendable {
        /// `size` integers in one array (`*N`, then `:1` each).
        case integers
        /// `size` entries of a stream read: an array of arrays of bulk strings.
        case streamRead
        /// A simple string (a status line) of `size` * 4 bytes.
        case longLine
        /// `size` small bulk strings, nested one level.
        case bulkStrings

        func reply(_ size: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            switch self {
            case .integers:
                bytes += Array("*\(size)\r\n".utf8)
                for _ in 0..<size { bytes += Array(":1\r\n".utf8) }
            case .streamRead:
                bytes += Array("*1\r\n*2\r\n$4\r\nkeys\r\n*\(size)\r\n".utf8)
                for index in 0..<size {
                    let id = "\(index)-0"
                    bytes += Array("*2\r\n$\(id.utf8.count)\r\n\(id)\r\n*2\r\n$5\r\nevent\r\n$2\r\n{}\r\n".utf8)
                }
            case .longLine:
                bytes += Array("+".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: size * 4) + [13, 10]
            case .bulkStrings:
                bytes += Array("*1\r\n*\(size)\r\n".utf8)
                for _ in 0..<size { bytes += Array("$2\r\nab\r\n".utf8) }
            }
            return bytes
        }

        /// The size whose reply is about 16 KB: a dozen reads.
        var smallSize: Int {
            switch self {
            case .integers, .longLine: 4_096
            case .streamRead: 512
            case .bulkStrings: 2_048
            }
        }
    }

    /// Feeds `bytes` `read` bytes at a time and takes values out with `reader` after every read;
    /// returns how many values (replies) were taken.
    static func feed(_ bytes: [UInt8], reads read: Int, reader: Reader) throws -> Int {
        var parser = RESPParser()
        var taken = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + read, bytes.count)
            parser.append(contentsOf: bytes[offset..<end])
            offset = end
            switch reader {
            case .next:
                while try parser.next() != nil { taken += 1 }
            case .nextFrame:
                while try parser.nextFrame(message: { _, _ in 0 }) != nil { taken += 1 }
            case .nextParsed:
                while try parser.nextParsed({ $0.count }) != nil { taken += 1 }
            }
        }
        guard parser.bufferedByteCount == 0 else { throw WrongResult("\(parser.bufferedByteCount) bytes left over") }
        return taken
    }

    @Test(
        "A reply arriving in reads of 1,460 bytes is parsed in time linear in its size, whatever its shape and reader",
        arguments: Shape.allCases, Reader.allCases)
    func linearInTheReply(shape: Shape, reader: Reader) async throws {
        // The small reply is a dozen reads, the large one some two hundred: rescanning the
        // reply from its start on every read makes the large one about 256 times slower.
        let growth = try await growthWhenSixteenTimesLarger(from: shape.smallSize) { size in
            shape.reply(size)
        } _: { bytes in
            let taken = try Self.feed(bytes, reads: Self.segment, reader: reader)
            guard taken == 1 else { throw WrongResult("\(taken) replies instead of 1") }
        }
        #expect(growth < 64, "\(shape) read with \(reader): \(growth) times longer for 16 times the bytes")
    }

    @Test("A value in progress survives the buffer dropping the replies read before it")
    func valueInProgressAcrossCompaction() throws {
        // Some 100,000 bytes of small replies before a long line and a large array: the parser
        // drops the consumed prefix while each is still being received.
        var bytes: [UInt8] = []
        var expected: [RESPValue] = []
        func append(_ value: RESPValue) {
            bytes += value.wireBytes
            expected.append(value)
        }
        for index in 0..<10_000 { append(.integer(index * 1_000_000)) }
        // A long status line, searched for its end across reads, and the consumed prefix
        // dropped meanwhile.
        append(.simpleString(String(repeating: "s", count: 50_000)))
        for index in 0..<10_000 { append(.integer(index)) }
        let large = RESPValue.array(
            (0..<5_000).map { .array([.bulkString(Array("entry \($0)".utf8)), .integer($0), .null]) })
        append(large)
        append(.simpleString("OK"))
        for read in [1_460, 997, 65_536] {
            var parser = RESPParser()
            var values: [RESPValue] = []
            var offset = 0
            while offset < bytes.count {
                parser.append(contentsOf: bytes[offset..<min(offset + read, bytes.count)])
                offset += read
                while let value = try parser.next() { values.append(value) }
            }
            #expect(values == expected, "reads of \(read) bytes")
            #expect(parser.bufferedByteCount == 0)
        }
    }

    @Test("Any split into reads gives the values and the error that one read gives (fuzz, fixed seed)")
    func splitsAgreeWithOneRead() async {
        var random = SeededGenerator(seed: 0x5EED_0003)
        let limits = RESPLimits(maxBulkBytes: 64, maxArrayCount: 16, maxNesting: 6)
        let alphabet = Array("+-:$*\r\n0123456789-?ab".utf8) + [0, 255]
        let valid: [RESPValue] = [
            RESPParserTests.everyType, .simpleString("OK"), .array([.array([.array([.integer(7)])]), .null]),
            .bulkString(Array("a\r\nb".utf8)), .array((0..<5).map { .integer($0) }),
        ]
        /// The values read, and the error that stopped reading, for `bytes` split at `cuts`.
        func outcome(_ bytes: [UInt8], cuts: [Int]) -> ([RESPValue], RedisError?) {
            var parser = RESPParser(limits: limits)
            var values: [RESPValue] = []
            var start = 0
            do throws(RedisError) {
                for end in cuts + [bytes.count] {
                    parser.append(contentsOf: bytes[start..<end])
                    start = end
                    while let value = try parser.next() { values.append(value) }
                }
                return (values, nil)
            } catch {
                return (values, error)
            }
        }
        var outcomes = (values: 0, errors: 0)
        for iteration in 0..<3_000 {
            await yieldNow(every: 200, at: iteration)
            var bytes = (0..<Int.random(in: 1...4, using: &random)).flatMap { _ in
                valid.randomElement(using: &random)!.wireBytes
            }
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "+")] }
            }
            let whole = outcome(bytes, cuts: [])
            let cuts = (0..<Int.random(in: 1...12, using: &random)).map { _ in
                Int.random(in: 0...bytes.count, using: &random)
            }.sorted()
            let split = outcome(bytes, cuts: cuts)
            #expect(split.0 == whole.0 && split.1 == whole.1, "\(bytes) cut at \(cuts)")
            outcomes.values += whole.0.count
            if whole.1 != nil { outcomes.errors += 1 }
        }
        #expect(outcomes.values > 1_000)
        #expect(outcomes.errors > 300)
    }
}
