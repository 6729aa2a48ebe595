import Foundation
import RedisTestSupport
import Testing

@testable import EventsRedis

// The coding paths a type sees while the wire coders code it, against Foundation's: a type may
// read `codingPath` (to decide what to write, or to say where a value was bad), so the wire
// coders must report the same paths, at every depth and from every kind of container.

/// Where the paths seen during one encode or decode are written down.
final class CodingPathLog: Sendable {
    @TaskLocal static var current: CodingPathLog?

    private let entries = Log<String>()

    static func note(_ place: String, _ path: [any CodingKey]) {
        let keys = path.map { key in key.intValue.map { "\(key.stringValue)#\($0)" } ?? key.stringValue }
        current?.entries.append(place + ": " + keys.joined(separator: "/"))
    }

    var values: [String] { entries.values }
}

/// A value read and written through keyed, nested, unkeyed and single value containers, noting
/// every coding path on the way.
struct PathLeaf: Codable, Equatable {
    var value: Int

    enum Keys: String, CodingKey { case value }

    init(value: Int) {
        self.value = value
    }

    func encode(to encoder: any Encoder) throws {
        CodingPathLog.note("leaf coder", encoder.codingPath)
        var container = encoder.container(keyedBy: Keys.self)
        CodingPathLog.note("leaf container", container.codingPath)
        try container.encode(value, forKey: .value)
    }

    init(from decoder: any Decoder) throws {
        CodingPathLog.note("leaf coder", decoder.codingPath)
        let container = try decoder.container(keyedBy: Keys.self)
        CodingPathLog.note("leaf container", container.codingPath)
        value = try container.decode(Int.self, forKey: .value)
    }
}

/// Wraps a leaf in a single value container.
struct PathWrapper: Codable, Equatable {
    var leaf: PathLeaf

    init(leaf: PathLeaf) {
        self.leaf = leaf
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        CodingPathLog.note("wrapper container", container.codingPath)
        try container.encode(leaf)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        CodingPathLog.note("wrapper container", container.codingPath)
        leaf = try container.decode(PathLeaf.self)
    }
}

struct PathTree: Codable, Equatable {
    var leaf = PathLeaf(value: 1)
    var list = [PathLeaf(value: 2), PathLeaf(value: 3)]
    var wrapped = PathWrapper(leaf: PathLeaf(value: 4))
    var deep = PathLeaf(value: 5)
    var last = PathLeaf(value: 6)

    enum Keys: String, CodingKey { case leaf, nested, list, wrapped, deep, inner, last }

    init() {}

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(leaf, forKey: .leaf)
        var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
        CodingPathLog.note("nested", nested.codingPath)
        var list = nested.nestedUnkeyedContainer(forKey: .list)
        CodingPathLog.note("list", list.codingPath)
        for leaf in self.list { try list.encode(leaf) }
        var inner = list.nestedContainer(keyedBy: Keys.self)
        CodingPathLog.note("list inner", inner.codingPath)
        try inner.encode(deep, forKey: .deep)
        try nested.encode(wrapped, forKey: .wrapped)
        CodingPathLog.note("nested after", nested.codingPath)
        try container.encode(last, forKey: .last)
        CodingPathLog.note("top after", container.codingPath)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        leaf = try container.decode(PathLeaf.self, forKey: .leaf)
        let nested = try container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
        CodingPathLog.note("nested", nested.codingPath)
        var list = try nested.nestedUnkeyedContainer(forKey: .list)
        CodingPathLog.note("list", list.codingPath)
        self.list = [try list.decode(PathLeaf.self), try list.decode(PathLeaf.self)]
        let inner = try list.nestedContainer(keyedBy: Keys.self)
        CodingPathLog.note("list inner", inner.codingPath)
        deep = try inner.decode(PathLeaf.self, forKey: .deep)
        wrapped = try nested.decode(PathWrapper.self, forKey: .wrapped)
        CodingPathLog.note("nested after", nested.codingPath)
        last = try container.decode(PathLeaf.self, forKey: .last)
        CodingPathLog.note("top after", container.codingPath)
    }
}

/// Notes how many keys the wire encoder holds while it encodes this value.
struct KeyCountProbe: Encodable {
    func encode(to encoder: any Encoder) throws {
        if let encoder = encoder as? WireJSONEncoder {
            CodingPathLog.note("keys held \(encoder.recordedKeyCount)", encoder.codingPath)
        }
        var container = encoder.singleValueContainer()
        try container.encode(0)
    }
}

/// A thousand probes, each in a nested container of its own inside an array.
struct ManyNestedProbes: Encodable {
    enum Keys: String, CodingKey { case probe }

    func encode(to encoder: any Encoder) throws {
        var list = encoder.unkeyedContainer()
        for _ in 0..<1_000 {
            var nested = list.nestedContainer(keyedBy: Keys.self)
            try nested.encode(KeyCountProbe(), forKey: .probe)
        }
    }
}

@Suite("Wire JSON coding paths")
struct WireJSONCodingPathTests {
    /// The paths noted while `body` runs.
    private func paths(_ body: () throws -> Void) rethrows -> [String] {
        let log = CodingPathLog()
        try CodingPathLog.$current.withValue(log) { try body() }
        return log.values
    }

    @Test("Every container at every depth reports the coding path Foundation's decoder reports")
    func codingPaths() throws {
        let tree = PathTree()
        let json = Array(try JSONEncoder().encode(tree))
        var foundationValue: PathTree?
        let expected = try paths { foundationValue = try JSONDecoder().decode(PathTree.self, from: Data(json)) }
        #expect(foundationValue == tree)
        #expect(expected.contains("leaf coder: nested/list/Index 2#2/deep"), "the whole path, not its last key")

        // The wire coders themselves, not `WireJSON` (which would hand a refused value to
        // Foundation and note the paths twice). Each twice: the second call reuses the first
        // one's coder, which must carry no key over.
        var wireValue: PathTree?
        for _ in 0..<2 {
            #expect(try paths { wireValue = try WireJSONDecoder.decode(PathTree.self, from: json) } == expected)
            #expect(wireValue == tree)
            // Foundation's encoder on Linux gives a value in a nested container only its own
            // key ("deep" for the path above); the wire encoder gives the whole path, as the
            // decoders do and as `Encoder.codingPath` is documented.
            #expect(try paths { _ = try WireJSONEncoder.encode(tree) } == expected)
        }
    }

    @Test("The encoder holds the keys of the open values only, not of every value coded so far")
    func keysAreDroppedWhenValuesEnd() throws {
        let noted = try paths { _ = try WireJSONEncoder.encode(ManyNestedProbes()) }
        #expect(noted.count == 1_000)
        // Each probe sees two keys: its element's index and its own member's.
        #expect(noted.allSatisfy { $0.hasPrefix("keys held 2:") }, "\(Set(noted.map { $0.prefix(14) }))")
        #expect(noted.last == "keys held 2: Index 999#999/probe")
    }
}
