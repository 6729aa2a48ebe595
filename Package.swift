// swift-tools-version: 6.2
import PackageDescription

// Every target builds in the Swift 6 language mode (complete concurrency checking) and spells
// existential types with `any`, so a reader always sees where dynamic dispatch happens. Imports
// are internal unless written `public import` (so a module's interface shows exactly which
// modules its public API exposes), and a file uses only members of the modules it imports
// itself.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "swift-events",
    // `Synchronization.Atomic` sets the floor on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Events", targets: ["Events"]),
        .library(name: "EventsSVG", targets: ["EventsSVG"]),
        .library(name: "EventsRedisClient", targets: ["EventsRedisClient"]),
        .library(name: "EventsRedis", targets: ["EventsRedis"]),
        .library(name: "EventsRedisTLS", targets: ["EventsRedisTLS"]),
        .library(name: "EventsTesting", targets: ["EventsTesting"]),
        .executable(name: "events-demo", targets: ["events-demo"]),
        .executable(name: "events-bench", targets: ["events-bench"]),
        .executable(name: "events-redis", targets: ["events-redis"]),
    ],
    targets: [
        .target(name: "Events", swiftSettings: strictSettings),
        // The laid-out SVG picture of a topology (layout, routing, drawing), on the public API of
        // Events: only apps that draw the picture link it. DOT and Mermaid text stay in Events.
        .target(name: "EventsSVG", dependencies: ["Events"], swiftSettings: strictSettings),
        // A Redis client of its own (RESP2 over POSIX sockets or a pluggable transport, pipelines,
        // Pub/Sub, Sentinel, Cluster): the toolchain alone, no outside package and not `Events`,
        // so that it can be used without the bridge.
        .target(name: "EventsRedisClient", swiftSettings: strictSettings),
        // The Redis bridge, on the client above (which it re-exports).
        .target(name: "EventsRedis", dependencies: ["Events", "EventsRedisClient"], swiftSettings: strictSettings),
        // TLS for the Redis client, over the system's OpenSSL 3 (libssl): its own product, so that
        // users without TLS link nothing new. Set `configuration.transport = .tls`. It plugs into
        // the client's transport protocol and needs nothing of the bridge.
        .target(
            name: "EventsRedisTLS", dependencies: ["EventsRedisClient", "CEventsRedisOpenSSL"],
            swiftSettings: strictSettings),
        .systemLibrary(
            name: "CEventsRedisOpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // Test support for apps that use Events: a recorder of events, waits and expectations
        // that record Swift Testing issues, leak checks, and a clock the test advances.
        .target(name: "EventsTesting", dependencies: ["Events"], swiftSettings: strictSettings),
        // Starts private redis-server processes for the Redis tests, the demo and the benchmark.
        // Not a product: users never see it.
        .target(
            name: "RedisServerSupport", dependencies: ["EventsRedisClient", "EventsRedisTLS"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "events-demo", dependencies: ["Events", "EventsRedis", "EventsSVG", "RedisServerSupport"],
            resources: [.copy("Resources/movies.json")],
            swiftSettings: strictSettings),
        // The operator command: status, dead letters, tail and layout checks, on the public API of
        // the bridge and the client only, so that everything it shows is there for users' own tools.
        .executableTarget(
            name: "events-redis", dependencies: ["Events", "EventsRedis", "EventsRedisClient", "EventsRedisTLS"],
            swiftSettings: strictSettings),
        // Measurement helpers for the benchmark: they count heap allocations and read heap usage on
        // Linux (glibc); elsewhere they report "unsupported".
        .target(name: "EventsBenchSupport"),
        // The benchmark: `swift run -c release events-bench` (Docs/Performance.md).
        .executableTarget(
            name: "events-bench",
            dependencies: ["Events", "EventsBenchSupport", "EventsRedis", "EventsRedisTLS", "RedisServerSupport"],
            swiftSettings: strictSettings),
        // A receiving process that the Redis tests kill (SIGKILL) mid-stream and start again; they
        // find it beside their own executable. Not a product.
        .executableTarget(
            name: "events-redis-peer", dependencies: ["Events", "EventsRedis", "RedisTestSupport"],
            path: "Tests/EventsRedisPeer",
            swiftSettings: strictSettings),
        // A long run of the core under churn that samples resident memory: `bash scripts/soak.sh`.
        .executableTarget(name: "events-soak", dependencies: ["Events"], swiftSettings: strictSettings),
        // The fault campaign: random fault schedules over real Redis processes and a checker of
        // the history (scripts/fault-campaign.sh; a short run is a test in FaultCampaignTests).
        .target(
            name: "FaultCampaign", dependencies: ["Events", "EventsRedis", "RedisServerSupport", "RedisTestSupport"],
            path: "Tests/FaultCampaign", swiftSettings: strictSettings),
        .executableTarget(
            name: "events-fault-campaign", dependencies: ["FaultCampaign"], path: "Tests/FaultCampaignTool",
            swiftSettings: strictSettings),
        // What the topology tests of Events and of EventsSVG share: sample topologies, hostile
        // labels, an XML reader for the SVG. Not a product.
        .target(
            name: "TopologyTestSupport", dependencies: ["Events"], path: "Tests/TopologyTestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "EventsTests", dependencies: ["Events", "EventsTesting", "TopologyTestSupport"],
            swiftSettings: strictSettings),
        // Deprecations are errors here: the tests call `svg(title:)` with both modules imported,
        // and must get EventsSVG's picture, not the deprecated plain listing of Events.
        .testTarget(
            name: "EventsSVGTests", dependencies: ["EventsSVG", "Events", "TopologyTestSupport"],
            swiftSettings: strictSettings + [.treatWarning("DeprecatedDeclaration", as: .error)]),
        .testTarget(
            name: "EventsTestingTests", dependencies: ["EventsTesting", "Events"], swiftSettings: strictSettings),
        // What both Redis test targets use: polling and gates, fake and faulty servers, a
        // Sentinel topology, TLS servers, complexity checks. Not a product.
        .target(
            name: "RedisTestSupport", dependencies: ["EventsRedisClient", "RedisServerSupport"],
            path: "Tests/RedisTestSupport", swiftSettings: strictSettings),
        .testTarget(
            name: "EventsRedisClientTests",
            dependencies: ["EventsRedisClient", "EventsRedisTLS", "RedisServerSupport", "RedisTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "FaultCampaignTests", dependencies: ["FaultCampaign", "RedisServerSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "EventsRedisTests",
            dependencies: [
                "EventsRedis", "EventsRedisClient", "EventsRedisTLS", "EventsTesting", "RedisServerSupport",
                "RedisTestSupport",
            ],
            swiftSettings: strictSettings
        ),
        // Runs the built `events-redis` binary, found beside the test executable, against real
        // servers that real bridges wrote to.
        .testTarget(
            name: "EventsRedisCommandTests",
            dependencies: ["EventsRedis", "RedisServerSupport", "RedisTestSupport"],
            swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
