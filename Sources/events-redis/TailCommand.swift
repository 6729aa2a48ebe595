import EventsRedis
import Foundation

/// `events-redis tail TYPE`: prints the events of a type as they are published, one CloudEvents
/// JSON document per line, until interrupted, until standard output closes, or after `--count`.
///
/// A stream is followed with `XREAD` from its last entry, outside every consumer group, so that
/// tailing takes nothing from the bridges that consume it; a Pub/Sub type is followed with
/// `SUBSCRIBE` (`SSUBSCRIBE` on a cluster), as one more subscriber.
struct TailCommand {
    enum Mode: String {
        case stream, pubsub
    }

    let access: RedisAccess
    let type: String
    let mode: Mode?
    let run: TailRun

    func execute() async throws(CommandFailure) -> ExitStatus {
        let inventory = try await Inventory.discover(access, types: [type])
        let scheme = access.options.scheme
        var chosen = mode
        if chosen == nil {
            if inventory.types[type] != nil {
                chosen = .stream
            } else if try await access.subscribers(of: scheme.channel(type)) > 0 {
                chosen = .pubsub
            } else {
                throw .notFound(
                    "no stream and no subscribed channel of \(type) under the key prefix '\(scheme.prefix)'; "
                        + "give --mode stream or --mode pubsub to wait for its first event")
            }
        }
        switch chosen {
        case .pubsub:
            try await followChannel(scheme.channel(type))
        case .stream, nil:
            // Every partition below the highest found: one that nothing was written to yet exists
            // only once its first event comes, and is followed from its start.
            let found = inventory.types[type] ?? TypeStreams(type: type, hasPlainStream: true)
            var keys = found.hasPlainStream ? [scheme.plainKey(type)] : []
            keys += (0..<found.partitionCount).map { scheme.partitionKey(type, $0) }
            try await followStreams(keys)
        }
        return .success
    }

    // MARK: - Streams

    private func followStreams(_ keys: [String]) async throws(CommandFailure) {
        var positions: [String] = []
        let replies = try await access.pipeline(keys.map { ["XINFO", "STREAM", RedisArgument($0)] })
        for reply in replies {
            // A stream that is not there yet is read from its first entry, whenever it comes.
            positions.append(Fields(reply)?["last-generated-id"]?.string ?? "0-0")
        }
        // One command reads streams of one slot only: on a cluster each stream has a reader.
        let readers: [[(String, String)]] =
            access.options.isCluster ? zip(keys, positions).map { [$0] } : [Array(zip(keys, positions))]
        Output.error("events-redis: following \(type) on \(plural(keys.count, "stream")); stop with Ctrl-C")
        let configuration = access.options.redis
        let run = self.run
        let type = self.type
        var readerTasks: [@Sendable () async throws -> Void] = []
        for reader in readers {
            let client = RedisClient(configuration)
            run.onStop { client.close() }
            readerTasks.append { try await Self.read(reader, client: client, run: run, type: type) }
        }
        try await Self.untilFirstEnds(run, readerTasks)
    }

    private static func read(_ streams: [(String, String)], client: RedisClient, run: TailRun, type: String)
        async throws(CommandFailure)
    {
        var positions = streams
        let block = 1000
        while !run.isStopped {
            let reply: RESPValue
            do {
                reply = try await client.send(
                    ["XREAD", "COUNT", "100", "BLOCK", RedisArgument(block), "STREAMS"]
                        + positions.map { RedisArgument($0.0) } + positions.map { RedisArgument($0.1) },
                    timeout: .milliseconds(block) + client.configuration.replyTimeout)
            } catch {
                if run.isStopped { return }
                throw .redis(error.description)
            }
            for stream in reply.array ?? [] {
                guard let parts = stream.array, parts.count == 2, let key = parts[0].string,
                    let index = positions.firstIndex(where: { $0.0 == key })
                else { continue }
                for entry in parts[1].array ?? [] {
                    guard let entryParts = entry.array, entryParts.count == 2, let id = entryParts[0].string else {
                        continue
                    }
                    positions[index].1 = id
                    let fields = entryParts[1].array ?? []
                    let message = stride(from: 0, to: fields.count - 1, by: 2).first { fields[$0].string == "event" }
                        .flatMap { fields[$0 + 1].bytes }
                    guard let message else {
                        Output.error("events-redis: skipped entry \(id) of \(key): no event field")
                        continue
                    }
                    guard emit(message, from: "entry \(id) of \(key)", run: run) else { return }
                }
            }
        }
    }

    // MARK: - Pub/Sub

    private func followChannel(_ channel: String) async throws(CommandFailure) {
        let subscriber = RedisSubscriber(access.options.redis)
        let run = self.run
        let type = self.type
        run.onStop { subscriber.close() }
        try await Self.untilFirstEnds(
            run,
            [
                {
                    for try await event in subscriber.events(channels: [channel]) {
                        switch event {
                        case .subscribed:
                            Output.error("events-redis: following \(type) on channel \(channel); stop with Ctrl-C")
                        case .reconnected(let cause):
                            Output.error(
                                "events-redis: subscribed again after \(cause); events published meanwhile are lost")
                        case .message(let message):
                            guard Self.emit(message.payload, from: "a message on \(channel)", run: run) else { return }
                        }
                    }
                }
            ])
    }

    // MARK: - Both

    /// Prints the events of `message` that are CloudEvents; false once the run is over.
    private static func emit(_ message: [UInt8], from origin: String, run: TailRun) -> Bool {
        guard let events = CloudEventLines.events(in: message) else {
            Output.error("events-redis: skipped \(origin): a batch that is not closed")
            return !run.isStopped
        }
        for event in events {
            do {
                _ = try CloudEvent(json: Array(event))
            } catch {
                Output.error("events-redis: skipped \(origin): not a CloudEvent (\(error))")
                continue
            }
            guard run.emit(CloudEventLines.oneLine(event)) else { return false }
        }
        return !run.isStopped
    }

    /// Runs `tasks` and a watch of standard output until the first of them ends, then ends the
    /// run, which ends the others (their connections close).
    private static func untilFirstEnds(_ run: TailRun, _ tasks: [@Sendable () async throws -> Void])
        async throws(CommandFailure)
    {
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in tasks { group.addTask(operation: task) }
                group.addTask { await watchStandardOutput(run) }
                defer { run.stop() }
                try await group.next()
                run.stop()
                try await group.waitForAll()
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch let error as RedisError {
            throw .redis(error.description)
        } catch {
            throw .redis("\(error)")
        }
    }

    /// Ends the run when the reader of standard output goes away, even while no event comes.
    private static func watchStandardOutput(_ run: TailRun) async {
        while !run.isStopped {
            if Output.isStandardOutputClosed {
                run.stop()
                return
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// One tail's progress, shared by its readers and the signal handlers: how many events it has
/// printed, and whether it is over.
final class TailRun: Sendable {
    private struct State {
        var printed = 0
        var stopped = false
        var onStop: [@Sendable () -> Void] = []
    }

    /// Stop after this many events; nil: never.
    let limit: Int?
    private let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var state = State()

    init(limit: Int?) {
        self.limit = limit
    }

    var isStopped: Bool { lock.withLock { state.stopped } }

    /// Prints one event's line; false when the run is over (the count reached, or standard
    /// output closed). Printed under the lock, so that lines of two readers never interleave
    /// and `--count` is exact.
    func emit(_ line: [UInt8]) -> Bool {
        let (written, done) = lock.withLock { () -> (Bool, Bool) in
            guard !state.stopped else { return (false, true) }
            guard Output.line(bytes: line) else { return (false, true) }
            state.printed += 1
            return (true, limit.map { state.printed >= $0 } ?? false)
        }
        if done { stop() }
        return written && !done
    }

    /// Ends the run: the readers' connections are closed, which ends their blocked reads.
    func stop() {
        let actions: [@Sendable () -> Void] = lock.withLock {
            guard !state.stopped else { return [] }
            state.stopped = true
            defer { state.onStop = [] }
            return state.onStop
        }
        for action in actions { action() }
    }

    /// Runs `action` when the run ends (at once when it has ended).
    func onStop(_ action: @escaping @Sendable () -> Void) {
        let now: Bool = lock.withLock {
            guard !state.stopped else { return true }
            state.onStop.append(action)
            return false
        }
        if now { action() }
    }
}
