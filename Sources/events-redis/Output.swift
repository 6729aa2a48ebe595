#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes to standard output and standard error straight to their descriptors, unbuffered, so
/// that `tail` shows each event as it comes and learns at once when its reader has gone.
enum Output {
    /// Writes `text` and a line break to standard output; false when it cannot be written
    /// (the reader closed the pipe).
    @discardableResult
    static func line(_ text: String) -> Bool {
        write(Array((text + "\n").utf8), to: 1)
    }

    /// Writes `bytes` and a line break to standard output; false when it cannot be written.
    @discardableResult
    static func line(bytes: [UInt8]) -> Bool {
        write(bytes + [UInt8(ascii: "\n")], to: 1)
    }

    /// Writes `text` and a line break to standard error.
    static func error(_ text: String) {
        _ = write(Array((text + "\n").utf8), to: 2)
    }

    /// Whether the reader of standard output has gone (a closed pipe), which a tail that has
    /// nothing to print would otherwise never notice.
    static var isStandardOutputClosed: Bool {
        var descriptor = pollfd(fd: 1, events: 0, revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        return descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                    Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
