/// Cuts a stored message into its CloudEvents, each on one line.
///
/// A bridge stores one CloudEvent per message, or, with `maxEventsPerMessage` above 1, a JSON
/// batch (an array of events); `tail` prints each event of either on a line of its own.
enum CloudEventLines {
    /// The events of `message`: the message itself when it is an object, the elements of the
    /// array when it is a batch; nil when a batch is not closed.
    static func events(in message: [UInt8]) -> [ArraySlice<UInt8>]? {
        var index = message.startIndex
        skipWhitespace(message, &index)
        guard index < message.endIndex, message[index] == UInt8(ascii: "[") else { return [message[...]] }
        var elements: [ArraySlice<UInt8>] = []
        var depth = 0
        var inString = false
        var escaped = false
        var start = message.index(after: index)
        for position in start..<message.endIndex {
            let byte = message[position]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: "]") where depth == 0:
                let element = trimmed(message[start..<position])
                if !element.isEmpty { elements.append(element) }
                return elements
            case UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ",") where depth == 0:
                elements.append(trimmed(message[start..<position]))
                start = message.index(after: position)
            default: break
            }
        }
        return nil
    }

    /// `json` on one line. A JSON string cannot hold a raw line break, so every line break in a
    /// valid document is whitespace between tokens, and dropping it changes nothing.
    static func oneLine<Bytes: Collection<UInt8>>(_ json: Bytes) -> [UInt8] {
        json.filter { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.endIndex, isWhitespace(bytes[index]) { index += 1 }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, isWhitespace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isWhitespace(last) { slice = slice.dropLast() }
        return slice
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\t")
    }
}
