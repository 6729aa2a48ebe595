/// Writes commands in the form Redis expects from clients: a RESP array of bulk strings.
///
/// `SET k v` becomes `*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n`. The encoder appends to a
/// caller-owned buffer, so a pipeline of many commands is one buffer and one write.
package enum RESPEncoder {
    static func encode(_ command: [RedisArgument], into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "*"))
        appendDecimal(command.count, to: &buffer)
        appendCRLF(to: &buffer)
        for argument in command {
            switch argument.storage {
            case .string(var string):
                // Native Swift strings keep contiguous UTF-8, so this copies once and does not
                // allocate; bridged strings are made native first.
                string.makeContiguousUTF8()
                appendBulkHeader(string.utf8.count, to: &buffer)
                buffer.append(contentsOf: string.utf8)
            case .bytes(let bytes):
                appendBulkHeader(bytes.count, to: &buffer)
                buffer.append(contentsOf: bytes)
            case .integer(let value):
                appendBulkHeader(decimalLength(value), to: &buffer)
                appendDecimal(value, to: &buffer)
            }
            appendCRLF(to: &buffer)
        }
    }

    static func encode(_ commands: [[RedisArgument]], into buffer: inout [UInt8]) {
        for command in commands {
            encode(command, into: &buffer)
        }
    }

    /// Appends the header of a command of `count` arguments; the arguments follow as
    /// ``appendArgument(_:to:)``s. For a caller that writes commands without building them.
    package static func appendCommandHeader(argumentCount count: Int, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "*"))
        appendDecimal(count, to: &buffer)
        appendCRLF(to: &buffer)
    }

    /// Appends one argument, as a bulk string of `bytes`.
    package static func appendArgument(_ bytes: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        appendBulkHeader(bytes.count, to: &buffer)
        buffer.append(contentsOf: bytes)
        appendCRLF(to: &buffer)
    }

    /// Appends one argument of `length` bytes that `write` appends to the buffer: for an
    /// argument assembled from parts, without assembling it elsewhere first.
    package static func appendArgument(length: Int, to buffer: inout [UInt8], writing write: (inout [UInt8]) -> Void) {
        appendBulkHeader(length, to: &buffer)
        let start = buffer.count
        write(&buffer)
        precondition(
            buffer.count - start == length, "an argument declared \(length) bytes and wrote \(buffer.count - start)")
        appendCRLF(to: &buffer)
    }

    /// Appends one argument, as a bulk string of `text`'s UTF-8.
    package static func appendArgument(_ text: StaticString, to buffer: inout [UInt8]) {
        text.withUTF8Buffer { appendArgument(UnsafeRawBufferPointer($0), to: &buffer) }
    }

    @inline(__always)
    private static func appendBulkHeader(_ length: Int, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "$"))
        appendDecimal(length, to: &buffer)
        appendCRLF(to: &buffer)
    }

    @inline(__always)
    private static func appendCRLF(to buffer: inout [UInt8]) {
        buffer.append(13)
        buffer.append(10)
    }

    /// The number of bytes of `value`'s decimal text, sign included.
    static func decimalLength(_ value: Int) -> Int {
        var magnitude = value.magnitude
        var length = value < 0 ? 2 : 1
        while magnitude >= 10 {
            magnitude /= 10
            length += 1
        }
        return length
    }

    /// Appends the decimal text of `value` without building an intermediate `String`.
    package static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        if value >= 0 && value < 10 {
            buffer.append(UInt8(truncatingIfNeeded: 48 + value))
            return
        }
        var magnitude = value.magnitude
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        let digitCount = decimalLength(value) - (value < 0 ? 1 : 0)
        let first = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: digitCount))
        var index = first + digitCount - 1
        repeat {
            buffer[index] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
            magnitude /= 10
            index -= 1
        } while magnitude > 0
    }
}
