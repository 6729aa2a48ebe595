import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

@Suite("Receiver crash", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct ReceiverCrashTests {
    /// A receiving process (the `events-redis-peer` executable) is killed with SIGKILL while a
    /// publisher here sends a run of stream events, and started again with the same consumer
    /// name. Every event must be handled; an event may be handled in both lives only if its
    /// entry was still pending (delivered, not acknowledged) when the first life died, as
    /// at-least-once across a crash allows; within each life no event is handled twice,
    /// whatever Redis hands over again.
    @Test(
        "A receiving process killed mid-stream and restarted loses no stream event, and repeats only what was pending")
    func receiverKilledMidStream() async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let output = server.directory.appendingPathComponent("peer.out")
        let stream = RedisArgument("test:" + Sequenced.wireName)
        let total = 600
        // The first life holds in the handler of this event until it is killed.
        let killPoint = total / 5
        func startPeer(life: Int) async throws -> PeerProcess {
            let peer = try PeerProcess(arguments: [
                server.configuration.url, "worker", "test:", output.path, String(life),
                life == 1 ? String(killPoint) : "0",
            ])
            #expect(await eventually { PeerOutput(file: output).ready.contains(life) }, "life \(life) started")
            return peer
        }

        let first = try await startPeer(life: 1)
        let center = EventCenter()
        let publisher = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "p", errors: errors))
        try publisher.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await publisher.start()
        // Events go out in three parts: before the kill, while no receiver runs, and after the
        // restarted receiver lost its connections.
        func publish(_ numbers: ClosedRange<Int>) {
            for n in numbers { center.dispatch(Sequenced(n: n)) }
        }
        publish(1...(total / 3))

        // Kill it once it is well into the run, holding an event it has not acknowledged.
        #expect(
            await eventually { PeerOutput(file: output).deliveries.count >= killPoint },
            "the first life reached event \(killPoint)")
        first.kill()
        let handledAtKill = PeerOutput(file: output).deliveries.count
        // What the dead consumer left pending: the only entries a restart may deliver again.
        let admin = RedisClient(server.configuration)
        let pendingReply = try await admin.send("XPENDING", stream, "worker", "-", "+", "10000", "worker")
        let pendingAtKill = Set((pendingReply.array ?? []).compactMap { $0.array?.first?.string })
        #expect(!pendingAtKill.isEmpty, "the kill left the held event pending")
        publish((total / 3 + 1)...(total * 2 / 3))

        let second = try await startPeer(life: 2)
        // Drop the restarted consumer's connections once, mid-stream: it re-reads its pending
        // entries, and suppresses those it had already handled.
        var connectionsKilled = 0
        #expect(await eventually { !PeerOutput(file: output).deliveries(inLife: 2).isEmpty })
        let clients = try await admin.send("CLIENT", "LIST").string ?? ""
        for line in clients.split(separator: "\n") where line.contains("name=peer-worker") {
            if let id = line.split(separator: " ").first?.split(separator: "=").last {
                if (try? await admin.send("CLIENT", "KILL", "ID", RedisArgument(String(id)))) != nil {
                    connectionsKilled += 1
                }
            }
        }

        publish((total * 2 / 3 + 1)...total)
        #expect(await publisher.flush(timeout: .seconds(15)))
        #expect(
            await eventually {
                Set(PeerOutput(file: output).deliveries.map(\.n)) == Set(1...total)
            })
        // Redis hands the restarted consumer an event it already handled (as a publisher's
        // retry after a lost reply would): suppressed, and counted.
        let last = try await admin.send("XREVRANGE", stream, "+", "-", "COUNT", "1")
        let lastEvent = try #require(last.array?.first?.array?[1].array?.last?.bytes)
        _ = try await admin.send("XADD", stream, "*", "event", RedisArgument(lastEvent))
        #expect(try await eventually { (try await admin.send("XPENDING", stream, "worker")).array?.first?.int == 0 })
        #expect(await second.stop() == 0, "the restarted peer stopped cleanly")

        let run = PeerOutput(file: output)
        let firstLife = run.deliveries(inLife: 1)
        let secondLife = run.deliveries(inLife: 2)
        let lost = Set(1...total).subtracting(run.deliveries.map(\.n))
        #expect(lost.isEmpty, "lost: \(lost.sorted())")
        for (life, deliveries) in [(1, firstLife), (2, secondLife)] {
            let repeated = deliveries.count - Set(deliveries.map(\.n)).count
            #expect(repeated == 0, "life \(life) handled \(repeated) events twice")
        }
        // Across the crash: only what was pending at the kill comes again.
        let handledInFirst = Set(firstLife.map(\.n))
        let again = secondLife.filter { handledInFirst.contains($0.n) }
        #expect(again.allSatisfy { pendingAtKill.contains($0.entryID) }, "repeated beyond the pending entries")
        let stats = try #require(run.stats[2])
        #expect(stats.delivered == secondLife.count)
        #expect(stats.suppressed >= 1, "the handed-over duplicate was suppressed and counted")
        #expect(errors.all.isEmpty, "\(errors.all)")
        print(
            "receiver crash: killed after \(handledAtKill)/\(total) handled, \(pendingAtKill.count) entries pending; "
                + "restarted: \(secondLife.count) handled, \(again.count) of them again across the crash; "
                + "\(connectionsKilled) of its connections killed, \(run.errors.count) errors reported; "
                + "\(stats.suppressed) redeliveries suppressed within the second life; lost \(lost.count)")
        admin.close()
        await publisher.stop()
    }
}
