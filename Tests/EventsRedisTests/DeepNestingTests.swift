import Events
import Foundation
import Synchronization
import Testing

@testable import EventsRedis
@testable import EventsRedisClient

/// Nesting from the network never decides how deep the decoders' own calls go: every depth they
/// accept is read, and every deeper one refused, on the smallest stack a bridge's reader can
/// run on, in the debug build these tests use (whose frames are the largest).
@Suite("Deep nesting on the smallest stack")
struct DeepNestingTests {
    /// JSON nested `depth` levels deep: arrays, objects, or the two in turn, around `1`.
    static func nestedJSON(_ depth: Int, _ kind: String) -> String {
        var open = ""
        var close = ""
        for level in 0..<depth {
            let object = kind == "objects" || (kind == "mixed" && level % 2 == 1)
            open += object ? #"{"a":"# : "["
            close += object ? "}" : "]"
        }
        return open + "1" + String(close.reversed())
    }

    /// A CloudEvent with `data`, laid out as bridges write it or (`canonical` false) as another
    /// library might, with whitespace and the members in another order.
    static func event(data: String, canonical: Bool) -> [UInt8] {
        let text =
            canonical
            ? #"{"specversion":"1.0","id":"1","source":"other","type":"\#(Sequenced.wireName)","data":\#(data)}"#
            : #"{ "data" : \#(data), "type": "\#(Sequenced.wireName)", "id": "1", "source": "other", "specversion": "1.0" }"#
        return Array(text.utf8)
    }

    @Test("The helper's thread really has the small stack asked for")
    func threadHasTheSmallStack() async throws {
        #if os(Linux)
            // The mapping that holds a local variable of the thread is its stack.
            let size = await onThread { () -> Int? in
                var marker = 0
                let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
                // Read to the end: the file comes a page per read.
                guard let file = FileHandle(forReadingAtPath: "/proc/self/maps"), let data = try? file.readToEnd()
                else { return nil }
                let maps = String(decoding: data, as: UTF8.self)
                for line in maps.split(separator: "\n") {
                    let bounds = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt($0, radix: 16) }
                    if bounds.count == 2, bounds[0] <= address, address < bounds[1] {
                        return Int(bounds[1] - bounds[0])
                    }
                }
                return nil
            }
            #expect(size == smallestThreadStack)
        #endif
    }

    @Test(
        "A CloudEvent whose data nests 512 levels deep is read on a 512 KiB stack, in either layout",
        arguments: ["arrays", "objects", "mixed"], [true, false])
    func deepDataIsRead(kind: String, canonical: Bool) async {
        // The deepest data Foundation decodes (the scan accepts one level more).
        let json = Self.event(data: Self.nestedJSON(511, kind), canonical: canonical)
        let depth = await onThread { () -> Int? in
            var depth: Int?
            guard (try? CloudEvent(json: json, validatedDataDepth: &depth)) != nil else { return -1 }
            return depth
        }
        #expect(depth == 512)
    }

    @Test(
        "Data nested deeper than the envelope allows is refused with an error on a 512 KiB stack",
        arguments: [514, 100_000])
    func deeperDataIsRefused(levels: Int) async {
        for canonical in [true, false] {
            let json = Self.event(data: Self.nestedJSON(levels - 1, "mixed"), canonical: canonical)
            let reason = await onThread { () -> String? in
                do throws(CloudEventError) {
                    _ = try CloudEvent(json: json)
                    return nil
                } catch {
                    return error.reason
                }
            }
            #expect(reason?.contains("nested deeper than 513 levels") == true, "\(String(describing: reason))")
        }
    }

    @Test("A JSON document nested to the scanner's limit is validated on a 512 KiB stack, one level more refused")
    func scannerValidatesToItsLimit() async {
        for (depth, valid) in [(513, true), (514, false)] {
            let json = Array(Self.nestedJSON(depth - 1, "mixed").utf8)
            let outcome = await onThread { () -> String? in
                json.withUnsafeBufferPointer { bytes in
                    var scanner = JSONScanner(bytes, maxDepth: 513)
                    do throws(JSONScanner.Failure) {
                        try scanner.validateDocument()
                        return nil
                    } catch {
                        return error.message
                    }
                }
            }
            #expect((outcome == nil) == valid, "\(depth) levels: \(String(describing: outcome))")
        }
    }

    @Test("A received event whose data nests 512 deep is reported as undecodable, on a 512 KiB stack")
    func receivedDeepDataIsReported() async {
        let (center, counters, errors) = (EventCenter(), BridgeCounters(), ErrorLog())
        let inbound = Inbound(
            center: center, source: "me", ownIDPrefix: "own-",
            carried: [Sequenced.wireName: .typed(Sequenced.self, mode: .pubSub, key: "k")],
            deduplicationWindow: 100, counters: counters, report: { errors.record($0) })
        let json = Self.event(data: Self.nestedJSON(511, "mixed"), canonical: true)
        await onThread { inbound.receiveNow(json, key: "k") }
        #expect(counters.undecodable.load(ordering: .relaxed) == 1)
        #expect(errors.all.count == 1)
    }

    @Test(
        "RESP arrays nested to the highest nesting limit are parsed on a 512 KiB stack by every reader, one more refused"
    )
    func deepRESPArrays() async {
        let limits = RESPLimits(maxNesting: 512)
        for (depth, valid) in [(512, true), (513, false)] {
            let reply = Array((String(repeating: "*1\r\n", count: depth) + ":7\r\n").utf8)
            let outcomes = await onThread { () -> [String] in
                var outcomes: [String] = []
                for reader in 0..<3 {
                    var parser = RESPParser(limits: limits)
                    // In two reads, so that the second resumes inside the arrays.
                    parser.append(contentsOf: reply[..<(reply.count / 2)])
                    parser.append(contentsOf: [])
                    do throws(RedisError) {
                        switch reader {
                        case 0:
                            guard try parser.next() == nil else { return ["complete too early"] }
                            parser.append(contentsOf: reply[(reply.count / 2)...])
                            var value = try parser.next()
                            var depth = 0
                            while case .array(let elements)? = value {
                                depth += 1
                                value = elements.first
                            }
                            outcomes.append(value == .integer(7) ? "\(depth)" : "wrong value")
                        case 1:
                            guard try parser.nextFrame(message: { _, _ in 0 }) == nil else { return ["early"] }
                            parser.append(contentsOf: reply[(reply.count / 2)...])
                            let frame = try parser.nextFrame(message: { _, _ in 0 })
                            guard case .value = frame else { return ["not a value"] }
                            outcomes.append("\(depth)")
                        default:
                            guard try parser.nextParsed({ $0.count }) == nil else { return ["early"] }
                            parser.append(contentsOf: reply[(reply.count / 2)...])
                            let count = try parser.nextParsed { $0.count }
                            outcomes.append(count == reply.count ? "\(depth)" : "wrong length")
                        }
                    } catch {
                        outcomes.append("\(error)")
                    }
                }
                return outcomes
            }
            let expected =
                valid
                ? "\(depth)" : "\(RedisError.protocolViolation("arrays nested deeper than 512 levels"))"
            #expect(outcomes == [expected, expected, expected], "\(depth) levels")
        }
    }
}
