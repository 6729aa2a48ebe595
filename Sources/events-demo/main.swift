import Foundation

// The swift-events demo: each scene is a small app story, printed as a timeline.
//
//   swift run events-demo            every scene, in this order
//   swift run events-demo posts      typed events: a dispatcher, listeners, removal, owner lifetime
//   swift run events-demo movies     a background load delivered to main-actor listeners
//   swift run events-demo shapes     named events with typed payload keys, bridged to NotificationCenter
//   swift run events-demo names      names qualified by their enum, NotificationCenter both ways
//   swift run events-demo delegates  one delegate slot fanned out to many delegates
//   swift run events-demo shop       current values, a validator that stops checkout, a held deep link
//   swift run events-demo redis      two processes joined by the Redis bridge (streams and Pub/Sub)
//
// Several scenes may be named at once (`swift run events-demo posts redis`). At the end the
// demo draws the event flow of its run in .build/events-demo/event-flow.svg (another path with
// `--flow PATH`).

let scenes: [(name: String, run: @MainActor () async -> Void)] = [
    ("posts", runPostsDemo),
    ("movies", runMoviesDemo),
    ("shapes", runShapesDemo),
    ("names", runNamesDemo),
    ("delegates", runDelegatesDemo),
    ("shop", runShopDemo),
    ("redis", runRedisDemo),
]

/// Also accepted: the feature a scene is about (`MulticastDelegate`, `EventNamespace`).
let aliases = ["multicast": "delegates", "namespaced": "names", "namespaces": "names"]

var requested = Array(CommandLine.arguments.dropFirst())
var flowPath = ".build/events-demo/event-flow.svg"
if let flag = requested.firstIndex(of: "--flow") {
    guard flag + 1 < requested.count else {
        print("--flow needs a path: swift run events-demo --flow event-flow.svg")
        exit(2)
    }
    flowPath = requested[flag + 1]
    requested.removeSubrange(flag...(flag + 1))
}
// The redis scene starts this executable again as its worker process.
if requested.first == "redis-worker", let url = requested.dropFirst().first {
    exit(await runRedisWorker(url: url))
}
if requested.isEmpty {
    for scene in scenes { await scene.run() }
} else {
    for argument in requested {
        let name = aliases[argument] ?? argument
        guard let scene = scenes.first(where: { $0.name == name }) else {
            print("unknown scene \"\(argument)\"; available: \(scenes.map(\.name).joined(separator: ", "))")
            exit(2)
        }
        await scene.run()
    }
}
EventFlow.write(to: flowPath)
