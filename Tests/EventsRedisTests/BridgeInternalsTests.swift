import Testing

@testable import EventsRedis

@Suite("Bridge internals")
struct BridgeInternalsTests {
    func message(_ n: Int) -> OutboundMessage {
        OutboundMessage(type: "t", id: "\(n)", key: "k", payload: Array("\(n)".utf8))
    }

    @Test("The publish queue is bounded, keeps order and hands out batches until removed")
    func publishQueueBounds() async {
        let queue = PublishQueue(capacity: 3)
        #expect(queue.enqueue(message(1)) && queue.enqueue(message(2)) && queue.enqueue(message(3)))
        #expect(!queue.enqueue(message(4)), "a full queue rejects")
        let first = await queue.nextBatch(limit: 2)
        #expect(first?.map(\.id) == ["1", "2"])
        let again = await queue.nextBatch(limit: 2)
        #expect(again?.map(\.id) == ["1", "2"], "a batch stays queued until removed")
        queue.removeFirst(2)
        #expect(queue.enqueue(message(5)))
        let rest = await queue.nextBatch(limit: 10)
        #expect(rest?.map(\.id) == ["3", "5"])
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
        try? await Task.sleep(for: .milliseconds(20))
        _ = queue.enqueue(message(3))
        queue.removeFirst(1)
        try? await Task.sleep(for: .milliseconds(20))
        #expect(flushed.value == 0)
        queue.removeFirst(1)
        await flushing.value
        #expect(flushed.value == 1)
        #expect(queue.count == 1)
    }

    @Test("close wakes a waiting reader and reports what was left")
    func publishQueueClose() async {
        let queue = PublishQueue(capacity: 10)
        let reader = Task { await queue.nextBatch(limit: 1) }
        try? await Task.sleep(for: .milliseconds(20))
        #expect(queue.close() == 0)
        #expect(await reader.value == nil)
        #expect(!queue.enqueue(message(1)), "a closed queue accepts nothing")
    }

    @Test("A reader whose task is cancelled stops waiting")
    func publishQueueReaderCancelled() async {
        let queue = PublishQueue(capacity: 10)
        let returned = Counter()
        let reader = Task {
            let batch = await queue.nextBatch(limit: 1)
            returned.increment()
            return batch
        }
        reader.cancel()
        #expect(await eventually(timeout: .seconds(1)) { returned.value == 1 })
        _ = queue.close()  // ends the reader if cancelling did not
        #expect(await reader.value == nil)
        #expect(queue.enqueue(message(1)) == false)
    }

    @Test("Messages kept at the head come first in the next batch and hold back the flushes that include them")
    func publishQueueKeepsRefused() async {
        let queue = PublishQueue(capacity: 10)
        for n in 1...3 { _ = queue.enqueue(message(n)) }
        // Nothing is enqueued until this flush ends, so it waits for 1...3 whenever it starts.
        let flushed = Counter()
        let flushing = Task {
            await queue.flush()
            flushed.increment()
        }
        #expect(await queue.nextBatch(limit: 3)?.map(\.id) == ["1", "2", "3"])
        queue.removeFirst(3, keeping: [1])
        #expect(queue.count == 1)
        #expect(await !eventually(timeout: .milliseconds(50)) { flushed.value == 1 }, "2 is still queued")
        #expect(await queue.nextBatch(limit: 3)?.map(\.id) == ["2"])
        queue.removeFirst(1)
        await flushing.value

        for n in 4...6 { _ = queue.enqueue(message(n)) }
        #expect(await queue.nextBatch(limit: 2)?.map(\.id) == ["4", "5"])
        queue.removeFirst(2, keeping: [0])
        _ = queue.enqueue(message(7))
        #expect(await queue.nextBatch(limit: 10)?.map(\.id) == ["4", "6", "7"])
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
