import Events
import Foundation
import Testing

@testable import EventsRedis

// The wire coders keep one spare coder between calls (`SpareCoder`). These tests check what
// reuse must never do: hand a coder that user code still holds to the next call, or let two
// threads share one.

/// Holds on to the decoder that decodes it, as a badly behaved `init(from:)` may.
private struct KeepsItsDecoder: Decodable {
    let decoder: any Decoder
    let text: String

    private enum CodingKeys: String, CodingKey { case text }

    init(from decoder: any Decoder) throws {
        self.decoder = decoder
        text = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .text)
    }

    /// Reads `text` again through the decoder it kept.
    func textReadAgain() throws -> String {
        try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .text)
    }
}

/// Holds on to the encoder that encodes it, and reports which one that was.
private final class EncoderRecord: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var encoders: [AnyObject] = []

    func record(_ encoder: any Encoder) { lock.withLock { encoders.append(encoder as AnyObject) } }
    var all: [AnyObject] { lock.withLock { encoders } }
}

private struct KeepsItsEncoder: Encodable {
    let text: String
    let record: EncoderRecord

    private enum CodingKeys: String, CodingKey { case text }

    func encode(to encoder: any Encoder) throws {
        record.record(encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
    }
}

private struct Sample: Codable, Equatable {
    let n: Int
    let text: String
    let list: [String]
}

/// Decodes its children before its own name, so that its container is asked for a member after
/// nested containers were made.
private struct Tree: Codable, Equatable {
    let name: String
    let children: [Tree]

    init(name: String, children: [Tree]) {
        self.name = name
        self.children = children
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        children = try container.decode([Tree].self, forKey: .children)
        name = try container.decode(String.self, forKey: .name)
    }
}

@Suite("Wire JSON coder reuse")
struct WireJSONReuseTests {
    @Test("A decoder kept by the decoded value is never reused: it still reads its own document")
    func keptDecoderIsNotReused() throws {
        let first = Array(#"{"text":"the first document"}"#.utf8)
        let kept = try WireJSONDecoder.decode(KeepsItsDecoder.self, from: first)
        // Later decodes, of longer documents, would overwrite a shared buffer.
        for round in 0..<50 {
            let text = String(repeating: "later \(round) ", count: 20)
            let later = Array(#"{"n":\#(round),"text":"\#(text)","list":["a","b"]}"#.utf8)
            #expect(
                try WireJSONDecoder.decode(Sample.self, from: later) == Sample(n: round, text: text, list: ["a", "b"]))
        }
        #expect(kept.text == "the first document")
        #expect(try kept.textReadAgain() == "the first document")
    }

    @Test("An encoder kept by the encoded value is never handed to a later encode")
    func keptEncoderIsNotReused() throws {
        let record = EncoderRecord()
        let kept = try WireJSONEncoder.encode(KeepsItsEncoder(text: "first", record: record))
        #expect(String(decoding: kept, as: UTF8.self) == #"{"text":"first"}"#)
        for round in 0..<20 {
            let output = try WireJSONEncoder.encode(KeepsItsEncoder(text: "round \(round)", record: record))
            #expect(String(decoding: output, as: UTF8.self) == #"{"text":"round \#(round)"}"#)
        }
        // Each value kept its encoder (the record holds them), so no two encodes shared one.
        let encoders = record.all
        #expect(encoders.count == 21)
        #expect(Set(encoders.map(ObjectIdentifier.init)).count == 21)
    }

    @Test("Documents larger than a spare decoder keeps decode, and so do small ones after them")
    func largeThenSmallDocuments() throws {
        for length in [10, 100_000, 20, WireJSONDecoder.largestSpareBuffer + 1, 5, 3_000] {
            let text = String(repeating: "x", count: length)
            let document = try JSONEncoder().encode(Sample(n: length, text: text, list: [text]))
            let decoded = try WireJSONDecoder.decode(Sample.self, from: Array(document))
            #expect(decoded == Sample(n: length, text: text, list: [text]))
        }
    }

    @Test("A container reads its own members after nested containers added theirs, in documents large and small")
    func membersOutliveNestedContainers() throws {
        let leaf = Tree(name: "leaf", children: [])
        let wide = Tree(name: "wide", children: (0..<2_000).map { Tree(name: "\($0)", children: [leaf]) })
        for tree in [Tree(name: "root", children: [leaf, Tree(name: "mid", children: [leaf, leaf])]), wide, leaf] {
            let document = try JSONEncoder().encode(tree)
            #expect(try WireJSONDecoder.decode(Tree.self, from: Array(document)) == tree)
        }
    }

    @Test("Threads coding at once each get a coder of their own: every round trip is exact")
    func concurrentRoundTrips() async throws {
        let failures = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var failures = 0
                    for round in 0..<2_000 {
                        // Lengths vary so that a shared buffer would mix documents up.
                        let text = String(repeating: Character(Unicode.Scalar(UInt8(97 + worker))), count: round % 300)
                        let value = Sample(n: worker * 1_000_000 + round, text: text, list: [text, "\(round)"])
                        guard let bytes = try? WireJSONEncoder.encode(value),
                            let decoded = try? WireJSONDecoder.decode(Sample.self, from: bytes), decoded == value
                        else {
                            failures += 1
                            continue
                        }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }
}
