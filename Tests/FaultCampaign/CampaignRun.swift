import Events
import EventsRedis
package import Foundation
import RedisServerSupport

/// One schedule over one topology: the publisher and the consumers, each a process of their
/// own, run while the nemesis plays the schedule's faults; then everything heals, the publisher
/// flushes, the consumers catch up, all stop, and the checker reads the history.
package struct CampaignRun: Sendable {
    package struct Result: Sendable {
        package var history: History
        /// The broken promises the guarantee does not allow: a run passes without any.
        package var violations: [Checker.Violation]
        /// What the guarantee allows (after a failover, or a Pub/Sub loss reported), seen in this run.
        package var allowed: [Checker.Violation]
        package var faults: [FaultKind: Int]
        package var schedule: Schedule
        /// How long the publisher dispatched while faults came: with the seed, it decides the schedule.
        package var length: Duration
        /// Errors the consumer and publisher lives reported: they show a fault was noticed.
        package var errorsReported: Int
        /// Whether, once healed, every group read and settled every entry within the bound;
        /// a run that did not is a failure of its own (the checks then show what was left).
        package var settled: Bool
        /// When the groups did not settle: what the last check still found.
        package var waitingFor: String
        /// Whether, once healed, the publisher's flush saw Redis acknowledge everything its
        /// lives had dispatched (a sent event that did not reach Redis is then lost).
        package var flushed: Bool
        /// When it did not: the last errors the publisher's last life reported, which tell why.
        package var publisherSaidLast: String

        /// How to run this schedule again.
        package var rerun: String {
            "scripts/fault-campaign.sh --topology \(history.topology) --seed \(history.seed) "
                + "--length \(Int(length.seconds))"
        }
    }

    package var topology: Topology
    package var seed: UInt64
    /// How long the publisher dispatches while faults come.
    package var length: Duration = .seconds(6)
    /// The campaign executable, run in its consumer and publisher modes.
    package var executable: URL

    package init(topology: Topology, seed: UInt64, length: Duration = .seconds(6), executable: URL) {
        self.topology = topology
        self.seed = seed
        self.length = length
        self.executable = executable
    }

    package func run() async throws -> Result {
        let schedule = Schedule(seed: seed, topology: topology, length: length)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("events-fault-campaign-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let deployment = try await Deployment(topology)
        deployment.noteRoles()
        let consumers = [("a", "a1"), ("a", "a2"), ("b", "b1")].map { group, name in
            ConsumerProcess(
                group: group, name: name, executable: executable, spec: deployment.spec, directory: directory,
                seed: seed)
        }
        defer { for consumer in consumers { consumer.kill() } }
        for consumer in consumers { try await blocking { try consumer.start() } }

        // Every life of the publisher dispatches until this deadline, what is left of it.
        let deadline = ContinuousClock.now + length
        let publisher = PublisherProcess(
            executable: executable, spec: deployment.spec, seed: seed, directory: directory, deadline: deadline)
        defer { publisher.kill() }
        _ = try await blocking { try publisher.start() }
        let nemesis = Nemesis(deployment: deployment, consumers: consumers, publisher: publisher)
        let (faultLines, counts) = await blocking { nemesis.play(schedule, until: deadline) }

        // Heal, then let everything settle before reading the history. A publisher killed last
        // starts again, to publish what its outbox holds, and flushes once its window is over.
        let healState = try await blocking {
            let state = try deployment.heal()
            for consumer in consumers {
                consumer.resume()
                if !consumer.isRunning { try consumer.start() }
            }
            if !publisher.isRunning { try publisher.start() }
            return state
        }
        let flushed = await blocking { publisher.flush(timeout: .seconds(30)) }
        let client = deployment.client
        defer { client.close() }
        let (settled, waitingFor) = await Quiescence.wait(client, groups: ["a", "b"], within: .seconds(60))
        for consumer in consumers { await blocking { consumer.stop() } }
        // A failover Sentinel began while the network hid every node ends only after the heal.
        await blocking { deployment.noteRoles() }

        var history = History(seed: seed, topology: topology)
        history.groups = ["a", "b"]
        history.faults = faultLines
        history.failedOver = deployment.roleChanges > 0
        history.deadLetters = try await FinalState.deadLetters(spec: deployment.spec)
        history.finalStreams = try await FinalState.streams(client)
        await blocking { publisher.stop() }
        var errors = 0
        for (life, text) in publisher.logs() {
            errors += PublisherLog.read(text, life: life.name, fromStep: life.fromStep, into: &history)
        }
        for consumer in consumers {
            for (life, text) in consumer.logs() {
                errors += ConsumerLog.read(text, life: life, group: consumer.group, into: &history)
            }
        }
        var waiting = waitingFor
        if !settled {
            if !healState.isEmpty { waiting += "; " + healState }
            if topology == .sentinel {
                waiting += "; at the end, " + (await blocking { deployment.replicationState() })
            }
            // What the consumers said last tells why they did not catch up.
            for consumer in consumers {
                for (life, text) in consumer.logs() {
                    let errors = text.split(separator: "\n").filter { $0.hasPrefix("error") }.suffix(3)
                    if !errors.isEmpty { waiting += "; \(life) said last: " + errors.joined(separator: " | ") }
                }
            }
        }
        let lastErrors = publisher.logs().last.map { life in
            life.text.split(separator: "\n").filter { $0.hasPrefix("error") }.suffix(3).joined(separator: " | ")
        }
        let found = Checker.check(history)
        return Result(
            history: history, violations: found.filter { !$0.allowed }, allowed: found.filter(\.allowed),
            faults: counts, schedule: schedule, length: length, errorsReported: errors, settled: settled,
            waitingFor: waiting, flushed: flushed, publisherSaidLast: flushed ? "" : lastErrors ?? "")
    }
}

/// Runs `body` on a thread of its own, for work that blocks (starting and killing processes),
/// so that it holds none of the concurrency pool's few threads.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
    }
}

func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
