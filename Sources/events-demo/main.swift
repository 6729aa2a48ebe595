import Foundation

// The swift-events demo: the seed scenarios, end to end.
//
//   swift run events-demo           every scenario
//   swift run events-demo posts     seed 000: dispatcher, listeners, removal, owner lifetime
//   swift run events-demo movies    seed 001: background load, main-actor listeners
//   swift run events-demo delegates seed 003: one delegate slot fanned out to many delegates

let scenarios: [(name: String, run: @MainActor () async -> Void)] = [
    ("posts", runPostsDemo),
    ("movies", runMoviesDemo),
    ("delegates", runMulticastDemo),
]

let requested = CommandLine.arguments.dropFirst()
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
