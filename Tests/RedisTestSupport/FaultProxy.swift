import EventsRedisClient
import Foundation
import RedisServerSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP proxy on 127.0.0.1 between a client and a Redis server, which plays the faults of a
/// network: it forwards bytes both ways until told to stall them, black-hole them or reset the
/// connections.
///
/// ```swift
/// let proxy = try FaultProxy(upstreamPort: server.port)
/// configuration.redis.port = proxy.port
/// proxy.mode = .blackHole     // every connection, open or new, goes silent both ways
/// proxy.mode = .slow(.milliseconds(50))  // every read is held back 50 ms
/// proxy.mode = .forward       // and comes back
/// proxy.resetConnections()    // every open connection is reset (RST); new ones work
/// ```
///
/// Each accepted connection gets a connection of its own to the server and one thread that
/// moves bytes between the two. Written with plain POSIX sockets, apart from the client's own
/// socket code, so that the tests do not trust what they test.
package final class FaultProxy: Sendable {
    package enum Mode: Sendable, Equatable {
        /// Bytes go through both ways.
        case forward
        /// Nothing is read from either side: bytes wait in the kernel's buffers and go through,
        /// late, once the mode is `.forward` again (a frozen server, a congested link).
        case stall
        /// Bytes are read and thrown away both ways: the connections stay open and silent (a
        /// network partition that drops packets).
        case blackHole
        /// Bytes go through both ways, each read held back `delay` first (a slow, distant link).
        case slow(Duration)
    }

    private struct State {
        var mode = Mode.forward
        var stopped = false
        /// Bumped by `resetConnections()`: a connection accepted before the bump resets itself.
        var resetGeneration = 0
        var accepted = 0
        var open = 0
    }

    package let port: Int
    package let upstreamPort: Int
    private let listener: Int32
    private let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var state = State()
    private let threads = DispatchGroup()
    /// Wakes the stalled connections when the mode, the reset generation or the stop flag
    /// changes. Taken before `lock` wherever both are held.
    private let stateChanged = NSCondition()

    /// How long each thread waits in `poll` before it looks at the mode and the stop flag again.
    private static let slice: Int32 = 10

    package init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        (listener, port) = try TestSocket.listen(backlog: 64)
        threads.enter()
        Thread.detachNewThread { [self] in
            defer { threads.leave() }
            acceptLoop()
        }
    }

    deinit {
        stop()
    }

    /// What the proxy does with the bytes of every connection, open or new.
    package var mode: Mode {
        get { lock.withLock { state.mode } }
        set { changeState { $0.mode = newValue } }
    }

    /// How many connections the proxy has accepted (a client that reconnects shows here).
    package var acceptedCount: Int { lock.withLock { state.accepted } }

    /// How many accepted connections are still open.
    package var openCount: Int { lock.withLock { state.open } }

    /// Resets every open connection: its client gets a TCP reset (RST) at once, as from a
    /// crashed host or a middlebox dropping state. Connections accepted afterwards work as
    /// the mode says.
    package func resetConnections() {
        changeState { $0.resetGeneration += 1 }
    }

    /// Stops accepting, closes every connection and waits for the proxy's threads to end.
    package func stop() {
        let first: Bool = changeState { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        _ = threads.wait(timeout: .now() + 5)
        TestSocket.closeDescriptor(listener)
    }

    private var isStopped: Bool { lock.withLock { state.stopped } }

    private func acceptLoop() {
        while !isStopped {
            guard TestSocket.waitReadable(listener, milliseconds: Self.slice) else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            guard let upstream = Self.dial(port: upstreamPort) else {
                TestSocket.closeDescriptor(client)
                continue
            }
            let generation: Int = lock.withLock {
                state.accepted += 1
                state.open += 1
                return state.resetGeneration
            }
            threads.enter()
            Thread.detachNewThread { [self] in
                defer {
                    lock.withLock { state.open -= 1 }
                    threads.leave()
                }
                relay(client: client, upstream: upstream, generation: generation)
            }
        }
    }

    /// Moves bytes between the two sockets as the mode says until either side closes, a reset
    /// is asked for, or the proxy stops; then closes both.
    private func relay(client: Int32, upstream: Int32, generation: Int) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        defer {
            TestSocket.closeDescriptor(client)
            TestSocket.closeDescriptor(upstream)
        }
        while true {
            let (mode, stopped, reset) = lock.withLock {
                (state.mode, state.stopped, state.resetGeneration != generation)
            }
            if stopped { return }
            if reset {
                Self.abort(client)
                return
            }
            if mode == .stall {
                waitWhileStalled(generation: generation)
                continue
            }
            var entries = [
                pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                pollfd(fd: upstream, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&entries, 2, Self.slice) > 0 else { continue }
            for (index, entry) in entries.enumerated() where entry.revents != 0 {
                let from = index == 0 ? client : upstream
                let to = index == 0 ? upstream : client
                let count = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return }
                switch mode {
                case .forward: TestSocket.writeAll(to, Array(buffer[..<count]))
                case .slow(let delay):
                    Thread.sleep(forTimeInterval: delay.seconds)
                    TestSocket.writeAll(to, Array(buffer[..<count]))
                case .stall, .blackHole: break
                }
            }
        }
    }

    /// Changes `state` and wakes the stalled connections to look at it.
    private func changeState<T>(_ change: (inout State) -> T) -> T {
        stateChanged.lock()
        defer {
            stateChanged.broadcast()
            stateChanged.unlock()
        }
        return lock.withLock { change(&state) }
    }

    /// Reads nothing until the mode leaves `.stall`, a reset is asked for or the proxy stops.
    /// The check and the wait are under `stateChanged`, so no change slips between them; the
    /// slice only bounds the wait, as `poll` bounds it in the other modes.
    private func waitWhileStalled(generation: Int) {
        stateChanged.lock()
        defer { stateChanged.unlock() }
        let stalled = lock.withLock {
            state.mode == .stall && !state.stopped && state.resetGeneration == generation
        }
        if stalled { _ = stateChanged.wait(until: Date(timeIntervalSinceNow: Double(Self.slice) / 1000)) }
    }

    /// Closes `descriptor` so that its peer gets a reset rather than an orderly end.
    private static func abort(_ descriptor: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// A blocking connection to 127.0.0.1:`port`, or nil.
    private static func dial(port: Int) -> Int32? {
        let descriptor = socket(AF_INET, TestSocket.streamType, 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            TestSocket.closeDescriptor(descriptor)
            return nil
        }
        return descriptor
    }
}
