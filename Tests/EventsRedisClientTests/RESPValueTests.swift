import Testing

@testable import EventsRedisClient

@Suite("RESP values and errors")
struct RESPValueTests {
    @Test("accessors read strings, integers, arrays and bytes")
    func accessors() {
        #expect(RESPValue.simpleString("OK").string == "OK")
        #expect(RESPValue.bulkString(Array("héllo".utf8)).string == "héllo")
        #expect(RESPValue.integer(3).string == nil)
        #expect(RESPValue.integer(3).int == 3)
        #expect(RESPValue.bulkString(Array("-12".utf8)).int == -12)
        #expect(RESPValue.simpleString("7").int == 7)
        #expect(RESPValue.bulkString(Array("1x".utf8)).int == nil)
        #expect(RESPValue.array([.null]).array == [.null])
        #expect(RESPValue.null.array == nil)
        #expect(RESPValue.bulkString([0, 1]).bytes == [0, 1])
        #expect(RESPValue.null.isNull)
        #expect(!RESPValue.bulkString([]).isNull)
    }

    @Test("description is readable and truncates long bulk strings")
    func descriptions() {
        #expect(RESPValue.simpleString("OK").description == "OK")
        #expect(RESPValue.error("ERR x").description == "(error) ERR x")
        #expect(RESPValue.integer(5).description == "(integer) 5")
        #expect(RESPValue.null.description == "(nil)")
        #expect(RESPValue.bulkString([65, 0, 10, 34]).description == #""A\x00\n\"""#)
        #expect(RESPValue.array([.integer(1), .null]).description == "[(integer) 1, (nil)]")
        let long = RESPValue.bulkString([UInt8](repeating: 97, count: 1000)).description
        #expect(long == "\"" + String(repeating: "a", count: 64) + "\"… (1000 bytes)")
    }

    @Test("server errors expose their code")
    func serverErrorCode() {
        #expect(RedisError.server("NOGROUP No such key 'orders'").serverErrorCode == "NOGROUP")
        #expect(RedisError.server("ERR").serverErrorCode == "ERR")
        #expect(RedisError.connectionClosed.serverErrorCode == nil)
        #expect(RedisError.server("WRONGTYPE x").description == "Redis error reply: WRONGTYPE x")
    }

    @Test("a flat list of names and values reads as fields by name; anything else as none")
    func fields() {
        let reply = RESPValue.array([
            .bulkString(Array("name".utf8)), .bulkString(Array("a".utf8)), .simpleString("lag"), .integer(3),
            .integer(9), .integer(10),
        ])
        #expect(reply.fields == ["name": .bulkString(Array("a".utf8)), "lag": .integer(3)])
        #expect(RESPValue.array([.simpleString("name")]).fields == nil)
        #expect(RESPValue.simpleString("name").fields == nil)
        #expect(RESPValue.null.fields == nil)
        #expect(RESPValue.array([]).fields == [:])
    }
}
