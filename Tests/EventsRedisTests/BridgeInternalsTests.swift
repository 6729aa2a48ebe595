import RedisTestSupport
import Testing

@testable import EventsRedis

@Suite("Bridge internals")
struct BridgeInternalsTests {
    /// Keeps the routes of the messages these tests make, for the whole run: a message's route
    /// must outlive it, and the queues under test come and go.
    static let routes = PublishQueue(capacity: 1)

    /// Message `n`, with the id "n".
    func message(_ n: Int, key: String = "k", bytes: Int? = nil) -> OutboundMessage {
        OutboundMessage(
            route: Self.routes.route(type: "t", key: key, idPrefix: ""), idNumber: UInt64(n),
            payload: bytes.map { Array(repeating: 0x61, count: $0) } ?? Array("\(n)".utf8))
    }

    @Test("The publish queue is bounded, keeps order and hands out batches until removed")
    func publishQueueBounds() {
        let queue = PublishQueue(capacity: 3)
        #expect(queue.enqueue(message(1)) && queue.enqueue(message(2)) && queue.enqueue(message(3)))
        #expect(!queue.enqueue(message(4)), "a full queue rejects")
        #expect(queue.peekBatch(limit: 2).map(\.id) == ["1", "2"])
        #expect(queue.peekBatch(limit: 2).map(\.id) == ["1", "2"], "a batch stays queued until removed")
        queue.removeFirst(2)
        #expect(queue.enqueue(message(5)))
        #expect(queue.peekBatch(limit: 10).map(\.id) == ["3", "5"])
    }

    @Test("A queue makes one route per type, key and id prefix, and a message reads its id, type and key from it")
    func publishQueueRoutes() {
        let queue = PublishQueue(capacity: 4)
        let route = queue.route(type: "order-placed", key: "events:orders", idPrefix: "9f3a-")
        #expect(queue.route(type: "order-placed", key: "events:orders", idPrefix: "9f3a-") === route)
        #expect(queue.route(type: "order-placed", key: "events:other", idPrefix: "9f3a-") !== route)
        #expect(queue.route(type: "order-shipped", key: "events:orders", idPrefix: "9f3a-") !== route)
        #expect(queue.route(type: "order-placed", key: "events:orders", idPrefix: "77c1-") !== route)
        #expect(queue.enqueue(OutboundMessage(route: route, idNumber: 41, payload: [1, 2, 3])))
        // The messages read their route, which the queue keeps: the queue must outlive the reads.
        withExtendedLifetime(queue) {
            let queued = queue.peekBatch(limit: 1)
            #expect(queued.map(\.id) == ["9f3a-41"])
            #expect(queued.map(\.type) == ["order-placed"])
            #expect(queued.map(\.key) == ["events:orders"])
            #expect(queued.map(\.payload) == [[1, 2, 3]])
        }
    }

    @Test("Refused messages stay at the head, in order, ahead of newer ones")
    func publishQueueKeepsRefused() async {
        let queue = PublishQueue(capacity: 10)
        for n in 1...5 { _ = queue.enqueue(message(n)) }
        let batch = queue.peekBatch(limit: 4)
        _ = queue.enqueue(message(6))
        queue.removeFirst(batch.count, keeping: [1, 3])
        #expect(queue.peekBatch(limit: 10).map(\.id) == ["2", "4", "5", "6"])
        // A flush from before waits for the kept ones.
        let flushed = Counter()
        let flushing = Task {
            await queue.flush()
            flushed.increment()
        }
        #expect(await eventually { queue.waitingFlushes == 1 })
        queue.removeFirst(3)
        await waitToShowNothingArrives(for: .milliseconds(20))
        #expect(flushed.value == 0, "message 6 was enqueued before the flush")
        queue.removeFirst(1)
        await flushing.value
        #expect(flushed.value == 1)
    }

    @Test(
        "Random enqueues, batches and removals keeping refused messages match a plain array, across wrap-arounds and growth"
    )
    func publishQueueMatchesModel() {
        var generator = SeededGenerator(seed: 0x9E3779B9)
        let queue = PublishQueue(capacity: 100)
        var model: [Int] = []
        var next = 0
        for _ in 0..<5_000 {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                for _ in 0..<Int.random(in: 0...40, using: &generator) {
                    let accepted = queue.enqueue(message(next))
                    #expect(accepted == (model.count < 100))
                    if accepted { model.append(next) }
                    next += 1
                }
            case 1:
                let skipping = Int.random(in: 0...5, using: &generator)
                let limit = Int.random(in: 1...60, using: &generator)
                let expected = model.dropFirst(skipping).prefix(limit).map(String.init)
                #expect(queue.peekBatch(skipping: skipping, limit: limit).map(\.id) == expected)
            default:
                let removed = min(model.count, Int.random(in: 0...30, using: &generator))
                let kept = (0..<removed).filter { _ in Int.random(in: 0..<4, using: &generator) == 0 }
                queue.removeFirst(removed, keeping: kept)
                if removed > kept.count {
                    model = kept.map { model[$0] } + model.dropFirst(removed)
                }
            }
            #expect(queue.count == model.count)
        }
        #expect(queue.peekBatch(limit: 200).map(\.id) == model.map(String.init))
    }

    @Test("Every enqueue wakes the publisher, outside the queue's lock")
    func publishQueueWakes() {
        let queue = PublishQueue(capacity: 10)
        let wakes = Counter()
        queue.setWaker {
            // Reading the queue here would deadlock if the waker ran under its lock.
            _ = queue.peekBatch(limit: 1)
            wakes.increment()
        }
        _ = queue.enqueue(message(1))
        _ = queue.enqueue(message(2))
        #expect(wakes.value == 2)
        _ = queue.close()
        _ = queue.enqueue(message(3))
        #expect(wakes.value == 2, "a closed queue neither accepts nor wakes")
    }

    @Test("flush waits for the messages enqueued before it, not for later ones")
    func publishQueueFlush() async {
        let queue = PublishQueue(capacity: 10)
        _ = queue.enqueue(message(1))
        _ = queue.enqueue(message(2))
        let flushed = Counter()
        let flushing = Task {
            await queue.flush()
            flushed.increment()
        }
        // The flush must have begun before message 3 comes, or it would wait for 3 as well.
        #expect(await eventually { queue.waitingFlushes == 1 })
        _ = queue.enqueue(message(3))
        queue.removeFirst(1)
        await waitToShowNothingArrives(for: .milliseconds(20))
        #expect(flushed.value == 0, "message 2 was enqueued before the flush")
        queue.removeFirst(1)
        await flushing.value
        #expect(flushed.value == 1)
        #expect(queue.count == 1)
    }

    @Test("close reports what was left and accepts nothing more")
    func publishQueueClose() {
        let queue = PublishQueue(capacity: 10)
        _ = queue.enqueue(message(1))
        #expect(queue.close() == 1)
        #expect(queue.peekBatch(limit: 1).isEmpty)
        #expect(!queue.enqueue(message(2)), "a closed queue accepts nothing")
    }

    @Test("Messages kept at the head come first in the next batch and hold back the flushes that include them")
    func publishQueueKeepsRefusedForFlushes() async {
        let queue = PublishQueue(capacity: 10)
        for n in 1...3 { _ = queue.enqueue(message(n)) }
        // Nothing is enqueued until this flush ends, so it waits for 1...3 whenever it starts.
        let flushed = Counter()
        let flushing = Task {
            await queue.flush()
            flushed.increment()
        }
        #expect(queue.peekBatch(limit: 3).map(\.id) == ["1", "2", "3"])
        queue.removeFirst(3, keeping: [1])
        #expect(queue.count == 1)
        #expect(await !eventually(timeout: .milliseconds(50)) { flushed.value == 1 }, "2 is still queued")
        #expect(queue.peekBatch(limit: 3).map(\.id) == ["2"])
        queue.removeFirst(1)
        await flushing.value

        for n in 4...6 { _ = queue.enqueue(message(n)) }
        #expect(queue.peekBatch(limit: 2).map(\.id) == ["4", "5"])
        queue.removeFirst(2, keeping: [0])
        _ = queue.enqueue(message(7))
        #expect(queue.peekBatch(limit: 10).map(\.id) == ["4", "6", "7"])
    }

    @Test("An event heard after the publish buffer was given up at stop is reported and counted, not dropped")
    func publishAfterCloseIsReported() {
        let errors = ErrorLog()
        var configuration = RedisBridge.Configuration(source: "a")
        configuration.errorHandler = { errors.record($0) }
        let counters = BridgeCounters()
        let outbound = Outbound(configuration: configuration, counters: counters, report: configuration.errorHandler)
        _ = outbound.streamQueue.close()
        let route = outbound.route(type: "t", mode: .stream, key: "k")
        outbound.publish(outbound.envelope(type: "t"), route: route, mode: .stream, sender: nil) { _ in }
        #expect(errors.all == [.stoppedWithUnpublishedEvents(1)])
        #expect(counters.snapshot.unpublishedAtStop == 1)
        #expect(counters.snapshot.rejectedBufferFull == 0)
    }

    @Test("The publisher packs runs of messages for one key, up to the event and byte limits")
    func commandsGroupMessages() {
        func message(_ key: String, bytes: Int = 10) -> OutboundMessage {
            self.message(0, key: key, bytes: bytes)
        }
        let batch = ["a", "a", "a", "a", "b", "a"].map { message($0) }
        #expect(Publisher.commands(for: batch, maxEventsPerMessage: 1) == (0..<6).map { $0..<($0 + 1) })
        #expect(Publisher.commands(for: batch, maxEventsPerMessage: 3) == [0..<3, 3..<4, 4..<5, 5..<6])
        #expect(Publisher.commands(for: batch, maxEventsPerMessage: 64) == [0..<4, 4..<5, 5..<6])
        #expect(Publisher.commands(for: [], maxEventsPerMessage: 64) == [])

        // Two messages of a third of the limit fit together, a third does not; one message
        // over the limit goes alone.
        let third = Publisher.packedMessageByteLimit / 3
        let large = [message("a", bytes: third), message("a", bytes: third), message("a", bytes: third)]
        #expect(Publisher.commands(for: large, maxEventsPerMessage: 64) == [0..<2, 2..<3])
        let huge = [message("a", bytes: Publisher.packedMessageByteLimit + 1), message("a")]
        #expect(Publisher.commands(for: huge, maxEventsPerMessage: 64) == [0..<1, 1..<2])
        // A client that accepts smaller frames makes smaller batches.
        #expect(Publisher.commands(for: batch, maxEventsPerMessage: 64, byteLimit: 25) == [0..<2, 2..<4, 4..<5, 5..<6])
    }

    @Test("The deduplication window suppresses repeats and forgets the oldest beyond capacity")
    func deduplication() {
        let window = DeduplicationWindow(capacity: 3)
        #expect(window.recordFirstSighting(source: "a", id: "1"))
        #expect(!window.recordFirstSighting(source: "a", id: "1"))
        #expect(window.recordFirstSighting(source: "b", id: "1"), "the same id from another source is another event")
        #expect(window.recordFirstSighting(source: "a", id: "2"))
        #expect(window.recordFirstSighting(source: "a", id: "3"))  // forgets a/1
        #expect(window.count == 3)
        #expect(window.recordFirstSighting(source: "a", id: "1"))
        #expect(!window.recordFirstSighting(source: "a", id: "3"))
    }

    @Test(
        "The deduplication window answers as a plain list of the last identities would, whatever the fingerprints",
        arguments: [
            ("real", 1), ("real", 7), ("real", 64), ("all equal", 5), ("three values", 1), ("three values", 40),
            ("by length", 33),
        ])
    func deduplicationAgainstModel(fingerprints: String, capacity: Int) {
        // Bad fingerprints force long clusters, wrapped probe sequences and identities that share
        // a fingerprint, which the real hash would almost never produce.
        let fingerprint: @Sendable (String, String) -> UInt64 =
            switch fingerprints {
            case "all equal": { _, _ in 42 }
            case "three values": { source, id in UInt64((source.utf8.count + id.utf8.count) % 3) &* 0x9E37_79B9 }
            case "by length": { _, id in UInt64(id.utf8.count) }
            default: DeduplicationWindow.hash
            }
        var generator = SeededGenerator(seed: UInt64(capacity) &* 31 &+ UInt64(fingerprints.utf8.count))
        // A small universe, so that repeats inside and outside the window both happen.
        checkAgainstModel(
            DeduplicationWindow(capacity: capacity, fingerprint: fingerprint), capacity: capacity, steps: 4_000
        ) { _, _ in
            (["a", "b", "bb"][Int(generator.next() % 3)], String(generator.next() % UInt64(capacity * 3 + 2)))
        }
    }

    /// Feeds `window` the identities `next` picks (given the step and the identities a plain
    /// list of the last `capacity` would hold, oldest first, as "source/id") and checks after
    /// every one that the window answers as that list would and holds the same identities.
    private func checkAgainstModel(
        _ window: DeduplicationWindow, capacity: Int, steps: Int,
        next: (_ step: Int, _ model: [String]) -> (source: String, id: String)
    ) {
        var model: [String] = []
        for step in 0..<steps {
            let (source, id) = next(step, model)
            let expected = !model.contains(source + "/" + id)
            if expected {
                model.append(source + "/" + id)
                if model.count > capacity { model.removeFirst() }
            }
            let answer = window.recordFirstSighting(source: source, id: id)
            #expect(answer == expected, "step \(step): \(source)/\(id.prefix(20)) (\(id.utf8.count) bytes)")
            let remembered = window.remembered.map { $0.source + "/" + $0.id }
            #expect(remembered == model, "step \(step): the remembered identities differ")
            if answer != expected || remembered != model { break }
        }
        #expect(window.count == model.count)
    }

    @Test(
        "The deduplication window remembers identities of any length, as a plain list of the last ones would",
        arguments: [(1, 1024), (3, 1024), (17, 1024), (100, 1024), (1, 1), (2, 8), (3, 16), (5, 24)])
    func deduplicationOfLongIdentities(capacity: Int, arenaSize: Int) {
        // With the usual first arena, short and long identities mixed (1 to 8 bytes, or 100 to
        // 400) make the store of their bytes wrap around and grow while it holds identities.
        // With a tiny one, short identities alone keep it full: every way a new identity can
        // fit, or not, at either end happens over and over.
        var generator = SeededGenerator(seed: UInt64(capacity) &* 131 &+ UInt64(arenaSize))
        let pool = (0..<(capacity * 3 + 2)).map { index in
            let long = arenaSize >= 1024 && index % 3 == 0
            let length = long ? 100 + Int(generator.next() % 301) : 1 + Int(generator.next() % 8)
            return (
                source: ["a", "s\(index % 4)"][index % 2],
                id: String(
                    decoding: (0..<length).map { _ in UInt8(ascii: "a") + UInt8(generator.next() % 26) }, as: UTF8.self)
            )
        }
        let window = DeduplicationWindow(capacity: capacity, arenaSize: arenaSize)
        checkAgainstModel(window, capacity: capacity, steps: 3_000) { step, model in
            // A third of the time the oldest remembered identity, whose bytes are the first that
            // new ones could overwrite.
            step % 3 == 0 && !model.isEmpty
                ? pool.first { $0.source + "/" + $0.id == model[0] }! : pool[Int(generator.next() % UInt64(pool.count))]
        }
    }

    @Test(
        "The deduplication window's byte store never overwrites a live identity at its edges",
        arguments: [
            // Source "s" and ids of 3 or 4 bytes: identities of 4 and 5 bytes in a 12-byte store.
            // The 5-byte one comes when the room at the end is too small and the room at the
            // front is 4 bytes ...
            ["abc", "def", "ghi", "jklm"],
            // ... or after wrapping, when the room between the newest and the oldest is 4 bytes.
            ["abc", "def", "ghi", "jkl", "mnop"],
            // Exact fits at the front and in the middle.
            ["abc", "def", "ghi", "jkl", "mno", "pqr", "stu"],
        ])
    func deduplicationStoreEdges(ids: [String]) {
        let window = DeduplicationWindow(capacity: 3, arenaSize: 12)
        for (index, id) in ids.enumerated() {
            #expect(window.recordFirstSighting(source: "s", id: id))
            let live = Array(ids[max(0, index - 2)...index])
            #expect(window.remembered.map(\.id) == live, "after \(id)")
            for known in live { #expect(!window.recordFirstSighting(source: "s", id: known), "\(known) after \(id)") }
        }
    }

    @Test("The deduplication window compares identities byte for byte")
    func deduplicationComparesBytes() {
        let window = DeduplicationWindow(capacity: 10)
        #expect(window.recordFirstSighting(source: "a", id: "caf\u{E9}"))
        // The same text to `==` (canonically equivalent), but other bytes: another id.
        #expect(window.recordFirstSighting(source: "a", id: "cafe\u{301}"))
        #expect(!window.recordFirstSighting(source: "a", id: "caf\u{E9}"))
        // The source's and the id's bytes do not run together.
        #expect(window.recordFirstSighting(source: "ab", id: "c"))
        #expect(window.recordFirstSighting(source: "a", id: "bc"))
        #expect(!window.recordFirstSighting(source: "ab", id: "c"))
    }

    @Test("Stream replies are read into entries; deleted entries and foreign fields are recognised")
    func streamReplyShapes() throws {
        let reply = RESPValue.array([
            .array([
                .bulkString(Array("events:t".utf8)),
                .array([
                    .array([
                        .bulkString(Array("1-0".utf8)),
                        .array([.bulkString(Array("event".utf8)), .bulkString([1, 2])]),
                    ]),
                    .array([.bulkString(Array("2-0".utf8)), .null]),
                    .array([
                        .bulkString(Array("3-0".utf8)), .array([.bulkString(Array("other".utf8)), .bulkString([9])]),
                    ]),
                ]),
            ])
        ])
        let entries = try StreamConsumer.entries(fromRead: reply)
        #expect(entries.map(\.id) == ["1-0", "2-0", "3-0"])
        #expect(entries[0].message == [1, 2] && !entries[0].deleted)
        #expect(entries[1].message == nil && entries[1].deleted)
        #expect(entries[2].message == nil && !entries[2].deleted)
        #expect(try StreamConsumer.entries(fromRead: .null).isEmpty)
        #expect(throws: RedisError.self) { try StreamConsumer.entries(fromRead: .integer(3)) }
        #expect(throws: RedisError.self) {
            try StreamConsumer.entries(fromRead: .array([.array([.bulkString([1])])]))
        }
    }
}
