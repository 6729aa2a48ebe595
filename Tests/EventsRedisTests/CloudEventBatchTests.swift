import Events
import Foundation
import RedisTestSupport
import Synchronization
import Testing

@testable import EventsRedis

@Suite("CloudEvents batches")
struct CloudEventBatchTests {
    private func elements(_ text: String) -> Result<[String], CloudEventError>? {
        let bytes = Array(text.utf8)
        return CloudEventBatch.elements(of: bytes).map { result in
            result.map { ranges in ranges.map { String(decoding: bytes[$0], as: UTF8.self) } }
        }
    }

    @Test("A message that is not an array is not a batch")
    func singleMessages() {
        #expect(elements(#"{"specversion":"1.0"}"#) == nil)
        #expect(elements(" \n{}") == nil)
        #expect(elements("") == nil)
        #expect(elements("not json") == nil)
    }

    @Test("A batch's elements are found as written, whatever their strings hold")
    func elementsAreFound() throws {
        #expect(elements("[]") == .success([]))
        #expect(elements(" [ \n ] ") == .success([]))
        #expect(elements(#"[{"a":1}]"#) == .success([#"{"a":1}"#]))
        #expect(
            elements(#" [ {"a":"],}"} ,{"b":"\"]"} , {"c":[1,{"d":"\\"}]}] "#)
                == .success([#"{"a":"],}"}"#, #"{"b":"\"]"}"#, #"{"c":[1,{"d":"\\"}]}"#]))
        // Elements that are not objects are found too; reading them as events fails later.
        #expect(elements(#"[1, "x", null, [2]]"#) == .success(["1", #""x""#, "null", "[2]"]))
    }

    @Test(
        "A batch that is not a well-formed array fails as a whole",
        arguments: [
            "[", "[{}", "[{} {}]", "[{},]", "[,{}]", "[{}] x", "[{}]]", #"[{"a":"\"]"}"#, "[{}}", "[{]",
        ])
    func malformedBatches(text: String) {
        guard case .failure = elements(text) else {
            Issue.record("\(text) was accepted as \(String(describing: elements(text)))")
            return
        }
    }

    @Test("Events written as a batch come back as the very bytes of each event")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"ab"\]},[{: é😀"#).map(String.init) + ["\n", "\u{1}"]
        for _ in 0..<200 {
            let events = (0..<Int.random(in: 0...5, using: &generator)).map { n in
                let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement()! }
                    .joined()
                return CloudEvent(
                    id: "\(n)", source: "s" + text, type: "t", subject: text.isEmpty ? nil : text,
                    data: Array(#"{"x":[1,{"y":"}"}]}"#.utf8)
                ).jsonBytes()
            }
            var message: [UInt8] = []
            CloudEventBatch.append(events, to: &message)
            #expect(message.count == CloudEventBatch.length(ofEventsOfLengths: events.map(\.count)))
            let ranges = try #require(try CloudEventBatch.elements(of: message)?.get())
            #expect(ranges.map { Array(message[$0]) } == events)
        }
    }

    @Test("Mutated batches split exactly when they are arrays, and pass only as valid JSON")
    func mutatedBatches() async throws {
        var generator = SystemRandomNumberGenerator()
        let structural = Array(#"[]{},":\ a1"#.utf8)
        for iteration in 0..<3_000 {
            await yieldNow(every: 100, at: iteration)
            let events = (0..<Int.random(in: 1...3, using: &generator)).map { n in
                CloudEvent(id: "\(n)", source: "s", type: "t", data: Array(#"{"x":["]",{"y":"\\"}]}"#.utf8))
                    .jsonBytes()
            }
            var message: [UInt8] = []
            CloudEventBatch.append(events, to: &message)
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0..<message.count, using: &generator)
                let byte = structural.randomElement(using: &generator)!
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: message[index] = byte
                case 1: message.insert(byte, at: index)
                default: if message.count > 1 { message.remove(at: index) }
                }
            }
            // Valid JSON by the bridge's strict validator (Foundation also accepts trailing
            // commas, which RFC 8259 does not).
            let valid = message.withUnsafeBufferPointer { bytes in
                var scanner = JSONScanner(bytes)
                return (try? scanner.validateDocument()) != nil
            }
            let parsed = valid ? try? JSONSerialization.jsonObject(with: Data(message)) : nil
            let split = CloudEventBatch.elements(of: message)
            if let array = parsed as? [Any], message.first == UInt8(ascii: "[") {
                // Valid JSON: the split is exact.
                guard case .success(let ranges)? = split else {
                    Issue.record("\(String(describing: split)) for \(String(decoding: message, as: UTF8.self))")
                    continue
                }
                #expect(ranges.count == array.count)
                for range in ranges {
                    #expect(
                        (try? JSONSerialization.jsonObject(with: Data(message[range]), options: .fragmentsAllowed))
                            != nil)
                }
            }
            if case .success(let ranges)? = split,
                ranges.allSatisfy({ (try? CloudEvent(json: Array(message[$0]))) != nil })
            {
                // Every element a strictly valid event and the array around them well formed:
                // the whole message is valid JSON.
                #expect(valid && parsed is [Any], "\(String(decoding: message, as: UTF8.self))")
            }
        }
    }

    /// The receiving half of a bridge whose own source is "me", carrying `Sequenced` on "k".
    private func sequencedInbound(_ center: EventCenter, _ counters: BridgeCounters, _ errors: ErrorLog) -> Inbound {
        Inbound(
            center: center, source: "me", ownIDPrefix: "own-",
            carried: [Sequenced.wireName: .typed(Sequenced.self, mode: .pubSub, key: "k")],
            deduplicationWindow: 100, counters: counters, report: { errors.record($0) })
    }

    @Test("Each event of a received batch is handled as a message of its own would be")
    func inboundReadsBatches() throws {
        let (center, counters, errors) = (EventCenter(), BridgeCounters(), ErrorLog())
        let inbound = sequencedInbound(center, counters, errors)
        let received = Log<(Int, String?)>()
        let listener = center.listen(to: Sequenced.self) { event, sender in
            received.append((event.n, sender?.object(as: RemoteOrigin.self)?.id))
        }
        func event(_ id: String, source: String = "other", type: String = Sequenced.wireName, data: String) -> String {
            #"{"specversion":"1.0","id":"\#(id)","source":"\#(source)","type":"\#(type)","data":\#(data)}"#
        }
        let batch = [
            event("1", data: #"{"n":1}"#),
            #"{"specversion":"0.3"}"#,  // not a valid CloudEvent
            event("2", type: "com.unknown", data: "{}"),  // unknown type
            event("3", data: #"{"id":3}"#),  // data that does not decode
            event("4", source: "me", data: #"{"n":4}"#),  // this instance's own event
            event("1", data: #"{"n":1}"#),  // a duplicate
            event("5", data: #"{"n":5}"#),
        ]
        inbound.receiveNow(Array(("[" + batch.joined(separator: ",") + "]").utf8), key: "k")
        #expect(received.values.map(\.0) == [1, 5])
        #expect(received.values.map(\.1) == ["1", "5"])
        #expect(counters.delivered.load(ordering: .relaxed) == 2)
        #expect(counters.invalidMessages.load(ordering: .relaxed) == 1)
        #expect(counters.unknownTypes.load(ordering: .relaxed) == 1)
        #expect(counters.undecodable.load(ordering: .relaxed) == 1)
        #expect(counters.ownEventsSkipped.load(ordering: .relaxed) == 1)
        #expect(counters.duplicatesSuppressed.load(ordering: .relaxed) == 1)
        #expect(errors.all.count == 3)

        // A batch that is not a well-formed array: one invalid message, nothing delivered.
        inbound.receiveNow(Array(("[" + event("6", data: #"{"n":6}"#) + ",").utf8), key: "k")
        #expect(received.count == 2)
        #expect(counters.invalidMessages.load(ordering: .relaxed) == 2)
        guard let last = errors.all.last, last.code == .invalidMessage, last.key == "k",
            let error = last.cloudEventError
        else {
            Issue.record("expected an invalid message, got \(errors.all)")
            return
        }
        #expect(error.reason.contains("batch"))
        withExtendedLifetime(listener) {}
    }

    @Test("Attributes written with escapes count as their text: own source, carried type, duplicates, the origin")
    func inboundReadsEscapedAttributes() throws {
        let (center, counters, errors) = (EventCenter(), BridgeCounters(), ErrorLog())
        let inbound = sequencedInbound(center, counters, errors)
        let origins = Log<RemoteOrigin>()
        let listener = center.listen(to: Sequenced.self) { _, sender in
            if let origin = sender?.object(as: RemoteOrigin.self) { origins.append(origin) }
        }
        let type = #"com.ex\u0061mple.test.sequenced"#
        func receive(_ attributes: String, data: String = #"{"n":1}"#) {
            let message = #"{"specversion":"1.0","# + attributes + #","data":"# + data + "}"
            inbound.receiveNow(Array(message.utf8), key: "k")
        }
        // As the first element of a batch and as a message of its own, so that positions are
        // read both from the start of the message and from inside it.
        let first = #"{"specversion":"1.0","id":"x","source":"other","type":"\#(type)","data":{"n":0}}"#
        inbound.receiveNow(
            Array(("[" + first + "," + first.replacingOccurrences(of: #""x""#, with: #""y""#) + "]").utf8), key: "k")
        receive(
            #""id":"\u0031","source":"o\u0074her","type":"\#(type)","subject":"Ch\u00e9ckout","time":"2026-11-30T08:15:02.125Z""#
        )
        receive(#""id":"1","source":"other","type":"\#(type)""#)  // the same identity, unescaped
        receive(#""id":"2","source":"m\u0065","type":"\#(type)""#)  // this instance's own source
        receive(#""id":"3","source":"other","type":"com.\u0075nknown""#)

        let values = origins.values
        #expect(values.map(\.id) == ["x", "y", "1"])
        #expect(values.allSatisfy { $0.source == "other" && $0.type == Sequenced.wireName && $0.key == "k" })
        #expect(values.last?.subject == "Chéckout")
        #expect(values.last?.time == RFC3339.date(from: "2026-11-30T08:15:02.125Z"))
        #expect(values.first?.subject == nil && values.first?.time == nil)
        #expect(values.last?.description == "\(Sequenced.wireName) 1 from other via k")
        #expect(counters.duplicatesSuppressed.load(ordering: .relaxed) == 1)
        #expect(counters.ownEventsSkipped.load(ordering: .relaxed) == 1)
        #expect(counters.unknownTypes.load(ordering: .relaxed) == 1)
        guard errors.all.last == .unknownType("com.unknown", id: "3", source: "other") else {
            Issue.record("expected the unknown type reported by its text, got \(errors.all)")
            return
        }
        withExtendedLifetime(listener) {}
    }
}
