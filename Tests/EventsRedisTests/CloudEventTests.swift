import Foundation
import RedisTestSupport
import Testing

@testable import EventsRedis

@Suite("CloudEvents wire format")
struct CloudEventTests {
    let sample = CloudEvent(
        id: "42", source: "shop/api-1", type: "com.example.shop.order-placed", subject: "Checkout",
        time: Date(timeIntervalSince1970: 1_796_026_502.125), data: Array(#"{"orderID":"A-1","total":7}"#.utf8))

    @Test("An event is written in the structured JSON format with every attribute")
    func writesStructuredJSON() throws {
        let text = String(decoding: sample.jsonBytes(), as: UTF8.self)
        #expect(
            text
                == #"{"specversion":"1.0","id":"42","source":"shop/api-1","type":"com.example.shop.order-placed","subject":"Checkout","time":"2026-11-30T08:15:02.125Z","datacontenttype":"application/json","data":{"orderID":"A-1","total":7}}"#
        )
        // Any JSON parser reads it.
        let object = try #require(JSONSerialization.jsonObject(with: Data(sample.jsonBytes())) as? [String: Any])
        #expect(object["specversion"] as? String == "1.0")
        #expect((object["data"] as? [String: Any])?["total"] as? Int == 7)
    }

    @Test("Reading back what was written gives the same event")
    func roundTrips() throws {
        #expect(try CloudEvent(json: sample.jsonBytes()) == sample)
        var bare = CloudEvent(id: "x", source: "s", type: "t", dataContentType: nil)
        bare.data = nil
        #expect(try CloudEvent(json: bare.jsonBytes()) == bare)
    }

    @Test("Strings with quotes, control characters and non-ASCII text survive the round trip")
    func escapesStrings() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{07} é 🎉 /"
        let event = CloudEvent(id: tricky, source: "s", type: tricky, subject: tricky)
        let decoded = try CloudEvent(json: event.jsonBytes())
        #expect(decoded.id == tricky && decoded.type == tricky && decoded.subject == tricky)
        #expect(!event.jsonBytes().contains(0x07), "control characters are escaped")
    }

    @Test("A message from another CloudEvents library is read: whitespace, escapes, extensions, data_base64")
    func readsForeignMessages() throws {
        let foreign = """
            {
              "specversion" : "1.0", "type": "com.example.ping", "source": "urn:svc:\\u00e9",
              "id": "A\\/1", "time": "2026-11-30T09:15:02.5+01:00", "traceparent": "00-abc",
              "priority": 3, "data_base64": "eyJuIjoxfQ=="
            }
            """
        let event = try CloudEvent(json: Array(foreign.utf8))
        #expect(event.source == "urn:svc:é")
        #expect(event.id == "A/1")
        #expect(event.time == Date(timeIntervalSince1970: 1_796_026_502.5))
        #expect(event.data == Array(#"{"n":1}"#.utf8))
        #expect(event.dataContentType == nil)
    }

    @Test("A message with thousands of extension attributes is read in linear time, and a repeated one is refused")
    func manyExtensionAttributes() async throws {
        @Sendable func message(extensions: Int) -> String {
            #"{"specversion":"1.0","id":"1","source":"s","type":"t","#
                + (0..<extensions).map { "\"ext\($0)\":1" }.joined(separator: ",")
        }
        let growth = try await growthWhenSixteenTimesLarger(from: 1_250) {
            Array((message(extensions: $0) + "}").utf8)
        } _: { json throws in
            guard try CloudEvent(json: json).id == "1" else { throw WrongResult("wrong id") }
        }
        // Linear (about 16). Comparing each name with every earlier one took minutes for 5,000.
        #expect(growth < 64)
        // A repeat far down the list, spelled with an escape, is still found.
        #expect(throws: CloudEventError.self) {
            try CloudEvent(json: Array((message(extensions: 5_000) + #","ext\u0034999":2}"#).utf8))
        }
    }

    @Test("Escaped member names are matched by their text, and extension attributes of any kind are skipped")
    func escapedNamesAndExtensions() throws {
        let json = #"""
            {"spec\u0076ersion":"1.0","\u0069d":"1","source":"s","type":"t","ext":{"a":[1,"\u00e9",null]},
             "é":"x","ü":2,"data":null}
            """#
        let event = try CloudEvent(json: Array(json.utf8))
        #expect(event.id == "1" && event.source == "s" && event.type == "t")
        #expect(event.data == Array("null".utf8))
    }

    static let malformedBytes: [([UInt8], String)] = {
        func bytes(_ head: String, _ middle: [UInt8] = [], _ tail: String = "") -> [UInt8] {
            Array(head.utf8) + middle + Array(tail.utf8)
        }
        return [
            (bytes(#"{"specversion":"1.0","id":"1","source":"s","type":"t","x":1,"x":2}"#), "appears twice"),
            (bytes(#"{"specversion":"1.0","\u0069d":"1","id":"2","source":"s","type":"t"}"#), "appears twice"),
            (bytes(#"{"specversion":"1.0","id":"1","source":"s","type":"t","é":1,"e\u0301":2}"#), "appears twice"),
            (
                bytes(#"{"specversion":"1.0","id":"1","source":"s","type":"t","x":""#, [0xC0, 0x80], #""}"#),
                "invalid UTF-8"
            ),
            (
                bytes(#"{"specversion":"1.0","id":"1","source":"s","type":""#, [0xED, 0xA0, 0x80], #""}"#),
                "invalid UTF-8"
            ),
            (
                bytes(#"{"specversion":"1.0","id":"1","source":"s","type":"t","data":[""#, [0xFF], #""]}"#),
                "invalid UTF-8"
            ),
            (bytes(#"{"specversion":"1.0","id":"1","source":"s","type":"t","dataschema":3}"#), "\"dataschema\" must"),
            (
                bytes(#"{"specversion":"1.0","id":"1","source":"s","type":"t","subject":null,"time":false}"#),
                "\"time\" must"
            ),
        ]
    }()

    @Test(
        "Repeated names, invalid UTF-8 and non-string attributes are typed errors",
        arguments: CloudEventTests.malformedBytes)
    func rejectsMalformedBytes(json: [UInt8], reasonFragment: String) {
        #expect {
            try CloudEvent(json: json)
        } throws: { error in
            guard let error = error as? CloudEventError else { return false }
            return error.reason.contains(reasonFragment)
        }
    }

    @Test("Valid multi-byte UTF-8 in attributes is read as text")
    func readsMultiByteText() throws {
        let event = try CloudEvent(
            json: Array(#"{"specversion":"1.0","id":"é🎉\ud83c\udf89","source":"s","type":"t","subject":"ü"}"#.utf8))
        #expect(event.id == "é🎉🎉")
        #expect(event.subject == "ü")
    }

    @Test("Data nested as deep as Foundation decodes is kept; deeper is a typed error, not a crash")
    func deeplyNestedData() throws {
        func message(depth: Int) -> [UInt8] {
            let data = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
            return Array((#"{"specversion":"1.0","id":"1","source":"s","type":"t","data":"# + data + "}").utf8)
        }
        // Foundation's JSONDecoder reads 512 levels and refuses 513.
        let deep = try CloudEvent(json: message(depth: 512))
        #expect(deep.data?.count == 1_025)
        #expect(throws: CloudEventError.self) { try CloudEvent(json: message(depth: 513)) }
        #expect(throws: CloudEventError.self) { try CloudEvent(json: message(depth: 100_000)) }
    }

    @Test(
        "Reading a message tells how deep its data is nested, when it validated the data as JSON",
        arguments: [
            (#","data":1"#, 1), (#","data":[1]"#, 2), (#","data":{"a":[1,{"b":2}]}"#, 4), (#","data":[]"#, 1),
            (#","data":"text""#, 1), (#","data_base64":"AAE=""#, nil), ("", nil),
        ] as [(String, Int?)])
    func validatedDataDepth(member: String, depth: Int?) throws {
        var found: Int? = -1
        let event = try CloudEvent(
            json: Array((#"{"specversion":"1.0","id":"1","source":"s","type":"t""# + member + "}").utf8),
            validatedDataDepth: &found)
        #expect(found == depth)
        #expect((event.data == nil) == member.isEmpty)
    }

    @Test("A JSON string as data is kept as JSON text")
    func stringData() throws {
        let event = try CloudEvent(
            json: Array(#"{"specversion":"1.0","id":"1","source":"s","type":"t","data":"hi \"you\""}"#.utf8))
        #expect(event.data.map { String(decoding: $0, as: UTF8.self) } == #""hi \"you\"""#)
    }

    @Test(
        "Invalid messages are rejected with a reason",
        arguments: [
            ("", "not a JSON object"),
            ("[1,2]", "not a JSON object"),
            (#"{"specversion":"1.0","id":"1","source":"s","type":"t"} x"#, "after the object"),
            (#"{"id":"1","source":"s","type":"t"}"#, "specversion"),
            (#"{"specversion":"0.3","id":"1","source":"s","type":"t"}"#, "unsupported specversion"),
            (#"{"specversion":"1.0","source":"s","type":"t"}"#, "\"id\""),
            (#"{"specversion":"1.0","id":"","source":"s","type":"t"}"#, "\"id\""),
            (#"{"specversion":"1.0","id":"1","type":"t"}"#, "\"source\""),
            (#"{"specversion":"1.0","id":"1","source":"s"}"#, "\"type\""),
            (#"{"specversion":"1.0","id":7,"source":"s","type":"t"}"#, #"attribute "id" must be a string"#),
            (#"{"specversion":"1.0","id":"1","source":"s","type":"t","subj\u0065ct":[]}"#, #""subject" must be"#),
            (#"{"specversion":"1.0","id":"1","id":"2","source":"s","type":"t"}"#, "appears twice"),
            (#"{"specversion":"1.0","id":"1","source":"s","type":"t","time":"yesterday"}"#, "RFC 3339"),
            (#"{"specversion":"1.0","id":"1","source":"s","type":"t","data":1,"data_base64":"AA=="}"#, "both"),
            (#"{"specversion":"1.0","id":"1","source":"s","type":"t","data_base64":"%%%"}"#, "base64"),
            (#"{"specversion":"1.0","id":"1","source":"s","type":"t","data":{"a":[1,2}}"#, "not a JSON object"),
            (#"{"specversion":"1.0","id":"\ud800","source":"s","type":"t"}"#, "surrogate"),
        ])
    func rejectsInvalid(json: String, reasonFragment: String) {
        #expect {
            try CloudEvent(json: Array(json.utf8))
        } throws: { error in
            guard let error = error as? CloudEventError else { return false }
            return error.reason.contains(reasonFragment)
        }
    }

    @Test("Every truncation of a message is a CloudEventError, never a read past its end")
    func truncations() {
        // Long attribute values, so that the eight-byte scans run up to every possible end.
        let event = CloudEvent(
            id: String(repeating: "i", count: 37), source: "app/" + String(repeating: "s", count: 29),
            type: "order.placed", subject: "caf\u{E9} \"quoted\"", time: Date(timeIntervalSince1970: 1_700_000_000.25),
            data: Array(#"{"body":"0123456789abcdefghij\\n","n":[1,2.5,true,null]}"#.utf8))
        let valid = event.jsonBytes()
        #expect((try? CloudEvent(json: valid)) == event)
        for length in 0..<valid.count {
            #expect(throws: CloudEventError.self) { try CloudEvent(json: Array(valid[..<length])) }
        }
    }

    @Test("Random and mutated bytes never crash the reader: each is an event or a CloudEventError")
    func fuzz() async {
        var generator = SeededGenerator(seed: 0x5EED)
        let valid = sample.jsonBytes()
        var accepted = 0
        for round in 0..<5_000 {
            await yieldNow(every: 200, at: round)
            var bytes = valid
            if round % 5 == 0 {
                bytes = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let position = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                    case 1: bytes.remove(at: position)
                    default: bytes.insert(Array("{}[]\",:\\0e-".utf8).randomElement(using: &generator)!, at: position)
                    }
                    if bytes.isEmpty { break }
                }
            }
            do {
                _ = try CloudEvent(json: bytes)
                accepted += 1
            } catch {
                // A typed error is the expected outcome for most mutations.
            }
        }
        #expect(accepted < 5_000, "most mutations are invalid")
    }

    /// Whether the layout bridges write is read by the canonical scan (without the general one).
    private func isCanonical(_ message: [UInt8]) -> Bool {
        message.withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes, maxDepth: 513)
            return CloudEvent.Envelope(canonical: &scanner) != nil
        }
    }

    @Test("Messages laid out as bridges write them take the canonical scan; any other layout the general one")
    func canonicalLayout() throws {
        let envelope = OutboundEnvelope(type: "t.ping", source: "a/1", idPrefix: "p-")
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        for message in [
            sample.jsonBytes(),
            CloudEvent(id: "x", source: "s", type: "t", dataContentType: nil).jsonBytes(),
            CloudEvent(id: "x", source: "s", type: "t", data: Array("null".utf8)).jsonBytes(),
            CloudEvent(id: "x", source: "s", type: "t", data: Array(#""text""#.utf8)).jsonBytes(),
            envelope.message(sequence: 9, subject: "Checkout", time: time) { _ in },
            try envelope.message(sequence: 10, subject: nil, time: time) {
                try OutboundEnvelope.appendData([1, 2, 3], to: &$0)
            },
        ] {
            #expect(isCanonical(message), "\(String(decoding: message, as: UTF8.self))")
        }
        for json in [
            #"{ "specversion":"1.0","id":"1","source":"s","type":"t"}"#,
            #"{"id":"1","specversion":"1.0","source":"s","type":"t"}"#,
            #"{"specversion":"1.0","id":"1","source":"s","type":"t","subject":null}"#,
            #"{"specversion":"1.0","id":"1","source":"s","type":"t","comexampleext":"00"}"#,
            #"{"specversion":"1.0","id":"1","source":"s","type":"t","data":{}} x"#,
            #"{"specversion":"1.0","id":"1","source":"s","type":"t","data":{"a":01}}"#,
            #"{"specversion":"1.0","id":"\x","source":"s","type":"t"}"#,
        ] {
            #expect(!isCanonical(Array(json.utf8)), "\(json)")
        }
        // The general scan reads the first four (the last three are invalid).
        #expect(try CloudEvent(json: Array(#"{"id":"1","specversion":"1.0","source":"s","type":"t"}"#.utf8)).id == "1")
    }

    @Test("The canonical scan and the general one read every message alike: the same event or both an error")
    func canonicalAgreesWithGeneral() async throws {
        var generator = SeededGenerator(seed: 0xCA40)
        let messages = [
            sample.jsonBytes(),
            CloudEvent(
                id: "caf\u{E9} \"1\"", source: "s/\u{1F389}", type: "t", subject: "a\\b",
                time: Date(timeIntervalSince1970: 0), data: Array(#"[{"a":[true,false,null,-1.5e3]},"x\u0041"]"#.utf8)
            ).jsonBytes(),
        ]
        var canonical = 0
        for round in 0..<4_000 {
            await yieldNow(every: 200, at: round)
            var bytes = messages[round % messages.count]
            for _ in 0..<Int.random(in: 0...3, using: &generator) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: position)
                default: bytes.insert(Array("{}[]\",:\\0e-n".utf8).randomElement(using: &generator)!, at: position)
                }
            }
            if isCanonical(bytes) { canonical += 1 }
            // A leading space takes the general scan and means the same.
            let read = Result { try CloudEvent(json: bytes) }
            let general = Result { try CloudEvent(json: [0x20] + bytes) }
            switch (read, general) {
            case (.success(let a), .success(let b)): #expect(a == b)
            case (.failure, .failure): break
            default: Issue.record("the scans disagree on \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(canonical > 100, "unmutated and harmlessly mutated messages take the canonical scan")
    }

    @Test("Reading for decoding leaves JSON data in the message and says where; string and base64 data are copied")
    func dataInPlace() throws {
        let message = sample.jsonBytes()
        var depth: Int?
        var range: Range<Int>?
        let event = try CloudEvent(json: message, validatedDataDepth: &depth, dataRange: &range)
        #expect(event.data == nil && depth == 2, "an object of scalars")
        let found = try #require(range)
        #expect(Array(message[found]) == sample.data)
        #expect(event.dataContentType == "application/json" && event.id == sample.id && event.time == sample.time)

        for json in [
            #"{"specversion":"1.0","id":"1","source":"s","type":"t","data":"text"}"#,
            #"{"specversion":"1.0","id":"1","source":"s","type":"t","data_base64":"AAE="}"#,
            #"{"specversion":"1.0","id":"1","source":"s","type":"t"}"#,
        ] {
            var otherDepth: Int?
            var otherRange: Range<Int>? = 0..<1
            let inPlace = try CloudEvent(
                json: Array(json.utf8), validatedDataDepth: &otherDepth, dataRange: &otherRange)
            #expect(otherRange == nil)
            #expect(inPlace == (try CloudEvent(json: Array(json.utf8))), "the same event as a plain read")
        }
    }
}

@Suite("RFC 3339 timestamps")
struct RFC3339Tests {
    @Test("Formatting writes UTC with milliseconds, before and after 1970")
    func formats() {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 951_782_400.25)) == "2000-02-29T00:00:00.250Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500Z")
    }

    @Test("Times RFC 3339 cannot write are clamped to its range, never a crash")
    func clampsUnwritableTimes() throws {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: .infinity)) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1e300)) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -.infinity)) == "0000-01-01T00:00:00.000Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.string(from: .distantFuture) == "4001-01-01T00:00:00.000Z")
        let event = CloudEvent(id: "1", source: "s", type: "t", time: Date(timeIntervalSince1970: .infinity))
        let read = try #require(try CloudEvent(json: event.jsonBytes()).time)
        #expect(abs(read.timeIntervalSince1970 - 253_402_300_799.999) < 0.001)
    }

    @Test("Parsing accepts offsets, fractions and lowercase separators")
    func parses() {
        #expect(RFC3339.date(from: "1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339.date(from: "1970-01-01t01:00:00.5+01:00") == Date(timeIntervalSince1970: 0.5))
        #expect(RFC3339.date(from: "1969-12-31T19:00:00-05:00z") == nil)
        #expect(RFC3339.date(from: "1969-12-31T19:00:00-05:00") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339.date(from: "2023-02-29T00:00:00Z") == nil, "not a leap year")
        #expect(RFC3339.date(from: "2024-02-29T00:00:00Z") != nil)
        #expect(RFC3339.date(from: "2024-13-01T00:00:00Z") == nil)
        #expect(RFC3339.date(from: "2024-01-01T00:00:00") == nil, "an offset is required")
        #expect(RFC3339.date(from: "2024-01-01T00:00:00.Z") == nil)
    }

    @Test("The bridges' own layout is read to exactly the general parser's date, or refused like it")
    func canonicalLayoutAgreesWithGeneralParser() {
        var generator = SystemRandomNumberGenerator()
        var texts: [String] = []
        for _ in 0..<2_000 {
            let milliseconds = Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &generator)
            texts.append(RFC3339.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000)))
        }
        // Canonical in layout, invalid in content: the fast path must refuse them as well.
        texts += [
            "2023-02-29T00:00:00.000Z", "2024-13-01T00:00:00.000Z", "2024-00-10T00:00:00.000Z",
            "2024-01-00T00:00:00.000Z", "2024-01-01T24:00:00.000Z", "2024-01-01T00:60:00.000Z",
            "2024-01-01T00:00:61.000Z", "2024-01-01T00:00:60.000Z", "2024-0a-01T00:00:00.000Z",
            "2024-01-01T00:00:00.00/Z", "+024-01-01T00:00:00.000Z",
        ]
        for text in texts {
            // A lowercase `z` is valid RFC 3339 but not the bridges' layout: the general parser
            // reads it.
            let general = RFC3339.date(from: String(text.dropLast()) + "z")
            #expect(RFC3339.date(from: text) == general, "\(text)")
        }
        #expect(RFC3339.date(from: "2024-02-29T23:59:60.500Z") != nil, "a leap second")
        #expect(RFC3339.date(from: "2024-01-01T00:00:00.000Z") == Date(timeIntervalSince1970: 1_704_067_200))
    }

    @Test(
        "Format then parse is the identity at millisecond precision",
        arguments: [0.0, 1.001, 1_796_026_502.125, -86_400.999])
    func roundTrips(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(RFC3339.date(from: RFC3339.string(from: date)) == date)
    }
}
