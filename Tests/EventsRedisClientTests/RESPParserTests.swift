import RedisTestSupport
import Testing

@testable import EventsRedisClient

@Suite("RESP parser")
struct RESPParserTests {
    /// Parses every value in `text`, which must hold complete values only.
    private func parseAll(_ bytes: [UInt8], limits: RESPLimits = RESPLimits()) throws(RedisError) -> [RESPValue] {
        var parser = RESPParser(limits: limits)
        parser.append(contentsOf: bytes)
        var values: [RESPValue] = []
        while let value = try parser.next() { values.append(value) }
        #expect(parser.bufferedByteCount == 0)
        return values
    }

    private func parseAll(_ text: String, limits: RESPLimits = RESPLimits()) throws(RedisError) -> [RESPValue] {
        try parseAll(Array(text.utf8), limits: limits)
    }

    /// The error parsing `text` throws, or nil when it does not throw.
    private func failure(_ text: String, limits: RESPLimits = RESPLimits()) -> RedisError? {
        do {
            _ = try parseAll(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// A reply holding every RESP2 type, nested, as the wire carries it.
    static let everyType: RESPValue = .array([
        .simpleString("OK"),
        .error("WRONGTYPE Operation against a key holding the wrong kind of value"),
        .integer(-9_223_372_036_854_775_808),
        .integer(9_223_372_036_854_775_807),
        .bulkString(Array("line\r\nwith\0nul".utf8)),
        .bulkString([]),
        .null,
        .array([]),
        .array([.array([.integer(1), .bulkString(Array("x".utf8))]), .null]),
    ])

    @Test("parses each RESP2 type")
    func parsesEachType() throws {
        #expect(try parseAll("+OK\r\n") == [.simpleString("OK")])
        #expect(try parseAll("+\r\n") == [.simpleString("")])
        #expect(try parseAll("-ERR unknown command 'FOO'\r\n") == [.error("ERR unknown command 'FOO'")])
        #expect(try parseAll(":0\r\n:-42\r\n:+7\r\n") == [.integer(0), .integer(-42), .integer(7)])
        #expect(try parseAll("$5\r\nhello\r\n") == [.bulkString(Array("hello".utf8))])
        #expect(try parseAll("$0\r\n\r\n") == [.bulkString([])])
        #expect(try parseAll("$-1\r\n") == [.null])
        #expect(try parseAll("*-1\r\n") == [.null])
        #expect(try parseAll("*0\r\n") == [.array([])])
        #expect(
            try parseAll("*2\r\n$3\r\nfoo\r\n:1\r\n") == [.array([.bulkString(Array("foo".utf8)), .integer(1)])])
    }

    @Test("parses nested arrays, nulls inside arrays and binary bulk strings")
    func parsesNestedValues() throws {
        #expect(try parseAll(Self.everyType.wireBytes) == [Self.everyType])
        let bytes = Array("*3\r\n*1\r\n*1\r\n:5\r\n$-1\r\n*-1\r\n".utf8)
        #expect(try parseAll(bytes) == [.array([.array([.array([.integer(5)])]), .null, .null])])
    }

    @Test("parses pipelined replies from one buffer, in order")
    func parsesPipelinedReplies() throws {
        var bytes: [UInt8] = []
        for index in 0..<1000 { bytes += RESPValue.integer(index).wireBytes }
        bytes += Self.everyType.wireBytes
        let values = try parseAll(bytes)
        #expect(values.count == 1001)
        #expect(values.prefix(1000) == ArraySlice((0..<1000).map { RESPValue.integer($0) }))
        #expect(values.last == Self.everyType)
    }

    @Test("returns nil until a value is complete, whatever byte it is split at")
    func splitsAtEveryByteBoundary() throws {
        let replies: [RESPValue] = [Self.everyType, .simpleString("PONG"), .integer(12), .null]
        let bytes = replies.flatMap(\.wireBytes)
        for split in 0...bytes.count {
            var parser = RESPParser()
            var values: [RESPValue] = []
            parser.append(contentsOf: bytes[..<split])
            while let value = try parser.next() { values.append(value) }
            parser.append(contentsOf: bytes[split...])
            while let value = try parser.next() { values.append(value) }
            #expect(values == replies, "split at byte \(split)")
        }
    }

    @Test("accepts bytes one at a time")
    func acceptsOneByteAtATime() throws {
        var parser = RESPParser()
        var values: [RESPValue] = []
        for byte in Self.everyType.wireBytes + RESPValue.simpleString("OK").wireBytes {
            parser.append(contentsOf: [byte])
            while let value = try parser.next() { values.append(value) }
        }
        #expect(values == [Self.everyType, .simpleString("OK")])
    }

    @Test("compacts its buffer while keeping unread bytes")
    func compactsBuffer() throws {
        var parser = RESPParser()
        let chunk = RESPValue.bulkString([UInt8](repeating: 7, count: 40_000)).wireBytes
        for round in 0..<20 {
            // Half a value stays buffered across each append, so compaction must keep it.
            parser.append(contentsOf: chunk[..<20_000])
            #expect(try parser.next() == nil, "round \(round)")
            parser.append(contentsOf: chunk[20_000...])
            #expect(try parser.next() == .bulkString([UInt8](repeating: 7, count: 40_000)))
        }
        #expect(parser.bufferedByteCount == 0)
    }

    @Test("rejects an unknown type byte")
    func rejectsUnknownType() {
        #expect(failure("?garbage\r\n") == .protocolViolation("unknown type byte '?'"))
        #expect(failure("%1\r\n") == .protocolViolation("unknown type byte '%'"))
        #expect(failure("\0") == .protocolViolation("unknown type byte 0x0"))
    }

    @Test("rejects lines without CRLF")
    func rejectsMissingCRLF() {
        #expect(failure("+OK\rX") == .protocolViolation("CR not followed by LF at the end of a line"))
        #expect(failure("+OK\n") == .protocolViolation("LF without CR at the end of a line"))
        #expect(failure("$3\r\nabcde\r\n") == .protocolViolation("bulk string of 3 bytes not followed by CRLF"))
        #expect(failure(":1" + String(repeating: "1", count: 40)) != nil)
    }

    @Test("rejects bad lengths and integers")
    func rejectsBadNumbers() {
        #expect(failure("$abc\r\n") == .protocolViolation("invalid bulk string length 'abc'"))
        #expect(failure("$\r\n") == .protocolViolation("invalid bulk string length ''"))
        #expect(failure("*1x\r\n") == .protocolViolation("invalid array length '1x'"))
        #expect(failure("$-2\r\n") == .protocolViolation("negative bulk string length -2"))
        #expect(failure("*-5\r\n") == .protocolViolation("negative array length -5"))
        #expect(
            failure("$99999999999999999999\r\n")
                == .protocolViolation("invalid bulk string length '99999999999999999999'"))
        #expect(failure(":12a\r\n") == .protocolViolation("invalid integer reply '12a'"))
        #expect(failure(":-\r\n") == .protocolViolation("invalid integer reply '-'"))
        #expect(
            failure(":9223372036854775808\r\n") == .protocolViolation("invalid integer reply '9223372036854775808'"))
    }

    @Test("enforces the size limits before allocating")
    func enforcesSizeLimits() {
        let limits = RESPLimits(maxBulkBytes: 10, maxArrayCount: 3, maxNesting: 2)
        // 10 GB declared and not one byte of payload sent: refused from the header alone.
        #expect(failure("$10000000000\r\n") == .frameTooLarge(limit: 64 * 1024 * 1024, declared: 10_000_000_000))
        #expect(failure("$11\r\n", limits: limits) == .frameTooLarge(limit: 10, declared: 11))
        #expect(failure("*4\r\n", limits: limits) == .frameTooLarge(limit: 3, declared: 4))
        #expect(failure("+" + String(repeating: "a", count: 20) + "\r\n", limits: limits) != nil)
        #expect(throws: Never.self) { try parseAll("$10\r\n0123456789\r\n*3\r\n:1\r\n:2\r\n:3\r\n", limits: limits) }
    }

    @Test("enforces the nesting limit")
    func enforcesNestingLimit() throws {
        let limits = RESPLimits(maxNesting: 3)
        #expect(try parseAll("*1\r\n*1\r\n*1\r\n:1\r\n", limits: limits).count == 1)
        #expect(
            failure("*1\r\n*1\r\n*1\r\n*0\r\n", limits: limits)
                == .protocolViolation("arrays nested deeper than 3 levels"))
        // Far deeper than the default limit, and deeper than a stack would survive unchecked.
        let deep = String(repeating: "*1\r\n", count: 100_000) + ":1\r\n"
        #expect(failure(deep) == .protocolViolation("arrays nested deeper than 32 levels"))
    }

    @Test("keeps throwing after a malformed value")
    func staysFailed() {
        var parser = RESPParser()
        parser.append(contentsOf: Array("?x\r\n+OK\r\n".utf8))
        #expect(throws: RedisError.self) { try parser.next() }
        #expect(throws: RedisError.self) { try parser.next() }
    }

    @Test("never traps on random or mutated input (fuzz, fixed seed)")
    func fuzz() async {
        var random = SeededGenerator(seed: 0x5EED_0001)
        let alphabet = Array("+-:$*\r\n0123456789-?abc".utf8) + [0, 255]
        let valid: [[UInt8]] = [
            Self.everyType.wireBytes, RESPValue.simpleString("OK").wireBytes,
            Array("*2\r\n$3\r\nfoo\r\n$-1\r\n".utf8), Array(":123\r\n".utf8),
        ]
        let limits = RESPLimits(maxBulkBytes: 1024, maxArrayCount: 64, maxNesting: 8)
        var outcomes = (values: 0, errors: 0, incomplete: 0)
        for iteration in 0..<5000 {
            await yieldNow(every: 200, at: iteration)
            var bytes: [UInt8]
            if iteration % 2 == 0 {
                let length = Int.random(in: 0..<48, using: &random)
                bytes = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
            } else {
                bytes = valid.randomElement(using: &random)!
                for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                    let index = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: bytes[index] = alphabet.randomElement(using: &random)!
                    case 1: bytes.remove(at: index)
                    default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                    }
                }
            }
            // Feed in two random pieces, as a socket might.
            var parser = RESPParser(limits: limits)
            let split = Int.random(in: 0...bytes.count, using: &random)
            do {
                parser.append(contentsOf: bytes[..<split])
                while try parser.next() != nil { outcomes.values += 1 }
                parser.append(contentsOf: bytes[split...])
                while try parser.next() != nil { outcomes.values += 1 }
                if parser.bufferedByteCount > 0 { outcomes.incomplete += 1 }
            } catch {
                outcomes.errors += 1
            }
        }
        // Every path was exercised: some inputs parse, some fail, some wait for more bytes.
        #expect(outcomes.values > 100)
        #expect(outcomes.errors > 100)
        #expect(outcomes.incomplete > 100)
    }

    /// What `nextFrame` gives for `bytes`, fed in two pieces, with each message frame turned
    /// back into the value `next()` gives for it, so the two can be compared.
    private func frames(_ bytes: [UInt8], split: Int, limits: RESPLimits) -> Result<[RESPValue], RedisError> {
        var parser = RESPParser(limits: limits)
        var values: [RESPValue] = []
        func take() throws(RedisError) {
            while let frame = try parser.nextFrame(message: { channel, payload in
                RESPValue.array([
                    .bulkString(Array("message".utf8)), .bulkString(Array(channel)), .bulkString(Array(payload)),
                ])
            }) {
                switch frame {
                case .message(let value), .value(let value): values.append(value)
                }
            }
        }
        do throws(RedisError) {
            parser.append(contentsOf: bytes[..<split])
            try take()
            parser.append(contentsOf: bytes[split...])
            try take()
            return .success(values)
        } catch {
            return .failure(error)
        }
    }

    @Test("nextFrame takes message frames apart in place and gives every other value as next() does")
    func messageFrames() throws {
        let message = Array("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhe\r\nl\r\n".utf8)
        var parser = RESPParser()
        parser.append(contentsOf: message + RESPValue.simpleString("OK").wireBytes)
        let first = try parser.nextFrame { channel, payload in (Array(channel), Array(payload)) }
        guard case .message(let (channel, payload)) = first else {
            Issue.record("expected a message frame, got \(String(describing: first))")
            return
        }
        #expect(channel == Array("news".utf8))
        #expect(payload == Array("he\r\nl".utf8))
        let second = try parser.nextFrame { _, _ in 0 }
        guard case .value(.simpleString("OK")) = second else {
            Issue.record("expected OK, got \(String(describing: second))")
            return
        }
        #expect(try parser.nextFrame { _, _ in 0 } == nil)
        // A message frame whose payload is not a bulk string is left to the caller as a value.
        var odd = RESPParser()
        odd.append(contentsOf: Array("*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n:5\r\n".utf8))
        guard case .value(let value) = try odd.nextFrame(message: { _, _ in 0 }) else {
            Issue.record("expected a value")
            return
        }
        #expect(value == .array([.bulkString(Array("message".utf8)), .bulkString(Array("c".utf8)), .integer(5)]))
    }

    @Test(
        "nextFrame holds message frames to the limits: a payload or channel one byte over the bulk limit is refused, and so is the frame under an array limit of two"
    )
    func messageFramesAtTheLimit() throws {
        func message(channel: Int, payload: Int) -> [UInt8] {
            RESPValue.array([
                .bulkString(Array("message".utf8)), .bulkString(Array(repeating: 0x63, count: channel)),
                .bulkString(Array(repeating: 0x70, count: payload)),
            ]).wireBytes
        }
        let limits = RESPLimits(maxBulkBytes: 64)
        var parser = RESPParser(limits: limits)
        parser.append(contentsOf: message(channel: 64, payload: 64))
        guard case .message(let sizes) = try parser.nextFrame(message: { ($0.count, $1.count) }) else {
            Issue.record("a frame at the limit was not read as a message")
            return
        }
        #expect(sizes == (64, 64))
        for (channel, payload) in [(64, 65), (65, 1)] {
            var over = RESPParser(limits: limits)
            over.append(contentsOf: message(channel: channel, payload: payload))
            #expect(throws: RedisError.frameTooLarge(limit: 64, declared: 65)) {
                _ = try over.nextFrame { _, _ in 0 }
            }
        }
        // The frame is an array of three: a limit of two arrays refuses it, message or not.
        var narrow = RESPParser(limits: RESPLimits(maxArrayCount: 2))
        narrow.append(contentsOf: message(channel: 1, payload: 1))
        #expect(throws: RedisError.frameTooLarge(limit: 2, declared: 3)) {
            _ = try narrow.nextFrame { _, _ in 0 }
        }
    }

    @Test("nextFrame agrees with next() on mutated message frames (fuzz, fixed seed)")
    func messageFramesFuzz() async {
        var random = SeededGenerator(seed: 0x5EED_0002)
        let alphabet = Array("+-:$*\r\n0123456789-?abcmesag".utf8) + [0, 255]
        let valid: [UInt8] =
            Array("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n".utf8)
            + Array("*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n".utf8)
        let limits = RESPLimits(maxBulkBytes: 1024, maxArrayCount: 64, maxNesting: 8)
        for iteration in 0..<5000 {
            await yieldNow(every: 200, at: iteration)
            var bytes = valid
            for _ in 0..<Int.random(in: 0...3, using: &random) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                }
            }
            let split = Int.random(in: 0...bytes.count, using: &random)
            var parser = RESPParser(limits: limits)
            var expected: [RESPValue] = []
            var expectedError: RedisError?
            do throws(RedisError) {
                parser.append(contentsOf: bytes[..<split])
                while let value = try parser.next() { expected.append(value) }
                parser.append(contentsOf: bytes[split...])
                while let value = try parser.next() { expected.append(value) }
            } catch {
                expectedError = error
            }
            switch frames(bytes, split: split, limits: limits) {
            case .success(let values):
                #expect(expectedError == nil && values == expected, "\(bytes)")
            case .failure(let error):
                #expect(expectedError == error, "\(bytes)")
            }
        }
    }

    @Test("round-trips random well-formed values (fixed seed)")
    func roundTripsRandomValues() throws {
        var random = SeededGenerator(seed: 42)
        func randomValue(depth: Int) -> RESPValue {
            switch Int.random(in: 0..<(depth < 4 ? 7 : 6), using: &random) {
            case 0: return .simpleString(String(repeating: "s", count: Int.random(in: 0..<5, using: &random)))
            case 1: return .error("ERR \(Int.random(in: 0..<100, using: &random))")
            case 2: return .integer(Int.random(in: Int.min...Int.max, using: &random))
            case 3:
                let length = Int.random(in: 0..<300, using: &random)
                return .bulkString((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
            case 4, 5: return .null
            default:
                return .array((0..<Int.random(in: 0..<6, using: &random)).map { _ in randomValue(depth: depth + 1) })
            }
        }
        for _ in 0..<500 {
            let values = (0..<3).map { _ in randomValue(depth: 0) }
            let bytes = values.flatMap(\.wireBytes)
            var parser = RESPParser()
            var parsed: [RESPValue] = []
            var offset = 0
            while offset < bytes.count {
                let step = Int.random(in: 1...64, using: &random)
                parser.append(contentsOf: bytes[offset..<min(offset + step, bytes.count)])
                offset += step
                while let value = try parser.next() { parsed.append(value) }
            }
            #expect(parsed == values)
        }
    }
}
