/// Borrowed bytes whose every read is checked against their bounds, in every build.
///
/// The decoders of what arrives from the network (the RESP scanner, the JSON scanner, the
/// CloudEvents envelope readers) read through this type. `UnsafeBufferPointer` checks its
/// subscripts in debug builds only: in a release build an index one past the end reads whatever
/// lies there. Here a read outside the bytes stops the process instead, in every build, as an
/// `Array` subscript does, so a mistake in a decoder's index arithmetic can never read memory
/// that is not the message. The decoders check their indices where they use them and never
/// rely on this to refuse input: malformed input is refused with an error long before.
///
/// Why not `Span`: `Array.span` needs macOS 26 and its peers, above this package's platforms.
/// The checks are one unsigned comparison each, which the optimizer drops where a loop's
/// condition already proves the index in bounds.
///
/// Like the buffer it wraps, a value is valid only inside the `withUnsafeBufferPointer` (or
/// similar) call that lent the bytes.
package struct CheckedBytes {
    /// Where the bytes start; never nil, so that no read pays for unwrapping it. An empty
    /// buffer may have no address: then this is `nowhere`, which no read reaches, since every
    /// read is checked against `count`, 0.
    private let base: UnsafePointer<UInt8>
    package let count: Int

    /// An address that is never read, for empty buffers: a constant of the binary (a global
    /// would cost a check that it is initialized on every use).
    private static var nowhere: UnsafePointer<UInt8> { ("" as StaticString).utf8Start }

    package init(_ buffer: UnsafeBufferPointer<UInt8>) {
        base = buffer.baseAddress ?? Self.nowhere
        count = buffer.count
    }

    /// The byte at `index`; stops the process when `index` is not in `0..<count`.
    @inline(__always)
    package subscript(index: Int) -> UInt8 {
        precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "read outside the received bytes")
        return base[index]
    }

    /// The bytes at `range`, borrowed as the whole is; stops the process when `range` is not
    /// within `0...count`.
    @inline(__always)
    package func buffer(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range outside the received bytes")
        return UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    /// The bytes at `range` as checked bytes of their own (indexed from 0).
    package func slice(_ range: Range<Int>) -> CheckedBytes {
        CheckedBytes(buffer(range))
    }

    /// All the bytes, for a reader that takes a buffer (and checks what it reads itself).
    package var all: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// The eight bytes at `offset` as one little-endian word, the first in the low bits; nil
    /// unless all eight are within the bytes. The check is the loop condition of a reader that
    /// goes eight bytes at a time: `while let word = bytes.word(at: position)`.
    @inline(__always)
    package func word(at offset: Int) -> UInt64? {
        // `count - offset` cannot overflow: neither is negative.
        guard offset >= 0, count - offset >= 8 else { return nil }
        return UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
    }

    /// Whether the bytes at `range` are exactly `other`'s (false when `range` runs past the end).
    package func bytes(_ range: Range<Int>, equal other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= count else { return false }
        return buffer(range).hasSameBytes(as: other)
    }
}
