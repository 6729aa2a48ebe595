import Foundation

// The swift-events demo: the seed scenarios, end to end.
//
//   swift run events-demo           every scenario
//   swift run events-demo posts     seed 000: dispatcher, listeners, removal, owner lifetime
//   swift run events-demo movies    seed 001: background load, main-actor listeners
//   swift run events-demo delegates seed 003: one delegate slot fanned out to many delegates
//   swift run events-demo shapes    seed 002: a rectangle model posts named events with typed keys
//   swift run events-demo names     seed 004: names namespaced by their enum, bridged to NotificationCenter
//   swift run events-demo redis     two processes joined by the Redis bridge (streams and Pub/Sub)

let scenarios: [(name: String, run: @MainActor () async -> Void)] = [
    ("posts", runPostsDemo),
    ("movies", runMoviesDemo),
    ("delegates", runMulticastDemo),
    ("shapes", runShapesDemo),
    ("names", runNamespacedDemo),
    ("redis", runRedisDemo),
]

let requested = CommandLine.arguments.dropFirst()
// The redis scenario starts this executable again as its worker process.
if requested.first == "redis-worker", let url = requested.dropFirst().first {
    exit(await runRedisWorker(url: url))
}
if requested.isEmpty {
    for scenario in scenarios { await scenario.run() }
} else {
    for name in requested {
        guard let scenario = scenarios.first(where: { $0.name == name }) else {
            print("unknown scenario \"\(name)\"; available: \(scenarios.map(\.name).joined(separator: ", "))")
            exit(2)
        }
        await scenario.run()
    }
}
