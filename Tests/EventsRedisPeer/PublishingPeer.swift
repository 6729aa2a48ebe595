import Events
import EventsRedis
import Foundation
import RedisTestSupport
import Synchronization

// The publishing half of the peer, for the tests that kill a publishing process with SIGKILL
// while it has events Redis has not acknowledged (Tests/EventsRedisTests/Outbox):
//
//   events-redis-peer publish <redis URL> <key prefix> <outbox path> <every|interval> <max bytes>
//                             <output file> <life> <first n> <last n>
//
// It carries `Sequenced` to its stream with an outbox, and dispatches events numbered from
// <first n> to <last n> (none when <first n> is 0), one line per dispatch that has returned,
// written straight to the descriptor, so that a kill loses no line of a dispatch that returned:
//
//   ready <life> republished=<n>      once start() has returned
//   sent <life> <n>                   per dispatch returned, the event accepted
//   refused <life> <n>                per dispatch returned, the event refused and reported
//                                     (the publish buffer or the outbox full)
//   error <life> <description>        per error the bridge reports
//   flushed <life> <ok|timeout>       after the last dispatch, once Redis has every event
//
// Then it waits for "stop" on standard input, and exits by itself after two minutes whatever
// happens.
func runPublishingPeer(_ arguments: [String]) async -> Never {
    guard arguments.count == 9, let redis = try? RedisConfiguration(url: arguments[0]),
        arguments[3] == "every" || arguments[3] == "interval", let maximumBytes = Int(arguments[4]),
        let output = LineFile(path: arguments[5]), let first = Int(arguments[7]), let last = Int(arguments[8])
    else {
        FileHandle.standardError.write(
            Data(
                "usage: events-redis-peer publish URL PREFIX OUTBOX every|interval MAX_BYTES FILE LIFE FIRST LAST\n"
                    .utf8))
        exit(2)
    }
    let life = arguments[6]
    DispatchQueue.global().asyncAfter(deadline: .now() + 120) { exit(3) }

    var configuration = RedisBridge.Configuration(redis: redis, source: "publisher")
    configuration.keyPrefix = arguments[1]
    configuration.outbox = RedisBridge.Outbox(
        path: arguments[2], sync: arguments[3] == "every" ? .everyEvent : .interval(.milliseconds(50)),
        maximumBytes: maximumBytes)
    // The handler runs on the dispatching thread, inside `dispatch`: a refusal it counts
    // belongs to the event being dispatched.
    let refusals = Atomic<Int>(0)
    configuration.errorHandler = { error in
        if error.code == .publishBufferFull || error.code == .outboxFull { refusals.add(1, ordering: .relaxed) }
        output.write("error \(life) \(error)")
    }
    let center = EventCenter()
    let bridge = RedisBridge(center: center, configuration: configuration)
    do {
        try bridge.carry(Sequenced.self, mode: .stream, direction: .outgoing)
        try await bridge.start()
    } catch {
        output.write("error \(life) \(error)")
        exit(1)
    }
    output.write("ready \(life) republished=\(bridge.statistics.republishedFromOutbox)")
    if first > 0 {
        for n in first...last {
            let before = refusals.load(ordering: .relaxed)
            center.dispatch(Sequenced(n: n))
            let refused = refusals.load(ordering: .relaxed) != before
            output.write("\(refused ? "refused" : "sent") \(life) \(n)")
        }
    }
    let flushed = await bridge.flush(timeout: .seconds(30))
    output.write("flushed \(life) \(flushed ? "ok" : "timeout")")
    await waitForStopOnStandardInput()
    await bridge.stop()
    exit(0)
}
