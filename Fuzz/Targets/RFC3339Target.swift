// The bridge's RFC 3339 parser against the independent strict reading in StrictRFC3339.swift,
// and its writer against both.
//
// - Parsing: both accept or both refuse; when both accept, the instants agree to within the
//   precision a `Date` has there (a few units in the last place, or a microsecond).
// - Writing (inputs whose first byte is 0xFF, then 8 bytes of a Double): the 24-byte timestamp
//   written for any Double (NaN and infinities included) is one both parsers accept, naming
//   that time truncated to the millisecond, clamped to years 0000...9999.

import Foundation

@testable import Events
@testable import EventsRedis

func agree(_ a: Double, _ b: Double) -> Bool {
    abs(a - b) <= max(1e-6, 4 * max(a.ulp, b.ulp))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRFC3339(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    if count == 9 && input.byte() == 0xFF {
        let bits = input.rest.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        // What the Date holds: it counts from 2001, so it may round the Double given.
        let seconds = Date(timeIntervalSince1970: Double(bitPattern: bits)).timeIntervalSince1970
        let text = Array(RFC3339.string(from: Date(timeIntervalSince1970: seconds)).utf8)
        fuzzCheck(text.count == 24, "wrote \(text.count) bytes for \(seconds)")
        guard let strict = StrictRFC3339.seconds(text) else {
            fuzzFailure("the strict parser refuses the written \(String(decoding: text, as: UTF8.self))")
        }
        guard let parsed = text.withUnsafeBufferPointer({ RFC3339.date(fromUTF8: $0) }) else {
            fuzzFailure("the parser refuses the written \(String(decoding: text, as: UTF8.self))")
        }
        fuzzCheck(agree(parsed.timeIntervalSince1970, strict), "the parsers disagree on a written timestamp")
        if seconds.isFinite && seconds > -62_167_219_200 && seconds < 253_402_300_799 {
            let milliseconds = (seconds * 1000).rounded(.down) / 1000
            fuzzCheck(
                agree(strict, milliseconds),
                "\(seconds) was written as \(String(decoding: text, as: UTF8.self)), which is \(strict)")
        }
        return 0
    }
    let text = input.bytes
    let strict = StrictRFC3339.seconds(text)
    let parsed = text.withUnsafeBufferPointer { RFC3339.date(fromUTF8: $0) }
    switch (parsed, strict) {
    case (nil, nil): break
    case (let parsed?, let strict?):
        fuzzCheck(
            agree(parsed.timeIntervalSince1970, strict),
            "\(String(decoding: text, as: UTF8.self)): parsed \(parsed.timeIntervalSince1970), strictly \(strict)")
    case (let parsed?, nil):
        fuzzFailure("accepted what the strict parser refuses: \(String(decoding: text, as: UTF8.self)) as \(parsed)")
    case (nil, let strict?):
        fuzzFailure("refused what the strict parser accepts: \(String(decoding: text, as: UTF8.self)) (\(strict))")
    }
    // The String entry point reads the same bytes.
    if let string = String(validating: text, as: UTF8.self) {
        fuzzCheck(RFC3339.date(from: string) == parsed, "date(from:) differs from date(fromUTF8:)")
    }
    return 0
}
