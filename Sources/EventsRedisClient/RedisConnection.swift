/// One blocking connection to a Redis server: write commands, read replies in order.
///
/// ```swift
/// let connection = try RedisConnection.open(configuration)
/// defer { connection.close() }
/// let pong = try connection.command(["PING"])
/// let replies = try connection.pipeline([["INCR", "hits"], ["GET", "hits"]])
/// ```
///
/// Rules:
/// - Not thread-safe: one thread owns a connection at a time. ``RedisClient`` wraps one for
///   concurrent async use; the event bridge owns connections on dedicated threads.
/// - Calls block the calling thread, each wait bounded by a timeout.
/// - After a timeout, a protocol violation, an oversized frame or an I/O error the connection
///   closes itself: its reply stream can no longer be trusted. Every later call throws
///   ``RedisError/connectionClosed``. A server error reply leaves it open.
package final class RedisConnection {
    package let configuration: RedisConfiguration
    // The byte stream: a plain socket unless the configuration chose another transport.
    private let transport: any RedisTransport
    private var isClosed = false
    // One thread owns a connection (it is not Sendable), and no access to the parser overlaps
    // another: unchecked, it skips the run-time exclusivity checks that every reply and every
    // received message would pay several times over (measurably, on the Pub/Sub path). The
    // write buffer stays checked: it is touched once per batch of commands, where the check
    // costs nothing that shows.
    @exclusivity(unchecked) private var parser: RESPParser
    private var writeBuffer: [UInt8] = []
    // One receive buffer for the connection's whole life: a read copies from it into the
    // parser, so replies cost no allocations beyond the values themselves.
    private let readChunk: UnsafeMutableRawBufferPointer

    private static let readChunkSize = 64 * 1024

    private init(configuration: RedisConfiguration, transport: any RedisTransport) {
        self.configuration = configuration
        self.transport = transport
        self.parser = RESPParser(limits: configuration.limits)
        self.readChunk = .allocate(byteCount: Self.readChunkSize, alignment: 16)
    }

    deinit {
        transport.close()
        readChunk.deallocate()
    }

    /// Connects, then authenticates, selects the database, sets the client name as the
    /// configuration asks and checks with `PING` that the server is ready, all in one round trip.
    ///
    /// The configuration's ``RedisConfiguration/transport`` opens the byte stream (plain TCP by
    /// default, TLS when chosen).
    ///
    /// Throws ``RedisError/connectFailed(host:port:reason:)`` or ``RedisError/timedOut(_:)``
    /// when no connection is made (a refused TLS handshake included),
    /// ``RedisError/invalidConfiguration(_:)`` when the configuration asks for TLS that the
    /// transport cannot provide or its certificate files cannot be used, ``RedisError/authenticationFailed(_:)`` when `AUTH` is
    /// refused or the server requires a password the configuration lacks, and
    /// ``RedisError/server(_:)`` when `SELECT` or `CLIENT SETNAME` is refused or the server is
    /// still loading its data (`LOADING`, worth retrying).
    package static func open(_ configuration: RedisConfiguration) throws(RedisError) -> RedisConnection {
        try open(configuration, publishing: { _ in true })
    }

    /// Opens a connection as `open(_:)` does, handing its interruption to `publish` before the
    /// handshake, so that an owner closing meanwhile can end a handshake that a silent server
    /// would otherwise hold for the whole reply timeout. `publish` returns false when the
    /// owner is closed already (the connection is then closed, and this throws
    /// ``RedisError/clientClosed``); it is called with `nil` before a failed handshake's
    /// connection is closed, to withdraw the interruption first.
    static func open(
        _ configuration: RedisConfiguration, publishing publish: (RedisTransportInterruption?) -> Bool
    ) throws(RedisError) -> RedisConnection {
        let transport = try configuration.transport.connect(configuration)
        let connection = RedisConnection(configuration: configuration, transport: transport)
        guard publish(transport.interruption) else {
            connection.close()
            throw .clientClosed
        }
        do throws(RedisError) {
            try connection.handshake()
        } catch {
            _ = publish(nil)
            connection.close()
            throw error
        }
        return connection
    }

    private func handshake() throws(RedisError) {
        var commands: [[RedisArgument]] = []
        var authenticates = false
        if let username = configuration.username {
            commands.append(["AUTH", RedisArgument(username), RedisArgument(configuration.password ?? "")])
            authenticates = true
        } else if let password = configuration.password {
            commands.append(["AUTH", RedisArgument(password)])
            authenticates = true
        }
        if configuration.database != 0 {
            commands.append(["SELECT", RedisArgument(configuration.database)])
        }
        if let name = configuration.clientName {
            commands.append(["CLIENT", "SETNAME", RedisArgument(name)])
        }
        // A server still loading its data accepts connections but answers most commands with
        // LOADING; PING reports that here, where a retry is safe, instead of on a user's command.
        commands.append(["PING"])
        let replies = try pipeline(commands)
        for (index, reply) in replies.enumerated() {
            guard case .error(let message) = reply else { continue }
            if index == 0 && authenticates { throw .authenticationFailed(message) }
            if message.hasPrefix("NOAUTH") { throw .authenticationFailed(message) }
            throw .server(message)
        }
    }

    /// Whether the connection can still be used.
    package var isOpen: Bool { transport.isOpen }

    /// How another thread wakes a read or write blocked on this connection, until ``close()``
    /// (`nil` afterwards). What it touches stays allocated after the connection breaks, until
    /// `close()`, so an owner that withdraws it before closing never interrupts another
    /// connection by mistake.
    var interruption: RedisTransportInterruption? { isClosed ? nil : transport.interruption }

    /// Closes the connection and releases its transport. Idempotent.
    package func close() {
        isClosed = true
        transport.close()
    }

    /// Marks the connection broken after a failure: the server sees it closed at once, but the
    /// transport is released only by ``close()`` or deinit (see ``interruption``).
    private func fail() {
        transport.shutDown()
    }

    /// Whether an idle connection still looks usable: no unread bytes and no hang-up from the
    /// server. Checks without waiting; a connection that fails the check is marked broken.
    /// Call before reusing a connection that sat idle, so that a server restart is noticed
    /// before a command is written into a dead socket.
    package func isUsableWhenIdle() -> Bool {
        guard transport.isOpen else { return false }
        if parser.bufferedByteCount > 0 || transport.hasInputOrHangUp() {
            fail()
            return false
        }
        return true
    }

    /// Encodes `commands` into one buffer and writes it in one go (pipelining). Does not read.
    package func send(_ commands: [[RedisArgument]]) throws(RedisError) {
        try send { buffer in RESPEncoder.encode(commands, into: &buffer) }
    }

    /// Writes what `encode` appends to the (empty) write buffer, in one go. Does not read.
    func send(encoding encode: (inout [UInt8]) -> Void) throws(RedisError) {
        guard transport.isOpen else { throw .connectionClosed }
        writeBuffer.removeAll(keepingCapacity: true)
        encode(&writeBuffer)
        defer {
            // Do not keep a huge command's buffer alive for the connection's lifetime.
            if writeBuffer.capacity > 1024 * 1024 { writeBuffer = [] }
        }
        let deadline = ContinuousClock.now + configuration.replyTimeout
        let outcome = writeBuffer.withUnsafeBytes { bytes in
            Result { () throws(RedisError) in try transport.write(bytes, until: deadline) }
        }
        if case .failure(let error) = outcome {
            fail()
            throw error
        }
    }

    /// The next reply. An error reply is returned as ``RESPValue/error(_:)``, not thrown, so the
    /// replies of a pipeline keep their positions.
    ///
    /// - Parameter timeout: how long to wait; `nil` means the configured `replyTimeout`. When it
    ///   passes, the connection closes and ``RedisError/timedOut(_:)`` (`"reply"`) is thrown.
    package func readReply(timeout: Duration? = nil) throws(RedisError) -> RESPValue {
        try read(timeout: timeout) { parser throws(RedisError) in try parser.next() }
    }

    /// The next reply as `parse` reads it from its RESP bytes in place (see
    /// ``RESPParser/nextParsed(_:)``); waits and fails as ``readReply(timeout:)`` does.
    func readReply<T>(timeout: Duration? = nil, parsing parse: (UnsafeBufferPointer<UInt8>) -> T) throws(RedisError)
        -> T
    {
        try read(timeout: timeout) { parser throws(RedisError) in try parser.nextParsed(parse) }
    }

    /// The next reply as `parse` makes it, waiting up to `timeout` (nil: the configured
    /// `replyTimeout`), after which the connection closes and ``RedisError/timedOut(_:)`` is
    /// thrown.
    private func read<T>(
        timeout: Duration?, _ parse: (inout RESPParser) throws(RedisError) -> T?
    ) throws(RedisError) -> T {
        guard let value = try nextParsed(within: timeout ?? configuration.replyTimeout, parse) else {
            fail()
            throw .timedOut("reply")
        }
        return value
    }

    /// The next reply if one arrives within `timeout`, or `nil`; unlike ``readReply(timeout:)``
    /// a timeout here leaves the connection open, because a partly received reply stays
    /// buffered. For connections that wait for pushed messages (Pub/Sub).
    package func readReplyIfAvailable(within timeout: Duration) throws(RedisError) -> RESPValue? {
        try nextParsed(within: timeout) { parser throws(RedisError) in try parser.next() }
    }

    /// ``readReplyIfAvailable(within:)`` for a subscribed connection: a `message` frame is
    /// handed to `message` as borrowed channel and payload bytes (see
    /// ``RESPParser/nextFrame(message:)``), every other frame is returned as a value.
    func readFrameIfAvailable<Message>(
        within timeout: Duration,
        message: (_ channel: UnsafeBufferPointer<UInt8>, _ payload: UnsafeBufferPointer<UInt8>) -> Message
    ) throws(RedisError) -> RESPParser.Frame<Message>? {
        try nextParsed(within: timeout) { parser throws(RedisError) in
            try parser.nextFrame(message: message)
        }
    }

    /// Reads until `parse` finds a complete value in the buffered bytes, or `timeout` passes
    /// (nil). Any failure closes the connection.
    ///
    /// The clock starts at the first read from the socket: a value already buffered (most of a
    /// pipeline's replies, most messages of a Pub/Sub burst) is returned without reading the
    /// clock, which cost two clock reads per message on a subscribed connection.
    private func nextParsed<T>(
        within timeout: Duration, _ parse: (inout RESPParser) throws(RedisError) -> T?
    ) throws(RedisError) -> T? {
        var deadline: ContinuousClock.Instant?
        do throws(RedisError) {
            while true {
                if let value = try parse(&parser) { return value }
                guard transport.isOpen else { throw .connectionClosed }
                let until = deadline ?? ContinuousClock.now + timeout
                deadline = until
                guard let count = try transport.read(into: readChunk, until: until) else { return nil }
                parser.append(UnsafeRawBufferPointer(rebasing: readChunk[..<count]))
            }
        } catch {
            fail()
            throw error
        }
    }

    /// Sends one command and reads its reply; an error reply is thrown as
    /// ``RedisError/server(_:)``.
    @discardableResult
    package func command(_ arguments: [RedisArgument], timeout: Duration? = nil) throws(RedisError) -> RESPValue {
        try send([arguments])
        let reply = try readReply(timeout: timeout)
        if case .error(let message) = reply { throw .server(message) }
        return reply
    }

    /// Sends all `commands` in one write, then reads their replies in order. Error replies stay
    /// in the result as ``RESPValue/error(_:)``. `timeout` applies to each reply.
    package func pipeline(_ commands: [[RedisArgument]], timeout: Duration? = nil) throws(RedisError) -> [RESPValue] {
        try send(commands)
        var replies: [RESPValue] = []
        replies.reserveCapacity(commands.count)
        for _ in commands.indices {
            replies.append(try readReply(timeout: timeout))
        }
        return replies
    }
}

// A connection is owned by one thread at a time; it must not be shared.
@available(*, unavailable)
extension RedisConnection: Sendable {}
