import Events
import RedisTestSupport
import Synchronization
import Testing

@testable import EventsRedis

/// What a received event's identity (its `source` and `id`) may cost: each attribute is bounded,
/// and so are the bytes the deduplication window keeps.
@Suite("Limits on received identities")
struct IdentityLimitTests {
    /// The receiving half of a bridge whose own source is "me", carrying `Sequenced` on "k".
    private func sequencedInbound(
        _ center: EventCenter, _ counters: BridgeCounters, _ errors: ErrorLog, capacity: Int = 100
    ) -> Inbound {
        Inbound(
            center: center, source: "me", ownIDPrefix: "own-",
            carried: [Sequenced.wireName: .typed(Sequenced.self, mode: .pubSub, key: "k")],
            deduplicationWindow: capacity, counters: counters, report: { errors.record($0) })
    }

    /// A `Sequenced` event as another service writes it; `id` and `source` are JSON string
    /// contents, escapes and all.
    private func event(id: String, source: String = "other", n: Int = 1) -> String {
        #"{"specversion":"1.0","id":"\#(id)","source":"\#(source)","type":"\#(Sequenced.wireName)","data":{"n":\#(n)}}"#
    }

    @Test(
        "An event whose id or source is over 4,096 bytes is refused, reported as an invalid message and counted; one at the limit is delivered"
    )
    func attributesOverTheLimitAreRefused() {
        let (center, counters, errors) = (EventCenter(), BridgeCounters(), ErrorLog())
        let inbound = sequencedInbound(center, counters, errors)
        let received = Log<Int>()
        let listener = center.listen(to: Sequenced.self) { event, _ in received.append(event.n) }
        let limit = RedisBridge.Configuration(source: "me").maxReceivedIDBytes
        #expect(limit == 4_096)
        #expect(RedisBridge.Configuration(source: "me").maxReceivedSourceBytes == 4_096)
        let cases: [(message: String, accepted: Bool, attribute: String)] = [
            (event(id: String(repeating: "a", count: limit), n: 1), true, "id"),
            (event(id: String(repeating: "b", count: limit + 1), n: 2), false, "id"),
            (event(id: "1", source: String(repeating: "s", count: limit), n: 3), true, "source"),
            (event(id: "1", source: String(repeating: "t", count: limit + 1), n: 4), false, "source"),
            // Bytes of the text, not characters: 2,048 "é" are 4,096 bytes.
            (event(id: String(repeating: "é", count: limit / 2), n: 5), true, "id"),
            (event(id: String(repeating: "é", count: limit / 2) + "x", n: 6), false, "id"),
            // Escapes count as the text they stand for: six bytes written, one byte of text.
            (event(id: String(repeating: #"\u0063"#, count: limit), n: 7), true, "id"),
            (event(id: String(repeating: #"\u0064"#, count: limit + 1), n: 8), false, "id"),
            (event(id: "2", source: String(repeating: #"\u0065"#, count: limit + 1), n: 9), false, "source"),
        ]
        for (message, accepted, attribute) in cases {
            let errorsBefore = errors.all.count
            let receivedBefore = received.count
            inbound.receiveNow(Array(message.utf8), key: "k")
            if accepted {
                #expect(received.count == receivedBefore + 1, "\(attribute) of \(message.utf8.count) bytes")
                #expect(errors.all.count == errorsBefore)
            } else {
                #expect(received.count == receivedBefore, "\(attribute) of \(message.utf8.count) bytes")
                guard let last = errors.all.last, last.code == .invalidMessage, last.key == "k",
                    let error = last.cloudEventError, errors.all.count == errorsBefore + 1
                else {
                    Issue.record("expected one invalid message, got \(errors.all.dropFirst(errorsBefore))")
                    continue
                }
                #expect(error.reason.contains("\"\(attribute)\""), "\(error.reason)")
                #expect(error.reason.contains("4096"), "\(error.reason)")
                // The report is short: it does not carry the attribute itself.
                #expect(error.description.utf8.count < 200)
            }
        }
        #expect(received.values == [1, 3, 5, 7])
        #expect(counters.invalidMessages.load(ordering: .relaxed) == 5)
        #expect(counters.delivered.load(ordering: .relaxed) == 4)
        // Only the accepted identities were remembered.
        #expect(inbound.deduplication.count == 4)
        withExtendedLifetime(listener) {}
    }

    @Test("In a batch, an element whose id is over the limit is refused alone")
    func batchElementOverTheLimit() {
        let (center, counters, errors) = (EventCenter(), BridgeCounters(), ErrorLog())
        let inbound = sequencedInbound(center, counters, errors)
        let received = Log<Int>()
        let listener = center.listen(to: Sequenced.self) { event, _ in received.append(event.n) }
        let batch = [event(id: "1", n: 1), event(id: String(repeating: "x", count: 5_000), n: 2), event(id: "3", n: 3)]
        inbound.receiveNow(Array(("[" + batch.joined(separator: ",") + "]").utf8), key: "k")
        #expect(received.values == [1, 3])
        #expect(counters.invalidMessages.load(ordering: .relaxed) == 1)
        #expect(errors.all.count == 1)
        withExtendedLifetime(listener) {}
    }

    @Test("Events with huge ids leave nothing in the deduplication window")
    func hugeIDsAreNotRemembered() {
        let (center, counters, errors) = (EventCenter(), BridgeCounters(), ErrorLog())
        let inbound = sequencedInbound(center, counters, errors)
        // Each id a quarter of a MiB: kept, 64 of them held 16 MiB in the window.
        for n in 0..<64 {
            let id = "\(n)" + String(repeating: "x", count: 256 * 1024)
            inbound.receiveNow(Array(event(id: id, n: n).utf8), key: "k")
        }
        #expect(counters.invalidMessages.load(ordering: .relaxed) == 64)
        #expect(inbound.deduplication.count == 0)
        #expect(inbound.deduplication.storedBytes == 0)
    }

    @Test("The bridge's window keeps at most its byte budget of identities, and still suppresses recent repeats")
    func inboundWindowBytesAreBounded() {
        let (center, counters, errors) = (EventCenter(), BridgeCounters(), ErrorLog())
        let budget = 64 * 1024
        let inbound = Inbound(
            center: center, source: "me", ownIDPrefix: "own-",
            carried: [Sequenced.wireName: .typed(Sequenced.self, mode: .pubSub, key: "k")],
            deduplicationWindow: 100_000, limits: Inbound.Limits(maxIDBytes: 4_096, windowBytes: budget),
            counters: counters, report: { errors.record($0) })
        let received = Log<Int>()
        let listener = center.listen(to: Sequenced.self) { event, _ in received.append(event.n) }
        func id(_ n: Int) -> String { String(repeating: "i", count: 4_000) + "\(n)" }
        for n in 0..<200 {
            inbound.receiveNow(Array(event(id: id(n), n: n).utf8), key: "k")
            #expect(inbound.deduplication.storedBytes <= budget)
            #expect(inbound.deduplication.arenaBytes <= 2 * budget)
        }
        #expect(received.count == 200)
        // The latest identities are remembered: their redelivery is suppressed.
        inbound.receiveNow(Array(event(id: id(199), n: 199).utf8), key: "k")
        inbound.receiveNow(Array(event(id: id(190), n: 190).utf8), key: "k")
        #expect(received.count == 200)
        #expect(counters.duplicatesSuppressed.load(ordering: .relaxed) == 2)
        // Identities of 4,008 bytes: 16 fit in 64 KiB.
        #expect(inbound.deduplication.count == 16)
        #expect(errors.all.isEmpty)
        withExtendedLifetime(listener) {}
    }

    @Test("The window's byte budget is at least one identity at both limits")
    func windowBudgetFitsTheLargestIdentity() {
        let limits = Inbound.Limits(maxIDBytes: 3_000, maxSourceBytes: 2_000, windowBytes: 10)
        #expect(limits.windowBytes == 5_000)
        let configured = Inbound.Limits(RedisBridge.Configuration(source: "me"))
        #expect(configured.maxIDBytes == 4_096)
        #expect(configured.maxSourceBytes == 4_096)
        #expect(configured.windowBytes == 16 * 1024 * 1024)
        // Nonsense limits still leave room for an identity of one byte each.
        let tiny = Inbound.Limits(maxIDBytes: -5, maxSourceBytes: 0, windowBytes: -1)
        #expect(tiny.maxIDBytes == 1 && tiny.maxSourceBytes == 1 && tiny.windowBytes == 2)
    }

    @Test(
        "The deduplication window answers as a list of the last identities that fit in its byte budget would",
        arguments: [(1_000, 1), (1_000, 1024), (300, 16), (4_096, 64)])
    func windowAgainstByteBudgetModel(budget: Int, arenaSize: Int) {
        var generator = SeededGenerator(seed: UInt64(budget) &* 7 &+ UInt64(arenaSize))
        let capacity = 50
        let window = DeduplicationWindow(capacity: capacity, maxBytes: budget, arenaSize: arenaSize)
        let pool = (0..<40).map { index in
            let length = index % 5 == 0 ? 100 + Int(generator.next() % 200) : 1 + Int(generator.next() % 20)
            return (source: "s\(index % 3)", id: String(repeating: "abcdefgh", count: 40).prefix(length) + "\(index)")
        }
        var model: [(source: String, id: String)] = []
        func bytes(_ identity: (source: String, id: String)) -> Int {
            identity.source.utf8.count + identity.id.utf8.count
        }
        for step in 0..<3_000 {
            let (source, id) = pool[Int(generator.next() % UInt64(pool.count))]
            let identity = (source: source, id: String(id))
            let expected = !model.contains { $0.source == identity.source && $0.id == identity.id }
            if expected {
                model.append(identity)
                while model.count > capacity || model.map(bytes).reduce(0, +) > budget { model.removeFirst() }
            }
            let answer = window.recordFirstSighting(source: identity.source, id: identity.id)
            #expect(answer == expected, "step \(step)")
            let remembered = window.remembered.map { $0.source + "/" + $0.id }
            #expect(remembered == model.map { $0.source + "/" + $0.id }, "step \(step)")
            #expect(window.storedBytes == model.map(bytes).reduce(0, +))
            #expect(window.arenaBytes <= max(2 * budget, arenaSize))
            if answer != expected || remembered.count != model.count { break }
        }
    }

    @Test("An identity larger than the window's whole budget is not remembered, and forgets nothing")
    func identityLargerThanTheBudget() {
        let window = DeduplicationWindow(capacity: 10, maxBytes: 100)
        #expect(window.recordFirstSighting(source: "s", id: "1"))
        let huge = String(repeating: "h", count: 100)
        #expect(window.recordFirstSighting(source: "s", id: huge))
        #expect(window.recordFirstSighting(source: "s", id: huge))
        #expect(window.remembered.map(\.id) == ["1"])
        #expect(!window.recordFirstSighting(source: "s", id: "1"))
    }
}
