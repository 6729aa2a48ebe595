/// The CloudEvents JSON batch format (`application/cloudevents-batch+json`): a JSON array whose
/// elements are events in the JSON event format. A bridge sends batches only when
/// ``RedisBridge/Configuration/maxEventsPerMessage`` allows it, and reads them always.
///
/// A message is a batch when its first byte after any whitespace is `[`; a single event is an
/// object, so the two never look alike.
enum CloudEventBatch {
    /// Where each element of `message` lies, or nil when `message` is not a batch.
    ///
    /// Finding the elements only follows the brackets and strings: each element is then read
    /// as a CloudEvent, which validates it strictly, so validating it here too would scan every
    /// event twice. What this does check is the array around them: `[`, elements separated by
    /// commas, `]`, nothing after. A message that fails that is one malformed message; an
    /// element that is not a valid CloudEvent is only that element's failure.
    static func elements(of message: [UInt8]) -> Result<[Range<Int>], CloudEventError>? {
        message.withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: "[") else { return nil }
            scanner.index += 1
            scanner.skipWhitespace()
            var elements: [Range<Int>] = []
            if scanner.peek() == UInt8(ascii: "]") {
                scanner.index += 1
                scanner.skipWhitespace()
            } else {
                while true {
                    guard let end = endOfValue(scanner.bytes, from: scanner.index) else {
                        return .failure(CloudEventError("batch element \(elements.count) is missing or not closed"))
                    }
                    elements.append(scanner.index..<end)
                    scanner.index = end
                    scanner.skipWhitespace()
                    guard let separator = scanner.peek() else {
                        return .failure(CloudEventError("the batch is not closed"))
                    }
                    scanner.index += 1
                    scanner.skipWhitespace()
                    if separator == UInt8(ascii: "]") { break }
                    guard separator == UInt8(ascii: ",") else {
                        return .failure(
                            CloudEventError("expected ',' or ']' after batch element \(elements.count - 1)"))
                    }
                }
            }
            guard scanner.index == bytes.count else {
                return .failure(CloudEventError("unexpected bytes after the batch"))
            }
            return .success(elements)
        }
    }

    /// The end of the value starting at `start`, following brackets and strings only; nil when
    /// the bytes end first or the value is empty.
    private static func endOfValue(_ bytes: CheckedBytes, from start: Int) -> Int? {
        var index = start
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    // An escape's second byte is never the closing quote.
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return nil }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // A closing bracket at depth 0 ends the batch, not this value.
                if depth == 0 { return index > start ? index : nil }
                depth -= 1
                // An object or array ends with the bracket that closes it.
                if depth == 0, bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") {
                    return index + 1
                }
            case UInt8(ascii: ","), 0x20, 0x0A, 0x0D, 0x09:
                if depth == 0 { return index > start ? index : nil }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The length of a batch of events of these encoded lengths.
    static func length(ofEventsOfLengths lengths: some Sequence<Int>) -> Int {
        var total = 1
        for length in lengths { total += length + 1 }
        return max(total, 2)
    }

    /// Appends a batch of `events`, each already encoded as a JSON event, to `output`.
    static func append(_ events: some Sequence<[UInt8]>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "["))
        var first = true
        for event in events {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            output.append(contentsOf: event)
        }
        output.append(UInt8(ascii: "]"))
    }
}
