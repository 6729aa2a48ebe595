import Foundation

extension UnsafeBufferPointer<UInt8> {
    /// Whether the first `prefix.count` bytes here are `prefix`'s bytes (false when this buffer
    /// is shorter). Compared with `memcmp`: the generic `elementsEqual` walks bytes one at a
    /// time, and this runs on every received message.
    package func starts(withBytesOf prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count >= prefix.count else { return false }
        guard let base = baseAddress, let prefixBase = prefix.baseAddress, prefix.count > 0 else { return true }
        return memcmp(base, prefixBase, prefix.count) == 0
    }

    /// Whether this buffer and `other` hold the same bytes.
    package func hasSameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        count == other.count && starts(withBytesOf: other)
    }
}
