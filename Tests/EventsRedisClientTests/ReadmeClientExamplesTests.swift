import EventsRedisClient
import RedisServerSupport
import Testing

// The README's example of the Redis client on its own, compiled and run against a private
// server: if this file stops compiling, the README is wrong.

private func countVisit(on client: RedisClient) async throws(RedisError) -> Int {
    let replies = try await client.pipeline([["INCR", "visits"], ["EXPIRE", "visits", 3600]])
    return replies.first?.int ?? 0
}

private func ensureGroup(on client: RedisClient) async throws(RedisError) {
    do {
        try await client.send("XGROUP", "CREATE", "orders", "workers", "$", "MKSTREAM")
    } catch let error where error.serverErrorCode == "BUSYGROUP" {
        // the group exists already
    }
}

@Suite(
    "README: the Redis client on its own",
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct ReadmeClientExamplesTests {
    @Test("the README's client example counts visits and creates a group once, twice without an error")
    func clientExample() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }

        #expect(try await countVisit(on: client) == 1)
        #expect(try await countVisit(on: client) == 2)
        try await ensureGroup(on: client)
        try await ensureGroup(on: client)  // BUSYGROUP, caught
        let groups = try await client.send("XINFO", "GROUPS", "orders")
        #expect(groups.array?.count == 1)
    }

    @Test("an error other than BUSYGROUP leaves the README's ensureGroup, with its code")
    func otherErrorsPropagate() async throws {
        let server = try RedisServer()
        let client = RedisClient(server.configuration)
        defer { client.close() }
        try await client.send("SET", "orders", "not a stream")
        do {
            try await ensureGroup(on: client)
            Issue.record("expected WRONGTYPE")
        } catch {
            #expect(error.code == .server)
            #expect(error.serverErrorCode == "WRONGTYPE")
        }
    }
}
