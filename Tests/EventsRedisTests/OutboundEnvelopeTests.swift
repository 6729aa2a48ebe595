import Foundation
import Testing

@testable import EventsRedis

@Suite("Outbound envelopes")
struct OutboundEnvelopeTests {
    struct Payload: Codable, Equatable {
        let n: Int
        let text: String
    }

    /// Unusual text for every attribute the envelope escapes once and every one it writes per
    /// event: quotes, backslashes, slashes, control characters, non-ASCII text.
    static let tricky = "quote \" backslash \\ slash / newline \n bell \u{07} é 🎉"

    @Test(
        "An envelope writes exactly what CloudEvent.jsonBytes() writes for the same attributes",
        arguments: [nil, "Checkout", OutboundEnvelopeTests.tricky])
    func matchesJSONBytes(subject: String?) throws {
        let time = Date(timeIntervalSince1970: 1_796_026_502.125)
        for (source, type) in [("shop/api-1", "com.example.order"), (Self.tricky, Self.tricky), ("s", "t")] {
            let envelope = OutboundEnvelope(type: type, source: source, idPrefix: "9f3a-")
            for sequence in [0, 7, 1_234_567, UInt64.max] as [UInt64] {
                let payload = Payload(n: Int(sequence % 1000), text: Self.tricky)
                let written = try envelope.message(sequence: sequence, subject: subject, time: time) { output in
                    try OutboundEnvelope.appendData(payload, to: &output)
                }
                let expected = CloudEvent(
                    id: "9f3a-\(sequence)", source: source, type: type, subject: subject, time: time,
                    data: Array(try JSONEncoder().encode(payload)))
                // Foundation on Linux writes members in hash order: compare data as a value.
                let read = try CloudEvent(json: written)
                #expect(read.id == expected.id)
                #expect(read.source == source && read.type == type && read.subject == subject)
                #expect(read.time == time && read.dataContentType == "application/json")
                #expect(try JSONDecoder().decode(Payload.self, from: Data(read.data ?? [])) == payload)
                var sameData = expected
                sameData.data = read.data
                #expect(written == sameData.jsonBytes(), "byte for byte, with the data as written")
            }
        }
    }

    @Test("An event without data gets no data member, and the message is still one JSON object")
    func withoutData() throws {
        let time = Date(timeIntervalSince1970: 0)
        let envelope = OutboundEnvelope(type: "ping", source: "a/1", idPrefix: "p-")
        let written = envelope.message(sequence: 3, subject: nil, time: time) { _ in }
        #expect(written == CloudEvent(id: "p-3", source: "a/1", type: "ping", time: time).jsonBytes())
        #expect(try CloudEvent(json: written).data == nil)
    }

    @Test("A value the wire encoder leaves to Foundation is appended whole, after the envelope")
    func foundationFallback() throws {
        // A Date is left to Foundation (seconds since 2001), after the wire encoder began.
        struct Stamped: Codable, Equatable {
            let label: String
            let at: Date
        }
        let value = Stamped(label: "x", at: Date(timeIntervalSince1970: 1_000))
        var output = Array("prefix".utf8)
        try WireJSON.encode(value, appendingTo: &output)
        #expect(output.starts(with: Array("prefix".utf8)))
        let data = Data(output.dropFirst("prefix".utf8.count))
        #expect(try JSONDecoder().decode(Stamped.self, from: data) == value)
    }

    @Test("A value that cannot be encoded leaves the output as it was and throws")
    func failureLeavesOutput() {
        struct Unencodable: Encodable {
            struct Refusal: Error {}
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(1, forKey: .first)
                throw Refusal()
            }
            enum CodingKeys: CodingKey { case first }
        }
        var output = Array("kept".utf8)
        #expect(throws: (any Error).self) { try WireJSON.encode(Unencodable(), appendingTo: &output) }
        #expect(output == Array("kept".utf8))
    }
}
