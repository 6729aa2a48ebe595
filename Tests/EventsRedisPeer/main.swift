import Events
import EventsRedis
import Foundation
import RedisTestSupport

// A receiving process for the Redis tests that kill one with SIGKILL mid-stream and start it
// again (Tests/EventsRedisTests/ReceiverCrashTests.swift), or with `publish` first a publishing
// one (PublishingPeer.swift). Not a product: the tests find it beside their own executable.
//
//   events-redis-peer <redis URL> <consumer name> <key prefix> <output file> <life> <hold at>
//
// It carries `Sequenced` from its stream as consumer <consumer name> of the group of the same
// name, and appends one line per event it handles to <output file>, each written straight to the
// descriptor, so that a kill loses no line of an event handled before it. The handler of event
// number <hold at> (0: none) writes its line and then never returns, so that a test killing the
// peer then knows that entry, and those read with it, are delivered but not acknowledged:
//
//   ready <life>                              once start() has returned
//   event <life> <n> <stream entry id>        per delivered event
//   error <life> <description>                per error the bridge reports
//   stats <life> delivered=<d> suppressed=<s> after "stop" on standard input, before exit 0
//
// It stops cleanly when standard input says "stop" or closes (the test went away), and exits
// by itself after two minutes whatever happens.

struct Sequenced: RemoteEvent {
    static let wireName = "com.example.test.sequenced"
    let n: Int
}

// The publishing peer has its own usage (PublishingPeer.swift).
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "publish" {
    await runPublishingPeer(Array(CommandLine.arguments.dropFirst(2)))
}

let arguments = CommandLine.arguments
guard arguments.count == 7, let redis = try? RedisConfiguration(url: arguments[1]),
    let output = LineFile(path: arguments[4]), let holdAt = Int(arguments[6])
else {
    FileHandle.standardError.write(Data("usage: events-redis-peer URL CONSUMER PREFIX FILE LIFE HOLD_AT\n".utf8))
    exit(2)
}
let consumer = arguments[2]
let life = arguments[5]

// Bounded in time whatever the test does.
DispatchQueue.global().asyncAfter(deadline: .now() + 120) { exit(3) }

var configuration = RedisBridge.Configuration(redis: redis, source: consumer)
configuration.redis.clientName = "peer-\(consumer)"
configuration.keyPrefix = arguments[3]
configuration.readBlock = .milliseconds(100)
configuration.errorHandler = { error in output.write("error \(life) \(error)") }
let center = EventCenter()
let bridge = RedisBridge(center: center, configuration: configuration)
let listener = center.listen(to: Sequenced.self) { event, sender in
    let entry = sender?.object(as: RemoteOrigin.self)?.streamEntryID ?? "?"
    output.write("event \(life) \(event.n) \(entry)")
    if event.n == holdAt { DispatchSemaphore(value: 0).wait() }  // until the test kills the peer
}
do {
    try bridge.carry(Sequenced.self, mode: .stream, direction: .incoming)
    try await bridge.start()
} catch {
    output.write("error \(life) \(error)")
    exit(1)
}
output.write("ready \(life)")

await waitForStopOnStandardInput()
await bridge.stop()
let statistics = bridge.statistics
output.write("stats \(life) delivered=\(statistics.delivered) suppressed=\(statistics.duplicatesSuppressed)")
withExtendedLifetime(listener) {}
exit(0)
