import FaultCampaign
import Foundation

// The fault campaign: random fault schedules over real redis-server processes, each checked
// afterwards (see Tests/FaultCampaign). Run it through scripts/fault-campaign.sh:
//
//   events-fault-campaign [--topology single|sentinel|cluster|all] [--schedules N]
//                         [--seed S] [--length SECONDS]
//
// Without --seed, the first seed is drawn at random and printed; schedule i uses seed + i.
// A --seed without --schedules runs that one schedule.
// Exits 1 when any schedule breaks a promise. `events-fault-campaign consumer ...` and
// `events-fault-campaign publisher ...` are the consumer and publisher processes the runs
// start, not meant to be run by hand.

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "consumer" {
    exit(await ConsumerMain.run(Array(arguments.dropFirst())))
}
if arguments.first == "publisher" {
    exit(await PublisherMain.run(Array(arguments.dropFirst())))
}

var options: [String: String] = [:]
var index = 0
while index + 1 < arguments.count {
    options[arguments[index]] = arguments[index + 1]
    index += 2
}
let topologies: [Topology] =
    switch options["--topology"] ?? "all" {
    case "all": Topology.allCases
    case let name: Topology(rawValue: name).map { [$0] } ?? []
    }
guard !topologies.isEmpty else {
    FileHandle.standardError.write(Data("unknown topology \(options["--topology"] ?? "")\n".utf8))
    exit(2)
}
// One schedule for a seed given alone (to run it again); otherwise 3 unless told.
let schedules = Int(options["--schedules"] ?? (options["--seed"] == nil ? "3" : "1")) ?? 3
let firstSeed = options["--seed"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(UInt32.max))
let length = Duration.seconds(Int(options["--length"] ?? "6") ?? 6)
let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()

print("fault campaign: \(schedules) schedule(s) per topology from seed \(firstSeed), \(length) of faults each")
var summary = CampaignSummary()
var failed = false
for topology in topologies {
    for offset in 0..<schedules {
        let seed = firstSeed &+ UInt64(offset)
        do {
            let result = try await CampaignRun(topology: topology, seed: seed, length: length, executable: executable)
                .run()
            summary.add(result)
            let faults = result.faults.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
            print(
                "\(topology) seed \(seed): \(result.history.dispatched.count) events "
                    + "(\(result.history.confirmed.count) sent) over \(result.history.publisherLives.count) "
                    + "publisher lives, \(result.history.deliveries.count) deliveries, "
                    + "faults: \(faults.joined(separator: ", "))"
                    + (result.history.failedOver ? ", failed over; " : "; ")
                    + "\(result.violations.count) violation(s), \(result.allowed.count) allowed, explained")
            for allowed in result.allowed.prefix(5) { print("  allowed: " + "\(allowed)") }
            if !result.flushed {
                print(
                    "  the publisher's flush after the heal did not see Redis acknowledge everything; "
                        + "it said last: \(result.publisherSaidLast)")
            }
            if !result.settled {
                print("  the consumers did not settle every entry within 60 s of the heal: \(result.waitingFor)")
            }
            if !result.violations.isEmpty || !result.settled {
                failed = true
                print("  schedule: \(result.schedule)")
                print("  faults played: \(result.history.faults.joined(separator: "; "))")
                for violation in result.violations.prefix(20) { print("  " + "\(violation)") }
                print("  rerun: \(result.rerun)")
            }
        } catch {
            failed = true
            print("\(topology) seed \(seed): the run itself failed: \(error)")
        }
    }
}
print("")
print(summary.table)
exit(failed ? 1 : 0)
