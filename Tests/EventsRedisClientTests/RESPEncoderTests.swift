import Testing

@testable import EventsRedisClient

@Suite("RESP encoder and arguments")
struct RESPEncoderTests {
    private func encoded(_ command: [RedisArgument]) -> String {
        var buffer: [UInt8] = []
        RESPEncoder.encode(command, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test("writes a command as an array of bulk strings")
    func encodesCommand() {
        #expect(encoded(["SET", "key", "value"]) == "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n")
        #expect(encoded(["PING"]) == "*1\r\n$4\r\nPING\r\n")
    }

    @Test("a command written argument by argument is the command RESPEncoder.encode writes")
    func writesArgumentByArgument() {
        let payload: [UInt8] = [0, 13, 10, 255] + Array(repeating: 120, count: 300)
        var written: [UInt8] = []
        RESPEncoder.appendCommandHeader(argumentCount: 5, to: &written)
        RESPEncoder.appendArgument("XADD", to: &written)
        Array("stream:é".utf8).withUnsafeBytes { RESPEncoder.appendArgument($0, to: &written) }
        RESPEncoder.appendArgument("*", to: &written)
        RESPEncoder.appendArgument("", to: &written)
        payload.withUnsafeBytes { RESPEncoder.appendArgument($0, to: &written) }
        var expected: [UInt8] = []
        RESPEncoder.encode(["XADD", "stream:é", "*", "", RedisArgument(payload)], into: &expected)
        #expect(written == expected)
    }

    @Test("writes integers as decimal text, negative and extreme values included")
    func encodesIntegers() {
        #expect(encoded(["EXPIRE", "k", 60]) == "*3\r\n$6\r\nEXPIRE\r\n$1\r\nk\r\n$2\r\n60\r\n")
        #expect(encoded([0, -7, 1_234_567_890]) == "*3\r\n$1\r\n0\r\n$2\r\n-7\r\n$10\r\n1234567890\r\n")
        #expect(encoded([RedisArgument(Int.min)]) == "*1\r\n$20\r\n-9223372036854775808\r\n")
        #expect(encoded([RedisArgument(Int.max)]) == "*1\r\n$19\r\n9223372036854775807\r\n")
    }

    @Test("writes binary and non-ASCII arguments byte for byte")
    func encodesBinary() {
        var buffer: [UInt8] = []
        RESPEncoder.encode([RedisArgument([0, 13, 10, 255]), "é", RedisArgument("ab:cd".dropFirst(3))], into: &buffer)
        let expected: [UInt8] =
            Array("*3\r\n$4\r\n".utf8) + [0, 13, 10, 255] + Array("\r\n$2\r\n".utf8) + [0xC3, 0xA9]
            + Array("\r\n$2\r\ncd\r\n".utf8)
        #expect(buffer == expected)
    }

    @Test("pipelines several commands into one buffer")
    func encodesPipeline() {
        var buffer: [UInt8] = []
        RESPEncoder.encode([["INCR", "a"], ["GET", "a"]], into: &buffer)
        #expect(
            String(decoding: buffer, as: UTF8.self) == "*2\r\n$4\r\nINCR\r\n$1\r\na\r\n*2\r\n$3\r\nGET\r\n$1\r\na\r\n")
    }

    @Test("arguments compare by their bytes")
    func argumentEquality() {
        #expect(RedisArgument("12") == RedisArgument(12))
        #expect(RedisArgument(Array("x".utf8)) == "x")
        #expect(RedisArgument("x").bytes == [UInt8(ascii: "x")])
    }
}
