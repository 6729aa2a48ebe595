import FaultCampaign
import Foundation
import RedisServerSupport
import Testing

/// A short campaign: fixed seeds per topology, so that a run in CI is reproducible; the long,
/// random campaign is `scripts/fault-campaign.sh`.
@Suite(
    "Fault campaign", .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason)),
    .serialized)
struct CampaignTests {
    /// The campaign executable, built beside the test executable by `swift build --build-tests`.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("events-fault-campaign")
    }

    /// Two per topology; one per topology in a build a sanitizer instruments, whose consumer
    /// and publisher processes run many times slower. Chosen for what they play: 1002, 2021
    /// and 3016 kill the publisher (2021 also under a sanitizer) while the network holds or
    /// drops what it sends; 1001 kills a consumer, 2002 and 3001 kill Redis, 2021 and 3016 ask
    /// for a failover.
    static let schedules: [(Topology, UInt64)] = [
        (.single, 1001), (.single, 1002), (.sentinel, 2002), (.sentinel, 2021), (.cluster, 3001), (.cluster, 3016),
    ].filter { !underSanitizer || $0.1 % 2 == 1 }

    /// Whether the thread or the address sanitizer instruments this process: their runtimes
    /// define these entry points.
    static let underSanitizer: Bool = {
        let process = dlopen(nil, RTLD_NOW)
        defer { if let process { dlclose(process) } }
        return dlsym(process, "__tsan_init") != nil || dlsym(process, "__asan_init") != nil
    }()

    @Test(
        "a random fault schedule breaks none of the bridge's promises", .timeLimit(.minutes(5)),
        arguments: schedules.map { "\($0.0) \($0.1)" })
    func scheduleKeepsPromises(_ name: String) async throws {
        let (topology, seed) = try #require(Self.schedules.first { "\($0.0) \($0.1)" == name })
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.executable.path),
            "build with `swift build --build-tests` first")
        let result = try await CampaignRun(
            topology: topology, seed: seed, length: .seconds(5), executable: Self.executable
        ).run()
        print(
            "fault campaign \(topology) seed \(seed): \(result.history.dispatched.count) events "
                + "over \(result.history.publisherLives.count) publisher lives, "
                + "\(result.history.deliveries.count) deliveries, \(result.history.deadLetters.count) dead letters, "
                + "faults: \(result.history.faults.joined(separator: "; "))")
        let violations = result.violations.count
        #expect(
            violations == 0,
            "\(result.violations.prefix(10).map(\.description).joined(separator: "\n")) — \(result.rerun)")
        // Plain values, so that a failure prints its message rather than the whole history.
        let settled = result.settled
        #expect(settled, "every entry settled once the faults were healed: \(result.waitingFor) — \(result.rerun)")
        let flushed = result.flushed
        #expect(flushed, "once healed, Redis acknowledged everything the publisher dispatched — \(result.rerun)")
        if result.faults[.killPublisher, default: 0] > 0 {
            let lives = result.history.publisherLives.count
            #expect(lives > 1, "a killed publisher started again, where its last life left the workload")
        }
        let faultsPlayed = result.history.faults.count
        #expect(faultsPlayed > 0, "the nemesis played faults")
        // How many events a run gets through depends on the machine's load; that some were
        // confirmed (their dispatch returned) is what the checks above need. (Poison events,
        // which always fail, are held by the checker to end as dead letters: a stream event no
        // group settled is a violation.)
        let confirmed = result.history.confirmed.count
        #expect(confirmed > 0, "the publisher had events confirmed")
    }
}
