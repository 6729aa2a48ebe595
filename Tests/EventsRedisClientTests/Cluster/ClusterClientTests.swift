import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedisClient

@Suite("Cluster slots and redirections")
struct ClusterSlotTests {
    @Test("slots are CRC16 (XMODEM) of the key modulo 16384, of the hash tag alone when there is one")
    func slotsOfKeys() {
        // The check value of CRC16/XMODEM for "123456789" is 0x31C3.
        #expect(ClusterSlot.of("123456789") == 0x31C3)
        #expect(ClusterSlot.of("{user1000}.following") == ClusterSlot.of("user1000"))
        #expect(ClusterSlot.of("a{user1000}b{other}") == ClusterSlot.of("user1000"))
        // An empty tag does not count: the whole key is hashed.
        #expect(ClusterSlot.of("foo{}{bar}") != ClusterSlot.of("bar"))
        #expect(ClusterSlot.of("foo{{bar}}zap") == ClusterSlot.of("{bar"))
        #expect(ClusterSlot.of("") == 0)
    }

    @Test("MOVED and ASK replies are read as redirections; anything else is not")
    func redirections() {
        let node = RedisClusterConfiguration.Address(host: "10.0.0.1", port: 7000)
        #expect(
            ClusterSlotMap.redirection(in: .error("MOVED 3999 127.0.0.1:6381"), from: node)
                == .init(isAsk: false, slot: 3999, address: .init(host: "127.0.0.1", port: 6381)))
        #expect(
            ClusterSlotMap.redirection(in: .error("ASK 1 :7001"), from: node)?.address
                == .init(host: "10.0.0.1", port: 7001))
        #expect(ClusterSlotMap.redirection(in: .error("MOVED 99999 h:1"), from: node) == nil)
        #expect(ClusterSlotMap.redirection(in: .error("ERR MOVED"), from: node) == nil)
        #expect(ClusterSlotMap.redirection(in: .simpleString("MOVED 1 h:1"), from: node) == nil)
    }

    @Test("a CLUSTER SLOTS reply gives each range's master; an empty host means the node asked")
    func slotsReply() throws {
        let asked = RedisClusterConfiguration.Address(host: "10.0.0.9", port: 7000)
        let reply = RESPValue.array([
            .array([.integer(0), .integer(99), .array([.bulkString(Array("10.0.0.1".utf8)), .integer(7001)])]),
            .array([.integer(100), .integer(16_383), .array([.bulkString([]), .integer(7002)])]),
        ])
        let map = try #require(ClusterSlotMap.fromSlots(reply, asked: asked))
        #expect(map.owner(of: 99) == .init(host: "10.0.0.1", port: 7001))
        #expect(map.owner(of: 100) == .init(host: "10.0.0.9", port: 7002))
        #expect(map.coversEverySlot)
        #expect(ClusterSlotMap.fromSlots(.array([.array([.integer(5), .integer(1)])]), asked: asked) == nil)
    }

    @Test("a CLUSTER SHARDS reply gives each shard's live master; a failed one leaves its slots unowned")
    func shardsReply() throws {
        func fields(_ pairs: [(String, RESPValue)]) -> RESPValue {
            .array(pairs.flatMap { [RESPValue.bulkString(Array($0.0.utf8)), $0.1] })
        }
        func text(_ value: String) -> RESPValue { .bulkString(Array(value.utf8)) }
        let reply = RESPValue.array([
            fields([
                ("slots", .array([.integer(0), .integer(10), .integer(20), .integer(30)])),
                (
                    "nodes",
                    .array([
                        fields([
                            ("ip", text("10.0.0.2")), ("port", .integer(7002)), ("role", text("replica")),
                            ("health", text("online")),
                        ]),
                        fields([
                            ("ip", text("10.0.0.1")), ("port", .integer(7001)), ("tls-port", .integer(8001)),
                            ("role", text("master")), ("health", text("online")),
                        ]),
                    ])
                ),
            ]),
            fields([
                ("slots", .array([.integer(11), .integer(19)])),
                (
                    "nodes",
                    .array([
                        fields([
                            ("ip", text("10.0.0.3")), ("port", .integer(7003)), ("role", text("master")),
                            ("health", text("fail")),
                        ])
                    ])
                ),
            ]),
        ])
        let asked = RedisClusterConfiguration.Address(host: "10.0.0.9", port: 7000)
        let map = try #require(ClusterSlotMap.fromShards(reply, asked: asked, useTLSPort: false))
        #expect(map.owner(of: 0) == .init(host: "10.0.0.1", port: 7001))
        #expect(map.owner(of: 25) == .init(host: "10.0.0.1", port: 7001))
        #expect(map.owner(of: 15) == nil)
        #expect(!map.coversEverySlot)
        let overTLS = try #require(ClusterSlotMap.fromShards(reply, asked: asked, useTLSPort: true))
        #expect(overTLS.owner(of: 0)?.port == 8001)
    }

    @Test("the key of a command is found by the command's rule")
    func commandKeys() {
        #expect(ClusterCommandKey.slot(of: ["GET", "k"]) == ClusterSlot.of("k"))
        #expect(ClusterCommandKey.slot(of: ["XGROUP", "CREATE", "s", "g", "$"]) == ClusterSlot.of("s"))
        #expect(
            ClusterCommandKey.slot(of: ["XREADGROUP", "GROUP", "g", "c", "COUNT", 5, "STREAMS", "s", ">"])
                == ClusterSlot.of("s"))
        #expect(ClusterCommandKey.slot(of: ["EVAL", "return 1", 1, "k"]) == ClusterSlot.of("k"))
        #expect(ClusterCommandKey.slot(of: ["EVAL", "return 1", 0]) == nil)
        #expect(ClusterCommandKey.slot(of: ["PING"]) == nil)
        #expect(ClusterCommandKey.slot(of: ["WAIT", 1, 100]) == nil)
    }
}

extension ClusterTopologyTests {
    @Suite("Cluster client")
    struct ClusterClientTests {
        @Test(
            "the client computes the slot the server computes, puts keys on every shard, and keeps keyless commands beside their neighbours"
        )
        func keysOnEveryShard() async throws {
            let cluster = try RedisCluster(masters: 3)
            let keys = (0..<60).map { "key:\($0)" } + ["{tag}a", "{tag}b", "x{}y", "caf\u{E9}"]
            for key in keys { #expect(ClusterSlot.of(key) == (try cluster.slot(ofKey: key))) }
            let client = RedisClient(cluster.clientConfiguration)
            defer { client.close() }
            #expect(!client.isConnected, "nothing connects before the first command")
            for key in keys {
                #expect(try await client.send(["SET", RedisArgument(key), RedisArgument(key + "!")]).string == "OK")
            }
            #expect(client.isConnected, "connected to the masters it sent commands to")
            for master in cluster.masters { #expect((try cluster.command(on: master, ["DBSIZE"]).int ?? 0) > 0) }
            // One pipeline over every shard: replies come back in the order of the commands.
            let replies = try await client.pipeline(keys.map { ["GET", RedisArgument($0)] })
            #expect(replies.map(\.string) == keys.map { $0 + "!" })
            // A keyless command goes with the keyed one before it, else with the one after it.
            for master in cluster.masters {
                let key = try #require(keys.first { (try? cluster.owner(ofKey: $0)) === master })
                let after = try await client.pipeline([["GET", RedisArgument(key)], ["INFO", "server"]])
                #expect(after[1].string?.contains("tcp_port:\(master.port)\r\n") == true)
                let before = try await client.pipeline([["INFO", "server"], ["GET", RedisArgument(key)]])
                #expect(before[0].string?.contains("tcp_port:\(master.port)\r\n") == true)
            }
            // A transaction goes whole to its slot's owner.
            let transaction = try await client.pipeline([
                ["MULTI"], ["INCR", "{tag}n"], ["INCR", "{tag}n"], ["EXEC"],
            ])
            #expect(transaction.last?.array?.map(\.int) == [1, 2])
        }

        @Test("after a slot moves, the client follows MOVED to the new owner")
        func followsMoved() async throws {
            let cluster = try RedisCluster(masters: 3)
            let client = RedisClient(cluster.clientConfiguration)
            defer { client.close() }
            try await client.send("SET", "moving", "1")
            let owner = try cluster.owner(ofKey: "moving")
            let target = try #require(cluster.masters.first { $0 !== owner })
            try cluster.migrate(slot: try cluster.slot(ofKey: "moving"), to: target)
            #expect(errorCode { try cluster.command(on: owner, ["GET", "moving"]) } == "MOVED")
            #expect(try await client.send("GET", "moving").string == "1")
            #expect(try await client.send("INCR", "moving").int == 2)
            #expect(try cluster.command(on: target, ["GET", "moving"]).string == "2")
        }

        @Test("while a slot migrates, the client follows ASK for keys already moved and for new keys")
        func followsAsk() async throws {
            let cluster = try RedisCluster(masters: 3)
            let client = RedisClient(cluster.clientConfiguration)
            defer { client.close() }
            // Two keys of one slot: one is moved first, the other stays on the source for a while.
            try await client.send("SET", "{m}moved", "a")
            try await client.send("SET", "{m}stays", "b")
            let owner = try cluster.owner(ofKey: "{m}moved")
            let target = try #require(cluster.masters.first { $0 !== owner })
            let migration = try cluster.beginMigration(slot: try cluster.slot(ofKey: "{m}"), to: target)
            try cluster.command(on: owner, ["MIGRATE", "127.0.0.1", RedisArgument(target.port), "{m}moved", 0, 5000])
            #expect(errorCode { try cluster.command(on: owner, ["GET", "{m}moved"]) } == "ASK")
            #expect(try await client.send("GET", "{m}moved").string == "a")
            #expect(try await client.send("GET", "{m}stays").string == "b")
            // A key that exists nowhere yet is created on the target, where the slot is going.
            #expect(try await client.send("SET", "{m}new", "c").string == "OK")
            try cluster.finish(migration)
            #expect(
                try await client.pipeline([["GET", "{m}moved"], ["GET", "{m}stays"], ["GET", "{m}new"]]).map(\.string)
                    == [
                        "a", "b", "c",
                    ])
        }

        @Test("when a master dies, the client follows the cluster to the replica promoted in its place")
        func followsFailover() async throws {
            let cluster = try RedisCluster(masters: 3, replicasPerMaster: 1)
            let client = RedisClient(cluster.clientConfiguration)
            defer { client.close() }
            try await client.send("SET", "durable", "1")
            let owner = try cluster.owner(ofKey: "durable")
            try cluster.command(on: owner, ["WAIT", 1, 2000])
            let promoted = try cluster.killAndFailOver(owner)
            #expect(try await client.send("GET", "durable").string == "1")
            #expect(try await client.send("INCR", "durable").int == 2)
            #expect(try cluster.command(on: promoted, ["GET", "durable"]).string == "2")
        }
    }
}
