import Foundation
import Testing

@testable import EventsRedis

private struct Number: Codable, Equatable {
    let a: Double
}

private struct SmallNumber: Codable, Equatable {
    let a: Float
}

private struct Listing: Codable, Equatable {
    let name: String
    let tags: [String]
    let count: Int
}

/// An error by its description, to compare two decoders' errors.
private struct Described: Error, Equatable {
    let text: String
}

/// The outcome of a decode, comparable: the value, or the error's description.
private func outcome<Value: Decodable & Equatable>(_ decode: () throws -> Value) -> Result<Value, Described> {
    do {
        return .success(try decode())
    } catch {
        return .failure(Described(text: String(describing: error)))
    }
}

@Suite("Wire JSON decoder on untrusted bytes")
struct WireJSONUntrustedInputTests {
    @Test(
        "A zero written with an exponent decodes, or fails, exactly as Foundation decides",
        arguments: ["0e1", "0e9", "0E5", "0.00e1", "-0.0e1", "0e10", "0e+1", "0e-1", "0.0e1", "-0e1", "0e0"])
    func zeroWithExponent(number: String) {
        let document = Array(#"{"a":\#(number)}"#.utf8)
        #expect(
            outcome { try WireJSON.decode(Number.self, from: document) }
                == outcome { try JSONDecoder().decode(Number.self, from: Data(document)) })
        #expect(
            outcome { try WireJSON.decode(SmallNumber.self, from: document) }
                == outcome { try JSONDecoder().decode(SmallNumber.self, from: Data(document)) })
        // The wire decoder leaves every such zero to Foundation, whatever it decides.
        #expect(throws: WireJSONUnsupported.self) { try WireJSONDecoder.decode(Number.self, from: document) }
        #expect(throws: WireJSONUnsupported.self) { try WireJSONDecoder.decode(SmallNumber.self, from: document) }
    }

    @Test("Plain zeros are still read by the wire decoder, signed as written")
    func plainZeros() throws {
        for (text, sign) in [("0", FloatingPointSign.plus), ("-0", .minus), ("0.000", .plus), ("-0.0", .minus)] {
            let value = try WireJSONDecoder.decode(Number.self, from: Array(#"{"a":\#(text)}"#.utf8))
            #expect(value.a == 0 && value.a.sign == sign)
        }
    }

    @Test(
        "Bytes wrongly said to be validated are refused, never read past their end",
        arguments: [
            "\n", " ", "{", "[", "\"", "\"abc", "\"ab\\", "{\"name\"", "{\"name\":", "{\"name\":\"x",
            "{\"name\" \"x\"}",
            "{\"name\":\"x\",", "{\"name\":\"x\" \"tags\":[]}", "{\"name\":\"x\",\"tags\":[\"a\"",
            "{\"name\":\"x\",\"tags\":[\"a\" 1]",
            "{\"name\":\"x\",\"tags\":[\"a\",", "{\"count\":1", "{\"count\":-", "}", "]", ",", "nul", "\u{0}",
            "{\"name\":\"\\u12", "{\"name\":\"\\ud800\\u", "{\"name\":\"\\",
        ])
    func untrustedValidation(document: String) {
        let bytes = Array(document.utf8)
        for depth in [1, 2, WireJSONDecoder.maximumDepth] {
            // Whatever it returns (it cannot tell), it reads inside the bytes and ends.
            _ = try? WireJSONDecoder.decode(Listing.self, from: bytes, validatedDepth: depth)
            _ = try? WireJSONDecoder.decode([String].self, from: bytes, validatedDepth: depth)
            _ = try? WireJSONDecoder.decode(String.self, from: bytes, validatedDepth: depth)
            _ = try? WireJSONDecoder.decode([String: [Int]].self, from: bytes, validatedDepth: depth)
            #expect(throws: (any Error).self) {
                try WireJSONDecoder.decode(Listing.self, from: bytes, validatedDepth: depth)
            }
        }
    }

    @Test("A part of a larger buffer is read within that part only")
    func rangeIsTheDocument() throws {
        // The document is the first bytes; what follows must not be read as its continuation.
        let bytes = Array(#"{"name":"x","tags":["a"],"count":1}"#.utf8)
        let cut = bytes.firstIndex(of: UInt8(ascii: ","))!
        #expect(throws: (any Error).self) {
            try WireJSONDecoder.decode(Listing.self, from: bytes, in: 0..<cut, validatedDepth: 1)
        }
        let whole = try WireJSONDecoder.decode(Listing.self, from: bytes, in: 0..<bytes.count, validatedDepth: 2)
        #expect(whole == Listing(name: "x", tags: ["a"], count: 1))
    }
}
