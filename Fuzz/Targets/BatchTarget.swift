// The CloudEvents batch split and each element's reading, on any bytes.
//
// - A message is a batch exactly when its first byte after whitespace is `[`.
// - A batch's element ranges lie inside it, in order, without overlap, each nonempty.
// - When the message is a strictly valid JSON array (by the fuzzers' own strict reader; not
//   Foundation, which accepts a trailing comma in an array), the split succeeds and its
//   ranges are exactly the array's elements as written.
// - Each element read in place (`in:` its range) is the event read from a copy of its bytes,
//   with its data range shifted to the same bytes.

import Foundation

@testable import Events
@testable import EventsRedis

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBatch(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let message = FuzzInput(start, count).bytes
    let first = message.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
    let split = CloudEventBatch.elements(of: message)
    fuzzCheck((split == nil) == (first != UInt8(ascii: "[")), "batch detection is wrong for \(text(message))")
    guard let split else { return 0 }
    let strict = StrictJSON.arrayElements(of: message)
    guard case .success(let ranges) = split else {
        fuzzCheck(strict == nil, "a valid batch was refused: \(text(message))")
        return 0
    }
    var previousEnd = 0
    for range in ranges {
        fuzzCheck(range.lowerBound >= previousEnd && range.upperBound <= message.count && !range.isEmpty,
            "element range \(range) out of place")
        previousEnd = range.upperBound
    }
    if let strict {
        fuzzCheck(strict == ranges, "elements found at \(ranges), written at \(strict): \(text(message))")
    }
    for range in ranges {
        let copy = Array(message[range])
        var copyDepth: Int?
        var copyRange: Range<Int>?
        let alone = try? CloudEvent(json: copy, validatedDataDepth: &copyDepth, dataRange: &copyRange)
        var depth: Int?
        var dataRange: Range<Int>?
        let inPlace = try? CloudEvent(json: message, in: range, validatedDataDepth: &depth, dataRange: &dataRange)
        fuzzCheck(alone == inPlace, "element \(range) reads differently in place")
        fuzzCheck(copyDepth == depth, "element \(range): validated depths differ")
        fuzzCheck((copyRange == nil) == (dataRange == nil), "element \(range): data ranges differ")
        if let copyRange, let dataRange {
            fuzzCheck(
                dataRange.lowerBound >= range.lowerBound && dataRange.upperBound <= range.upperBound
                    && Array(copy[copyRange]) == Array(message[dataRange]),
                "element \(range): data range \(dataRange) is not the copy's \(copyRange)")
        }
    }
    return 0
}
