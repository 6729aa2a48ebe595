import Testing

@testable import Events

private let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
private let parentID = "00f067aa0ba902b7"
private let sampled = "00-\(traceID)-\(parentID)-01"

/// Expects `traceparent` (with `tracestate`) to be refused for `field`, with a reason that
/// mentions `words`.
private func expectRefused(
    _ traceparent: String, tracestate: String? = nil, field: TraceContextError.Field = .traceparent,
    mentioning words: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(sourceLocation: sourceLocation) {
        _ = try TraceContext(traceparent: traceparent, tracestate: tracestate)
    } throws: { error in
        guard let error = error as? TraceContextError else { return false }
        return error.field == field && error.reason.contains(words)
    }
}

@Suite("Trace context: reading traceparent and tracestate")
struct TraceContextParsingTests {
    @Test("a version 00 traceparent gives its trace id, parent id and flags")
    func validVersionZero() throws {
        let trace = try TraceContext(traceparent: sampled)
        #expect(trace.traceparent == sampled)
        #expect(trace.tracestate == nil)
        #expect(trace.version == 0)
        #expect(trace.traceID == traceID)
        #expect(trace.parentID == parentID)
        #expect(trace.flags == 1)
        #expect(trace.isSampled)
        #expect(trace.description == sampled)

        let unsampled = try TraceContext(traceparent: "00-\(traceID)-\(parentID)-00")
        #expect(!unsampled.isSampled)
        let otherFlags = try TraceContext(traceparent: "00-\(traceID)-\(parentID)-fe")
        #expect(otherFlags.flags == 0xFE)
        #expect(!otherFlags.isSampled)
    }

    @Test("contexts with the same values are equal and hash alike")
    func equality() throws {
        let a = try TraceContext(traceparent: sampled, tracestate: "rojo=1")
        let b = try TraceContext(traceparent: sampled, tracestate: "rojo=1")
        let c = try TraceContext(traceparent: sampled)
        #expect(a == b)
        #expect(Set([a, b, c]).count == 2)
        #expect(a.description == sampled + " rojo=1")
    }

    @Test("a traceparent of the wrong length is refused")
    func wrongLength() {
        expectRefused(String(sampled.dropLast()), mentioning: "fewer than 55")
        expectRefused("", mentioning: "fewer than 55")
        expectRefused(sampled + "-", mentioning: "exactly 55")
        expectRefused(sampled + "0", mentioning: "exactly 55")
    }

    @Test("a traceparent with a dash missing or misplaced is refused")
    func dashes() {
        expectRefused("00_\(traceID)-\(parentID)-01", mentioning: "character 3")
        expectRefused("00-\(traceID)_\(parentID)-01", mentioning: "character 36")
        expectRefused("00-\(traceID)-\(parentID)_01", mentioning: "character 53")
    }

    @Test("uppercase or other non-hex digits are refused in every field")
    func notLowercaseHex() {
        expectRefused("00-\(traceID.uppercased())-\(parentID)-01", mentioning: "trace id must be lowercase hex")
        expectRefused("00-\(traceID)-00F067AA0BA902B7-01", mentioning: "parent id must be lowercase hex")
        expectRefused("0g-\(traceID)-\(parentID)-01", mentioning: "version must be lowercase hex")
        expectRefused("00-\(traceID)-\(parentID)-0x", mentioning: "flags must be lowercase hex")
        expectRefused("00-\(traceID)-\(parentID)-0A", mentioning: "flags must be lowercase hex")
    }

    @Test("an all-zero trace id or parent id is refused")
    func allZero() {
        expectRefused("00-\(String(repeating: "0", count: 32))-\(parentID)-01", mentioning: "trace id is all zero")
        expectRefused("00-\(traceID)-\(String(repeating: "0", count: 16))-01", mentioning: "parent id is all zero")
    }

    @Test("random changes to a traceparent are accepted exactly when the W3C rules allow them (fuzz, fixed seed)")
    func randomChangesAgreeWithTheRules() {
        /// The rules for a 55-character value, written from the specification on their own.
        func allowed(_ text: [UInt8]) -> Bool {
            let hex = Set("0123456789abcdef".utf8)
            let fields = [0..<2, 3..<35, 36..<52, 53..<55]
            guard text.count == 55, [2, 35, 52].allSatisfy({ text[$0] == UInt8(ascii: "-") }),
                fields.allSatisfy({ text[$0].allSatisfy(hex.contains) })
            else { return false }
            let zero = UInt8(ascii: "0")
            return !text[3..<35].allSatisfy { $0 == zero } && !text[36..<52].allSatisfy { $0 == zero }
                && !(text[0] == UInt8(ascii: "f") && text[1] == UInt8(ascii: "f"))
        }
        var generator = SeededGenerator(seed: 0x7ACE)
        let alphabet = Array("0123456789abcdefABCDEF-_xz ".utf8)
        var accepted = 0
        for round in 0..<20_000 {
            var bytes = Array(sampled.utf8)
            // A few random bytes changed; every so often whole fields zeroed or set to ff.
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                bytes[Int.random(in: 0..<55, using: &generator)] = alphabet.randomElement(using: &generator)!
            }
            if round % 7 == 0 { for offset in 3..<35 { bytes[offset] = UInt8(ascii: "0") } }
            if round % 11 == 0 { for offset in 36..<52 { bytes[offset] = UInt8(ascii: "0") } }
            if round % 13 == 0 { bytes[0] = UInt8(ascii: "f"); bytes[1] = UInt8(ascii: "f") }
            let text = String(decoding: bytes, as: UTF8.self)
            let parsed = try? TraceContext(traceparent: text)
            #expect((parsed != nil) == allowed(bytes), "\(text)")
            if parsed != nil { accepted += 1 }
        }
        #expect(accepted > 2_000 && accepted < 18_000, "both outcomes are exercised: \(accepted) accepted")
    }

    @Test("the one-pass tracestate check accepts only what the member-by-member check accepts (fuzz, fixed seed)")
    func plainTracestateAgrees() {
        var generator = SeededGenerator(seed: 0x57A7E)
        let alphabet = Array("abz09_-*/@=, \t\"~AZ".utf8)
        let seeds = ["rojo=00f067aa0ba902b7", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7", "a=1,b=2,c=3", "t@sys=v"]
        var plain = 0
        for round in 0..<20_000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<Int.random(in: 0...2, using: &generator) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[position] = alphabet.randomElement(using: &generator)!
                case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                default: bytes.remove(at: position)
                }
            }
            bytes.withUnsafeBufferPointer { buffer in
                guard let count = TraceContext.membersIfPlain(buffer) else { return }
                plain += 1
                let (members, problem) = TraceContext.tracestateProblemByMember(buffer)
                #expect(
                    problem == nil && members == count,
                    "\(String(decoding: bytes, as: UTF8.self)): \(count) members, \(problem ?? "\(members)")")
            }
        }
        #expect(plain > 5_000, "the one-pass check took most valid values: \(plain)")
    }

    @Test("version ff is refused")
    func versionFF() {
        expectRefused("ff-\(traceID)-\(parentID)-01", mentioning: "version ff")
    }

    @Test("a later version is read as version 00, and what follows a further dash is kept")
    func laterVersion() throws {
        let exact = try TraceContext(traceparent: "cc-\(traceID)-\(parentID)-01")
        #expect(exact.version == 0xCC)
        #expect(exact.traceID == traceID)
        let longer = "01-\(traceID)-\(parentID)-09-what-a-later-version-adds"
        let extended = try TraceContext(traceparent: longer)
        #expect(extended.traceparent == longer)
        #expect(extended.version == 1)
        #expect(extended.parentID == parentID)
        #expect(extended.flags == 9)
        #expect(extended.isSampled)
        expectRefused("01-\(traceID)-\(parentID)-01x", mentioning: "character 56")
    }

    @Test("a valid tracestate is kept as given; an empty or blank one is none")
    func validTracestate() throws {
        let state = "rojo=00f067aa0ba902b7 ,\tcongo=t61rcWkgMzE, , acme@vendor=x y_z,3tenant@sys-1=~!"
        let trace = try TraceContext(traceparent: sampled, tracestate: state)
        #expect(trace.tracestate == state)
        #expect(try TraceContext(traceparent: sampled, tracestate: "").tracestate == nil)
        #expect(try TraceContext(traceparent: sampled, tracestate: " ,\t, ").tracestate == nil)
    }

    @Test("a tracestate of 32 members passes, one of 33 is refused")
    func memberLimit() throws {
        func members(_ count: Int) -> String { (0..<count).map { "k\($0)=v" }.joined(separator: ",") }
        #expect(try TraceContext(traceparent: sampled, tracestate: members(32)).tracestate == members(32))
        expectRefused(sampled, tracestate: members(33), field: .tracestate, mentioning: "more than 32 members")
    }

    @Test("a tracestate of 512 characters passes, one of 513 is refused")
    func lengthLimit() throws {
        let longest = "a=" + String(repeating: "v", count: 254) + ",b=" + String(repeating: "w", count: 253)
        #expect(longest.utf8.count == 512)
        #expect(try TraceContext(traceparent: sampled, tracestate: longest).tracestate == longest)
        expectRefused(sampled, tracestate: longest + "x", field: .tracestate, mentioning: "more than 512")
    }

    @Test("a tracestate with a malformed member, key or value, or a repeated key, is refused")
    func invalidTracestate() {
        expectRefused(sampled, tracestate: "rojo", field: .tracestate, mentioning: "has no \"=\"")
        expectRefused(sampled, tracestate: "Rojo=1", field: .tracestate, mentioning: "key \"Rojo\"")
        expectRefused(sampled, tracestate: "1rojo=1", field: .tracestate, mentioning: "key \"1rojo\"")
        expectRefused(sampled, tracestate: "=1", field: .tracestate, mentioning: "key \"\"")
        expectRefused(sampled, tracestate: "a@=1", field: .tracestate, mentioning: "key \"a@\"")
        expectRefused(sampled, tracestate: "a@1b=1", field: .tracestate, mentioning: "key \"a@1b\"")
        expectRefused(sampled, tracestate: "rojo=", field: .tracestate, mentioning: "value of \"rojo\"")
        expectRefused(sampled, tracestate: "rojo=a=b", field: .tracestate, mentioning: "value of \"rojo\"")
        expectRefused(sampled, tracestate: "rojo=é", field: .tracestate, mentioning: "value of \"rojo\"")
        expectRefused(sampled, tracestate: "rojo=1,congo=2,rojo=3", field: .tracestate, mentioning: "appears twice")
        let longKey = "a" + String(repeating: "b", count: 256)
        expectRefused(sampled, tracestate: longKey + "=1", field: .tracestate, mentioning: "is not a valid")
    }

    @Test("the error names the field, the value and the reason")
    func errorDescription() {
        do {
            _ = try TraceContext(traceparent: "00-\(String(repeating: "0", count: 32))-\(parentID)-01")
            Issue.record("an all-zero trace id was accepted")
        } catch {
            #expect(error.field == .traceparent)
            #expect(
                error.description
                    == "Invalid traceparent \"00-00000000000000000000000000000000-\(parentID)-01\": the trace id is all zero."
            )
        }
    }
}
