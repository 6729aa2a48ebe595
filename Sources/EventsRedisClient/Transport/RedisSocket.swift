import Foundation

/// A connected, non-blocking TCP socket with deadline-bounded reads and writes: the plain
/// transport (``RedisTransportFactory/tcp``), and the socket under the TLS transport.
///
/// Blocking is done in `poll()`, so every wait has a deadline. The socket never raises
/// SIGPIPE: writes use `MSG_NOSIGNAL` on Linux and the socket has `SO_NOSIGPIPE` on Darwin
/// (both in ``SocketShim``, the client's one platform branch).
///
/// Not thread-safe: one owner at a time. The one call another thread may make is
/// ``interrupt(descriptor:)``, under the owner's own synchronization (see ``RedisClient``).
package final class RedisSocket: RedisTransport {
    // Unchecked exclusivity: every read and write loop reads these several times per reply,
    // and the runtime's check of each access (a lookup in a thread-local set) cost more than
    // the rest of the socket's own work per received event. It cannot find a conflict here:
    // each access is one load or store of a plain value that calls no code, and the socket has
    // one owner at a time.
    @exclusivity(unchecked) package private(set) var descriptor: Int32
    @exclusivity(unchecked) private var isBroken = false

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    /// Whether the socket can still be read and written.
    package var isOpen: Bool { descriptor >= 0 && !isBroken }

    /// Ends the TCP connection (the server sees it closed at once) but keeps the descriptor
    /// allocated until ``close()``. Owners that publish the descriptor to other threads for
    /// ``interrupt(descriptor:)`` rely on this: the number cannot be reused by another socket
    /// until they have unpublished it and called `close()`.
    package func shutDown() {
        guard descriptor >= 0, !isBroken else { return }
        isBroken = true
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Releases the descriptor. Idempotent.
    package func close() {
        guard descriptor >= 0 else { return }
        _ = closeDescriptor(descriptor)
        descriptor = -1
    }

    /// Whether the server closed the connection or sent bytes while none were expected; checks
    /// without waiting.
    package func hasInputOrHangUp() -> Bool {
        guard isOpen else { return true }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    /// Wakes a thread blocked in `poll()` on `descriptor` and makes its next read or write fail.
    /// The descriptor stays allocated until its owner closes it, so this never touches a reused
    /// descriptor as long as the owner unregisters it before closing.
    static func interrupt(descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Shuts the descriptor down, which stays allocated until ``close()``.
    package var interruption: RedisTransportInterruption { .shuttingDown(descriptor: descriptor) }

    // MARK: Connecting

    /// Resolves `host` and connects to the first address that accepts within `timeout`.
    package static func connect(host: String, port: Int, timeout: Duration) throws(RedisError) -> RedisSocket {
        try connect(host: host, port: port, until: ContinuousClock.now + timeout)
    }

    /// Resolves `host` and connects to the first address that accepts before `deadline`.
    package static func connect(host: String, port: Int, until deadline: ContinuousClock.Instant)
        throws(RedisError) -> RedisSocket
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = SocketShim.streamType
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw .connectFailed(host: host, port: port, reason: "cannot resolve host: \(reason)")
        }
        defer { freeaddrinfo(list) }

        var lastError = RedisError.connectFailed(host: host, port: port, reason: "no usable address")
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let address = entry {
            entry = address.pointee.ai_next
            do throws(RedisError) {
                return try connect(to: address.pointee, host: host, port: port, deadline: deadline)
            } catch {
                lastError = error
                if error.code == .timedOut { break }
            }
        }
        throw lastError
    }

    private static func connect(to address: addrinfo, host: String, port: Int, deadline: ContinuousClock.Instant)
        throws(RedisError) -> RedisSocket
    {
        func failure(_ what: String, _ code: Int32) -> RedisError {
            .connectFailed(host: host, port: port, reason: "\(what): \(String(cString: strerror(code)))")
        }
        let descriptor = socket(address.ai_family, address.ai_socktype, address.ai_protocol)
        guard descriptor >= 0 else { throw failure("socket", errno) }
        let socket = RedisSocket(descriptor: descriptor)  // closes the descriptor on every error path

        let flags = fcntl(descriptor, F_GETFL, 0)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) >= 0 else { throw failure("fcntl", errno) }
        guard SocketShim.preventSIGPIPE(on: descriptor) else { throw failure("SO_NOSIGPIPE", errno) }

        let size = socklen_t(MemoryLayout<Int32>.size)
        if connectDescriptor(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
            let code = errno
            guard code == EINPROGRESS || code == EINTR else { throw failure("connect", code) }
            guard try socket.wait(for: Int16(POLLOUT), until: deadline) else { throw .timedOut("connect") }
            var pending: Int32 = 0
            var length = size
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &pending, &length) == 0 else {
                throw failure("getsockopt", errno)
            }
            guard pending == 0 else { throw failure("connect", pending) }
        }
        // Commands are small and latency matters more than packet count.
        if address.ai_family == AF_INET || address.ai_family == AF_INET6 {
            var one: Int32 = 1
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, size)
        }
        return socket
    }

    // MARK: Reading and writing

    /// Writes all of `bytes`, waiting for buffer space until `deadline`.
    package func write(_ bytes: UnsafeRawBufferPointer, until deadline: ContinuousClock.Instant) throws(RedisError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            guard isOpen else { throw .connectionClosed }
            let written = SocketShim.sendWithoutSIGPIPE(descriptor, base + offset, bytes.count - offset)
            if written > 0 {
                offset += written
                continue
            }
            let code = errno
            if written < 0 && code == EINTR { continue }
            guard written < 0 && (code == EAGAIN || code == EWOULDBLOCK) else { throw .connectionClosed }
            guard try wait(for: Int16(POLLOUT), until: deadline) else { throw .timedOut("write") }
        }
    }

    /// Reads what is available into `buffer`, waiting until `deadline`; returns the byte count,
    /// or `nil` when the deadline passed with nothing to read.
    package func read(into buffer: UnsafeMutableRawBufferPointer, until deadline: ContinuousClock.Instant)
        throws(RedisError) -> Int?
    {
        while true {
            guard isOpen else { throw .connectionClosed }
            guard try wait(for: Int16(POLLIN), until: deadline) else { return nil }
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return count }
            if count == 0 { throw .connectionClosed }  // orderly shutdown by the server
            let code = errno
            if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { continue }
            throw .connectionClosed  // ECONNRESET and friends: the connection broke
        }
    }

    /// Waits until the socket can be read (or has an error or hang-up to report); `false` when
    /// `deadline` passes first. For a protocol layered on the socket, such as TLS.
    package func waitUntilReadable(until deadline: ContinuousClock.Instant) throws(RedisError) -> Bool {
        guard isOpen else { throw .connectionClosed }
        return try wait(for: Int16(POLLIN), until: deadline)
    }

    /// Waits until the socket can be written (or has an error or hang-up to report); `false`
    /// when `deadline` passes first.
    package func waitUntilWritable(until deadline: ContinuousClock.Instant) throws(RedisError) -> Bool {
        guard isOpen else { throw .connectionClosed }
        return try wait(for: Int16(POLLOUT), until: deadline)
    }

    /// Waits until the socket is ready for `events` (or has an error or hang-up to report);
    /// returns `false` when `deadline` passes first.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(RedisError) -> Bool {
        while true {
            let remaining = deadline - ContinuousClock.now
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let status = poll(&entry, 1, remaining.pollMilliseconds)
            if status > 0 { return true }
            if status == 0 {
                if remaining <= .zero { return false }
                continue  // woke early by rounding: check the clock again
            }
            if errno == EINTR { continue }
            throw .connectionClosed
        }
    }
}

// `close(2)` and `connect(2)` by their C names: inside `RedisSocket`, which has a `close()` and
// a `connect(...)` of its own, the bare names mean the methods.
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

private func connectDescriptor(_ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t)
    -> Int32
{
    connect(descriptor, address, length)
}
