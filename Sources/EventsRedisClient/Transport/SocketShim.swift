import Foundation

// The client's one platform branch: the socket details whose spelling differs between Linux
// (Glibc) and Apple platforms (Darwin). Everything else the sockets use (poll, getaddrinfo,
// fcntl, setsockopt, recv, close, errno, and pow and pthread elsewhere) is spelled alike on
// both and comes through `import Foundation`, which re-exports the platform's C library, so no
// other file of the client or of EventsRedisTLS has an `#if`. CONTRIBUTING.md ("Platform
// shims") lists each branch and why it is needed.

/// Tiny wrappers over the socket details that differ by platform; each is one constant or call.
package enum SocketShim {
    /// `SOCK_STREAM` for `getaddrinfo` hints: an enum case in Glibc, an `Int32` in Darwin.
    static var streamType: Int32 {
        #if canImport(Glibc)
            Int32(SOCK_STREAM.rawValue)
        #else
            SOCK_STREAM
        #endif
    }

    /// Makes sure writes on `descriptor` never raise SIGPIPE when the peer has hung up; false
    /// (with `errno` set) when the system refused. On Darwin that is the socket option
    /// `SO_NOSIGPIPE`; Linux has no such option, and ``sendWithoutSIGPIPE(_:_:_:)`` passes
    /// `MSG_NOSIGNAL` instead, so there is nothing to do.
    static func preventSIGPIPE(on descriptor: Int32) -> Bool {
        #if canImport(Darwin)
            var one: Int32 = 1
            return setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
        #else
            return true
        #endif
    }

    /// `send(2)` that never raises SIGPIPE: with `MSG_NOSIGNAL` on Linux; on Darwin the socket
    /// carries `SO_NOSIGPIPE` (``preventSIGPIPE(on:)``) and there is no per-call flag. The TLS
    /// transport's socket BIO writes with it too.
    package static func sendWithoutSIGPIPE(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
        #else
            send(descriptor, bytes, count, 0)
        #endif
    }
}
