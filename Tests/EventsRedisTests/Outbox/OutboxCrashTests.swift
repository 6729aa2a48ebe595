import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

/// What a publishing peer wrote (see Tests/EventsRedisPeer/PublishingPeer.swift).
private struct PublisherOutput {
    var ready: [Int: Int] = [:]
    var sent: [Int: [Int]] = [:]
    /// Dispatches the bridge refused and reported (its publish buffer full while Redis was down).
    var refused: [Int: [Int]] = [:]
    var flushed: [Int: Bool] = [:]
    var errors: [String] = []

    init(file: URL) {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard parts.count == 3, let life = Int(parts[1]) else { continue }
            switch parts[0] {
            case "ready": ready[life] = Int(parts[2].split(separator: "=").last ?? "") ?? -1
            case "sent": if let n = Int(parts[2]) { sent[life, default: []].append(n) }
            case "refused": if let n = Int(parts[2]) { refused[life, default: []].append(n) }
            case "flushed": flushed[life] = parts[2] == "ok"
            case "error": errors.append(parts[2])
            default: break
            }
        }
    }
}

/// Where a kill lands in a round.
enum OutboxKillMoment: String, CaseIterable, CustomStringConvertible {
    /// Redis up, events flowing.
    case redisUp
    /// Redis killed first: the publisher holds what it dispatched since.
    case redisDown
    /// A small file that is compacted every few hundred events.
    case compacting
    /// The moment a compaction has created its copy: killed between the copy's creation and
    /// its rename over the file, as often as the watch sees it.
    case insideCompaction

    var description: String { rawValue }
}

/// The publishing process is killed with SIGKILL at random points and started again on the
/// same outbox: every event whose `dispatch` returned reaches the stream, in order of first
/// arrival, and every copy of an event carries the same CloudEvents id, so receivers suppress
/// it (a receiving bridge here, running through every round, handles each event once).
///
/// `OUTBOX_KILL_ROUNDS` sets how many rounds each moment and sync policy gets (1 by default;
/// `scripts/outbox-kill.sh` runs hundreds), `OUTBOX_KILL_SEED` the seed of the kill points.
@Suite(
    "Outbox: publishing process killed",
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct OutboxCrashTests {
    static let rounds = Int(ProcessInfo.processInfo.environment["OUTBOX_KILL_ROUNDS"] ?? "") ?? 1
    static let seed = UInt64(ProcessInfo.processInfo.environment["OUTBOX_KILL_SEED"] ?? "") ?? 0x0B0C_5EED

    @Test(
        "events whose dispatch returned survive a SIGKILL of their publisher, in order, copies suppressed",
        arguments: [
            (OutboxKillMoment.redisUp, "every"), (.redisDown, "every"), (.compacting, "every"),
            (.insideCompaction, "every"), (.redisDown, "interval"),
        ])
    func killedPublisherLosesNothing(moment: OutboxKillMoment, sync: String) async throws {
        let server = try RedisServer()
        let directory = try OutboxDirectory()
        var generator = SeededGenerator(seed: Self.seed &+ UInt64(moment.hashValue & 0xFF) &+ (sync == "every" ? 0 : 7))
        let errors = ErrorLog()
        let center = EventCenter()
        let handled = LockedBox<[Int: Int]>([:])
        let listener = center.listen(to: Sequenced.self) { event in handled.withLock { $0[event.n, default: 0] += 1 } }
        let receiver = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "receiver", errors: errors))
        try receiver.carry(Sequenced.self, mode: .stream, direction: .incoming)
        try await receiver.start()

        var summary: [String] = []
        // A kill aimed inside a compaction may land just before or after it: such rounds still
        // count, and more are run until one landed inside (the copy is left behind).
        var landedInside = 0
        var round = 0
        while round < Self.rounds || (moment == .insideCompaction && landedInside == 0 && round < 12) {
            round += 1
            let output = directory.url.appendingPathComponent("round-\(round).out")
            let outbox = directory.path("round-\(round).outbox")
            let maximumBytes = moment == .compacting || moment == .insideCompaction ? 512 << 10 : 64 << 20
            let first = (round - 1) * 1_000_000 + 1
            func peer(life: Int, from: Int, to: Int) throws -> PeerProcess {
                try PeerProcess(arguments: [
                    "publish", server.configuration.url, "test:", outbox, sync, String(maximumBytes), output.path,
                    String(life), String(from), String(to),
                ])
            }
            let killAt = Int.random(in: 20...(moment == .compacting ? 3_000 : 400), using: &generator)
            let life1 = try peer(life: 1, from: first, to: first + 999_999)
            #expect(await eventually(timeout: .seconds(30)) { PublisherOutput(file: output).ready[1] != nil })
            if moment == .redisDown {
                #expect(
                    await eventually(timeout: .seconds(30)) {
                        (PublisherOutput(file: output).sent[1]?.count ?? 0) >= killAt / 2
                    })
                server.kill()
            }
            if moment == .insideCompaction {
                let copy = DurableOutbox.compactionPath(outbox)
                #expect(await killOnSight(of: copy, life1), "a compaction began within 30 s")
                if FileManager.default.fileExists(atPath: copy) { landedInside += 1 }
            } else {
                #expect(
                    await eventually(timeout: .seconds(30)) {
                        (PublisherOutput(file: output).sent[1]?.count ?? 0) >= killAt
                    })
                life1.kill()
            }
            if moment == .redisDown { try server.restart() }
            let sent = PublisherOutput(file: output).sent[1] ?? []
            // Reported as not published: never published later either.
            let refused = PublisherOutput(file: output).refused[1] ?? []

            let life2 = try peer(life: 2, from: 0, to: 0)
            #expect(await eventually(timeout: .seconds(40)) { PublisherOutput(file: output).flushed[2] != nil })
            let run = PublisherOutput(file: output)
            #expect(run.flushed[2] == true, "the restarted publisher had Redis acknowledge what its outbox held")
            #expect(await life2.stop() == 0)

            // The stream, as Redis has it.
            let admin = RedisClient(server.configuration)
            let reply = try await admin.send("XRANGE", RedisArgument("test:" + Sequenced.wireName), "-", "+")
            admin.close()
            var idsByNumber: [Int: Set<String>] = [:]
            var firstArrivals: [Int] = []
            var entriesThisRound = 0
            for entry in reply.array ?? [] {
                guard let bytes = entry.array?[1].array?.last?.bytes,
                    let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
                    let id = object["id"] as? String, let data = object["data"] as? [String: Any],
                    let n = data["n"] as? Int, n >= first, n < first + 1_000_000
                else { continue }
                entriesThisRound += 1
                if idsByNumber[n] == nil { firstArrivals.append(n) }
                idsByNumber[n, default: []].insert(id)
            }
            let lost = Set(sent).subtracting(idsByNumber.keys)
            #expect(
                lost.isEmpty, "\(moment) \(sync) round \(round): lost \(lost.sorted().prefix(20)) of \(sent.count) sent"
            )
            #expect(firstArrivals == firstArrivals.sorted(), "\(moment) \(sync) round \(round): order of first arrival")
            let refusedInStream = Set(refused).intersection(idsByNumber.keys)
            #expect(
                refusedInStream.isEmpty, "refused and reported, then published: \(refusedInStream.sorted().prefix(20))")
            let copiesWithOtherIDs = idsByNumber.filter { $0.value.count > 1 }
            #expect(copiesWithOtherIDs.isEmpty, "copies under other ids: \(copiesWithOtherIDs.prefix(5))")
            let copies = entriesThisRound - idsByNumber.count
            // The receiver handles each event once, however many copies reached the stream.
            #expect(
                await eventually(timeout: .seconds(30)) {
                    handled.withLock { counts in Set(sent).allSatisfy { counts[$0] != nil } }
                }, "the receiver handled every event sent")
            let twice = handled.withLock { counts in counts.filter { $0.key >= first && $0.value > 1 } }
            #expect(twice.isEmpty, "handled more than once: \(twice.prefix(5))")
            #expect(run.ready[2] ?? -1 >= 0)
            summary.append(
                "round \(round): killed after \(sent.count) sent, \(run.ready[2] ?? -1) published again, "
                    + "\(copies) copies in the stream, lost \(lost.count)"
                    + (refused.isEmpty ? "" : ", \(refused.count) refused (the buffer full)"))
        }
        if moment == .insideCompaction {
            #expect(landedInside > 0, "no kill of \(round) landed between a compaction's copy and its rename")
            summary.append("\(landedInside) of \(round) kills inside a compaction")
        }
        print("outbox kill, \(moment), sync \(sync): " + summary.joined(separator: "; "))
        await receiver.stop()
        withExtendedLifetime(listener) {}
    }
}

/// One bridge at a time per outbox file, across processes: the lock is the kernel's, held
/// by the process that opened the file, and given back when it stops or dies.
@Suite(
    "Outbox: one holder across processes",
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)))
struct OutboxHolderTests {
    @Test("a file another process holds is refused, here and in a third process, and free once the holder ends")
    func otherProcessHoldsTheFile() async throws {
        let server = try RedisServer()
        let directory = try OutboxDirectory()
        let outbox = directory.path()
        let output = directory.url.appendingPathComponent("peers.out")
        func peer(life: Int, from: Int, to: Int) throws -> PeerProcess {
            try PeerProcess(arguments: [
                "publish", server.configuration.url, "test:", outbox, "every", String(64 << 20), output.path,
                String(life), String(from), String(to),
            ])
        }
        // The holder publishes five events and keeps the file open.
        let holder = try peer(life: 1, from: 1, to: 5)
        #expect(await eventually(timeout: .seconds(30)) { PublisherOutput(file: output).flushed[1] == true })
        let held = try Data(contentsOf: URL(fileURLWithPath: outbox))

        // Another process: its bridge refuses to carry, and it exits with the reason.
        let third = try peer(life: 2, from: 100, to: 100)
        #expect(await third.exitStatus() == 1)
        let refusal = PublisherOutput(file: output).errors.joined(separator: "\n")
        #expect(refusal.contains("outbox \(outbox): another bridge has it open"), "\(refusal)")
        #expect(PublisherOutput(file: output).sent[2] == nil)

        // This process: refused the same way, at carry and at start.
        var configuration = bridgeConfiguration(server, source: "here", errors: ErrorLog())
        configuration.outbox = RedisBridge.Outbox(path: outbox)
        let refused = RedisBridge(center: EventCenter(), configuration: configuration)
        #expect {
            try refused.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        } throws: { error in
            let error = error as? RedisBridgeError
            return error?.code == .outboxUnavailable && error?.path == outbox
                && (error?.reason ?? "").contains("another bridge has it open")
        }
        await #expect(throws: RedisBridgeError.self) { try await refused.start() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: outbox)) == held, "the refusals changed nothing")

        // Once the holder has stopped, the file is free, and what it published is not again.
        #expect(await holder.stop() == 0)
        let next = RedisBridge(center: EventCenter(), configuration: configuration)
        try next.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await next.start()
        #expect(next.statistics.republishedFromOutbox == 0)
        await next.stop()

        // A holder that dies gives the lock back too: the kernel drops it with the process.
        let dying = try peer(life: 3, from: 0, to: 0)
        #expect(await eventually(timeout: .seconds(30)) { PublisherOutput(file: output).ready[3] != nil })
        dying.kill()
        let afterDeath = RedisBridge(center: EventCenter(), configuration: configuration)
        try afterDeath.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        await afterDeath.stop()
    }
}

/// Watches, on a thread of its own, for a file at `path`, and kills `peer` with SIGKILL the
/// moment it appears; false when it did not within 30 s (and the peer was killed then).
private func killOnSight(of path: String, _ peer: PeerProcess) async -> Bool {
    let pid = peer.processIdentifier
    let seen = await withCheckedContinuation { continuation in
        Thread {
            // Polled without a pause: a compaction's copy lives for the few milliseconds of its
            // writes and its fsync, and a kill must land in them.
            let deadline = ContinuousClock.now + .seconds(30)
            var seen = false
            while !seen, ContinuousClock.now < deadline {
                seen = access(path, F_OK) == 0
            }
            sendSignal(SIGKILL, to: pid)
            continuation.resume(returning: seen)
        }.start()
    }
    peer.kill()
    return seen
}
