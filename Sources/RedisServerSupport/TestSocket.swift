#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Plain blocking socket helpers for the tests, the demo and the benchmark (free ports, fake
/// servers), written apart from the client's own socket code so that the tests do not trust
/// what they test.
package enum TestSocket {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    #if canImport(Glibc)
        package static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        package static let streamType = SOCK_STREAM
    #endif

    /// A listening socket on 127.0.0.1 and its port: `port`, or one the kernel chooses when it is 0.
    package static func listen(port: Int = 0, backlog: Int32 = 16) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, systemListen(descriptor, backlog) == 0 else {
            let code = errno
            closeDescriptor(descriptor)
            throw Failure(description: "bind/listen: errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            closeDescriptor(descriptor)
            throw Failure(description: "getsockname: errno \(errno)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read it, close).
    /// Another process may take it before it is used: callers retry on conflict.
    package static func freePort() throws -> Int {
        let (descriptor, port) = try listen()
        closeDescriptor(descriptor)
        return port
    }

    /// Whether a server could listen on `port` of 127.0.0.1 now.
    package static func canListen(on port: Int) -> Bool {
        guard let (descriptor, _) = try? listen(port: port) else { return false }
        closeDescriptor(descriptor)
        return true
    }

    /// Waits up to `milliseconds` for `descriptor` to become readable.
    package static func waitReadable(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// The first client to connect to `listener` within `milliseconds`, or nil.
    package static func acceptClient(_ listener: Int32, milliseconds: Int32) -> Int32? {
        guard waitReadable(listener, milliseconds: milliseconds) else { return nil }
        let client = accept(listener, nil, nil)
        return client >= 0 ? client : nil
    }

    package static func closeDescriptor(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                #if canImport(Glibc)
                    send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                #else
                    send(descriptor, $0.baseAddress, $0.count, 0)
                #endif
            }
            guard written > 0 else { return }
            offset += written
        }
    }
}

#if canImport(Glibc)
    private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(descriptor, backlog) }
    private func systemClose(_ descriptor: Int32) -> Int32 { Glibc.close(descriptor) }
#else
    private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(descriptor, backlog) }
    private func systemClose(_ descriptor: Int32) -> Int32 { Darwin.close(descriptor) }
#endif
