// The RESP2 reply parser and the Pub/Sub frame reader, on any bytes.
//
// The first input byte picks the limits (small ones too, to reach every limit check); the rest
// is the stream. The reference is the parser fed everything at once and read with `next()`;
// then each of these must give the same values and end the same way (same error, or needing
// more bytes):
// - the same parser fed the bytes in chunks of sizes drawn from the input, read after each;
// - `nextFrame(message:)`, whose message frames must be exactly the reference's arrays of
//   `message`, channel and payload;
// - `nextParsed` handing each reply's bytes to the stream reply reader, whose entries must be
//   those read from the reference's value (or the same error).

import Foundation

@testable import Events
@testable import EventsRedis
@testable import EventsRedisClient

struct Outcome: Equatable {
    var values: [RESPValue] = []
    var error: String?
}

func readAll(_ parser: inout RESPParser, into outcome: inout Outcome) {
    guard outcome.error == nil else { return }
    do {
        while let value = try parser.next() { outcome.values.append(value) }
    } catch {
        outcome.error = String(describing: error)
    }
}

func messageValue(_ channel: [UInt8], _ payload: [UInt8]) -> RESPValue {
    .array([.bulkString(Array("message".utf8)), .bulkString(channel), .bulkString(payload)])
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRESP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let selector = input.byte()
    let chunking = input.byte()
    let stream = input.rest
    let limits =
        selector & 1 == 0
        ? RESPLimits()
        : RESPLimits(
            maxBulkBytes: Int(selector >> 1 & 0x07) * 4, maxArrayCount: Int(selector >> 4 & 0x03) * 2,
            maxNesting: Int(selector >> 6))

    var reference = Outcome()
    var whole = RESPParser(limits: limits)
    whole.append(contentsOf: stream)
    readAll(&whole, into: &reference)

    // In chunks: sizes 1...16 from a generator seeded by the input.
    var chunked = Outcome()
    var parser = RESPParser(limits: limits)
    var state = UInt32(chunking) | 0x9E37_0000
    var offset = 0
    while offset < stream.count {
        state = state &* 1_103_515_245 &+ 12_345
        let size = min(Int(state >> 16 & 0x0F) + 1, stream.count - offset)
        stream[offset..<offset + size].withUnsafeBytes { parser.append($0) }
        offset += size
        readAll(&parser, into: &chunked)
    }
    if stream.isEmpty { readAll(&parser, into: &chunked) }
    fuzzCheck(chunked == reference, "chunked reading differs: \(chunked) against \(reference)")

    // Frames.
    var frames = Outcome()
    var framer = RESPParser(limits: limits)
    framer.append(contentsOf: stream)
    do {
        while let frame = try framer.nextFrame(message: { channel, payload in (Array(channel), Array(payload)) }) {
            switch frame {
            case .message(let (channel, payload)): frames.values.append(messageValue(channel, payload))
            case .value(let value):
                // A message frame written unusually (`*03`, `$07`) comes as a value, which the
                // subscription reads as a message all the same.
                frames.values.append(value)
            }
        }
    } catch {
        frames.error = String(describing: error)
    }
    fuzzCheck(frames == reference, "frame reading differs: \(frames) against \(reference)")

    // Stream replies read in place.
    var replies = RESPParser(limits: limits)
    replies.append(contentsOf: stream)
    var index = 0
    while index < reference.values.count {
        let walked: Result<[StreamConsumer.Entry], RedisError>?
        do {
            walked = try replies.nextParsed { bytes in StreamConsumer.entries(fromVerbatimRead: bytes) }
        } catch {
            fuzzFailure("nextParsed threw where next() did not: \(error)")
        }
        guard let walked else { fuzzFailure("nextParsed needs more bytes where next() did not") }
        let value = reference.values[index]
        let built: Result<[StreamConsumer.Entry], RedisError>
        if case .error(let text) = value {
            built = .failure(.server(text))
        } else {
            built = Result { () throws(RedisError) in try StreamConsumer.entries(fromRead: value) }
        }
        switch (walked, built) {
        case (.success(let a), .success(let b)): fuzzCheck(a == b, "stream entries differ: \(a) against \(b)")
        case (.failure(let a), .failure(let b)): fuzzCheck(a == b, "stream reply errors differ: \(a) against \(b)")
        default: fuzzFailure("stream reply reading differs: \(walked) against \(built) for \(value)")
        }
        index += 1
    }
    return 0
}
