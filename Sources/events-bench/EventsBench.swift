import EventsRedis
import Foundation

// The swift-events benchmark. Every scenario is measured beside its baselines in the same run:
// a plain array of closures (the limit) and Foundation's NotificationCenter (block API with a
// userInfo payload; the typed MainActorMessage and AsyncMessage where they exist).
//
//   swift run -c release events-bench            the table, with every target judged
//   swift run -c release events-bench --json     the same figures as one JSON document on stdout
//   swift run -c release events-bench --quick    a smoke test: few iterations, 1 repeat, no verdicts
//   swift run -c release events-bench --only dispatch-1,listen-cancel
//
// Targets are printed as met / not met, never asserted: the exit status says only whether the
// benchmark ran.

@main
struct EventsBench {
    /// A scenario: its identifier (for `--only`) and how to measure it.
    struct Scenario {
        let id: String
        let run: @MainActor (Effort) async -> ScenarioReport
    }

    static let scenarios: [Scenario] = [
        Scenario(id: "dispatch-1") { await dispatchScenario(listeners: 1, effort: $0) },
        Scenario(id: "dispatch-10") { await dispatchScenario(listeners: 10, effort: $0) },
        Scenario(id: "dispatch-100") { await dispatchScenario(listeners: 100, effort: $0) },
        Scenario(id: "dispatch-1000") { await dispatchScenario(listeners: 1_000, effort: $0) },
        Scenario(id: "dispatch-1-among-10000") { await unrelatedListenersScenario(effort: $0) },
        Scenario(id: "listen-cancel") { await listenCancelScenario(effort: $0) },
        Scenario(id: "two-threads") { await twoThreadsScenario(effort: $0) },
        Scenario(id: "bytes-per-registration") { await bytesPerRegistrationScenario(effort: $0) },
        Scenario(id: "allocations-per-dispatch") { await allocationsScenario(effort: $0) },
        Scenario(id: "async-delivery") { await asyncDeliveryScenario(effort: $0) },
        Scenario(id: "main-actor-burst") { await mainActorScenario(burst: burstSize, effort: $0) },
        Scenario(id: "main-actor-round-trip") { await mainActorScenario(burst: 1, effort: $0) },
        Scenario(id: "redis-deduplication") { await deduplicationScenario(effort: $0) },
        Scenario(id: "redis-pubsub-latency") { await redisLatencyScenario(mode: .pubSub, effort: $0) },
        Scenario(id: "redis-stream-latency") { await redisLatencyScenario(mode: .stream, effort: $0) },
        Scenario(id: "redis-pubsub-throughput") { await redisThroughputScenario(mode: .pubSub, effort: $0) },
        Scenario(id: "redis-stream-throughput") { await redisThroughputScenario(mode: .stream, effort: $0) },
        Scenario(id: "redis-stream-replication") { await redisReplicationScenario(effort: $0) },
        Scenario(id: "redis-stream-outbox") { await redisOutboxScenario(effort: $0) },
        Scenario(id: "redis-pubsub-tls") { await redisTLSScenario(mode: .pubSub, effort: $0) },
        Scenario(id: "redis-stream-tls") { await redisTLSScenario(mode: .stream, effort: $0) },
        Scenario(id: "redis-cluster-stream-throughput") { await redisClusterThroughputScenario(effort: $0) },
    ]

    static let usage = """
        usage: events-bench [--quick] [--json] [--only ID[,ID...]]
          --quick   few iterations and 1 repeat (a smoke test; targets are not judged)
          --json    print one JSON document on stdout instead of the table
          --only    run only these scenarios: \(scenarios.map(\.id).joined(separator: ", "))
        """

    @MainActor
    static func main() async {
        var quick = false
        var json = false
        var only: Set<String>? = nil
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--json": json = true
            case "--only":
                guard let list = arguments.popFirst() else { fail("--only needs a list of scenarios") }
                only = Set(list.split(separator: ",").map(String.init))
            case "--help", "-h":
                print(usage)
                return
            default: fail("unknown argument \"\(argument)\"")
            }
        }
        if let only, let unknown = only.first(where: { id in !scenarios.contains { $0.id == id } }) {
            fail("unknown scenario \"\(unknown)\"")
        }

        let effort = quick ? Effort.quick : Effort.full
        var reports: [ScenarioReport] = []
        for scenario in scenarios where only?.contains(scenario.id) ?? true {
            progress("measuring \(scenario.id)")
            reports.append(await scenario.run(effort))
        }
        BenchRedis.shutDown()
        let method =
            quick
            ? "quick smoke test: batches of ~1 ms, 1 repeat, no warm-up; figures are rough, targets are not judged"
            : "median of \(effort.repeats) batches of ~\(Int(effort.batch.nanoseconds / 1e6)) ms after "
                + "\(effort.warmups) warm-up, contenders measured round-robin in one process"
        let report = BenchmarkReport(
            mode: quick ? "quick" : "full", machine: .current(), method: method, scenarios: reports)
        if json {
            do {
                print(try report.json())
            } catch {
                fail("could not encode the report: \(error)")
            }
        } else {
            print(report.table())
        }
    }

    /// Progress goes to stderr so that `--json` keeps stdout to the document alone.
    static func progress(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    static func fail(_ message: String) -> Never {
        progress("events-bench: " + message + "\n" + usage)
        exit(2)
    }
}
