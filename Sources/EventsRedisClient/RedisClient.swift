import Dispatch

/// A thread-safe, async Redis client over one connection that it opens on first use and
/// reopens after it breaks.
///
/// Use it for ordinary commands from any task. Commands from concurrent callers are written to
/// the one connection in the order they arrive (FIFO), several at a time when they queue up,
/// so a busy client pipelines automatically.
///
/// ```swift
/// let client = RedisClient(try RedisConfiguration(url: "redis://localhost:6379"))
/// defer { client.close() }
///
/// try await client.send("SET", "greeting", "hello")
/// let greeting = try await client.send("GET", "greeting").string        // "hello"
/// let replies = try await client.pipeline([["INCR", "hits"], ["EXPIRE", "hits", 60]])
/// let entries = try await client.send(
///     ["XREADGROUP", "GROUP", "workers", "w1", "BLOCK", "5000", "STREAMS", "orders", ">"],
///     timeout: .seconds(10))                                          // longer than the BLOCK
/// ```
///
/// Rules:
/// - Error replies of single commands are thrown as ``RedisError/server(_:)``; in a
///   ``pipeline(_:timeout:)`` they stay in the result as ``RESPValue/error(_:)``.
/// - Connection: when a command is to run and there is no open connection, the client opens one,
///   retrying with ``RedisConfiguration/reconnect``. A call waits for a connection for at most
///   `connectTimeout` plus its reply timeout (or until `maxAttempts` is reached) and then throws
///   the last connection error. Rejected credentials are thrown at once.
/// - A command in flight when the connection breaks throws ``RedisError/connectionClosed``
///   (or ``RedisError/timedOut(_:)``) and is **not** sent again: not every Redis command is safe
///   to run twice, so the caller decides. The next call reconnects.
/// - A timeout closes the connection, and with it the replies of calls queued behind on it.
///   Give blocking commands (`BLPOP`, `XREADGROUP ... BLOCK`) a per-call `timeout` longer than
///   their block time; they hold the connection, so other calls wait behind them.
/// - Cancelling the calling task does not interrupt a call; it ends within its timeout.
/// - After ``close()`` every call throws ``RedisError/clientClosed``.
///
/// The async methods are `nonisolated(nonsending)`: they run on the caller's actor, where they
/// only queue the request, and resume there. A caller on an actor thus pays one executor hop
/// per call (back to its actor when the reply is in) instead of three (off the actor, onto the
/// global executor after the reply, back to the actor).
public final class RedisClient: Sendable {
    /// The configuration this client connects with.
    public let configuration: RedisConfiguration
    let state: LockedBox<State>
    let worker: Worker
    // All blocking I/O happens here, one batch of requests at a time.
    let queue = DispatchQueue(label: "EventsRedisClient.RedisClient")
    // Signalled by `close()` to cut short a wait between reconnect attempts.
    let sleeper = DispatchSemaphore(value: 0)
    // Set when the configuration names a cluster: commands then go through it to the nodes.
    let router: ClusterRouter?

    struct State: Sendable {
        /// Requests not yet taken by the worker, oldest first.
        var pending: [RedisClientRequest] = []
        /// Whether a drain of `pending` is scheduled or running on `queue`.
        var isDraining = false
        var isClosed = false
        /// How to interrupt the worker's open connection, published so that `close()` can wake a
        /// blocked read. The worker clears it here before it closes the connection.
        var interruption: RedisTransportInterruption?
        /// Set when the sentinels announce a new master: the open connection goes to the old
        /// one, and is dropped before the next command.
        var isStale = false
    }

    /// A client for the server `configuration` describes. Nothing connects until the first
    /// call.
    public init(_ configuration: RedisConfiguration) {
        self.configuration = configuration
        self.state = LockedBox(State())
        self.worker = Worker()
        self.router = configuration.cluster.map { ClusterRouter(configuration: configuration, cluster: $0) }
    }

    deinit {
        // No drain can be running: a scheduled drain holds a strong reference to the client.
        worker.connection?.close()
        SentinelWatch.unregister(ObjectIdentifier(self), configuration)
    }

    /// Whether the client holds an open connection right now (best effort: a connection the
    /// server dropped is noticed at the next call). On a cluster, whether it holds one to any
    /// of the cluster's nodes: it connects to each master when a command first goes there.
    public var isConnected: Bool {
        if let router { return router.isConnected }
        return state.withLock { $0.interruption != nil }
    }

    /// Sends one command and returns its reply.
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments, such as `["SET", "k", "v"]`.
    ///   - timeout: how long the reply may take; `nil` means the configured `replyTimeout`.
    /// - Throws: ``RedisError/server(_:)`` for an error reply, or a connection error.
    @discardableResult
    public nonisolated(nonsending) func send(_ arguments: [RedisArgument], timeout: Duration? = nil)
        async throws(RedisError) -> RESPValue
    {
        if let router {
            let reply = try await router.pipeline([arguments], timeout: timeout)[0]
            if case .error(let message) = reply { throw .server(message) }
            return reply
        }
        return try await call([arguments], timeout: timeout, completion: RedisClientRequest.Completion.single)
    }

    /// Sends one command, written as a list of arguments: `client.send("GET", "k")`.
    @discardableResult
    public nonisolated(nonsending) func send(_ arguments: RedisArgument...) async throws(RedisError) -> RESPValue {
        try await send(arguments)
    }

    /// Sends several commands in one write and returns their replies in order.
    ///
    /// Error replies stay in the result as ``RESPValue/error(_:)``, so one failing command does
    /// not hide the replies of the others. The commands are not a transaction: wrap them in
    /// `MULTI` / `EXEC` for that. `timeout` applies to each reply.
    public nonisolated(nonsending) func pipeline(_ commands: [[RedisArgument]], timeout: Duration? = nil)
        async throws(RedisError)
        -> [RESPValue]
    {
        guard !commands.isEmpty else { return [] }
        if let router { return try await router.pipeline(commands, timeout: timeout) }
        return try await call(commands, timeout: timeout, completion: RedisClientRequest.Completion.pipeline)
    }

    /// Sends `commands` in one write, as ``pipeline(_:timeout:)`` does, and returns the replies
    /// of all but the last as values, and what `parse` makes of the last one's RESP bytes,
    /// read in place on the client's thread (a stream read of hundreds of entries is neither
    /// built as a tree of values nor copied first). `commands` must not be empty.
    package nonisolated(nonsending) func pipeline<Last: Sendable>(
        _ commands: [[RedisArgument]], timeout: Duration? = nil,
        parsingLastReply parse: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Last
    ) async throws(RedisError) -> (replies: [RESPValue], last: Last) {
        precondition(!commands.isEmpty, "a pipeline needs a last command")
        if let router { return try await router.pipeline(commands, timeout: timeout, parsingLastReply: parse) }
        let (replies, last) = try await call(commands, timeout: timeout) { continuation in
            RedisClientRequest.Completion.parsingLast(parse: parse, continuation)
        }
        // What `parse` returned, handed through the request as `any Sendable`.
        return (replies, last as! Last)
    }

    /// Queues `commands` and waits for the outcome that the completion made by `completion`
    /// receives.
    private nonisolated(nonsending) func call<Reply: Sendable>(
        _ commands: [[RedisArgument]], timeout: Duration?,
        completion: (CheckedContinuation<Result<Reply, RedisError>, Never>) -> RedisClientRequest.Completion
    ) async throws(RedisError) -> Reply {
        let deadline = connectDeadline(timeout)
        let result = await withCheckedContinuation { continuation in
            enqueue(
                RedisClientRequest(
                    commands: commands, timeout: timeout, connectDeadline: deadline,
                    completion: completion(continuation)))
        }
        return try result.get()
    }

    /// Closes the client: calls in flight end promptly with ``RedisError/clientClosed`` (or the
    /// error they already hit), queued and later calls throw it. Idempotent.
    public func close() {
        let abandoned: [RedisClientRequest] = state.withLock { state in
            guard !state.isClosed else { return [] }
            state.isClosed = true
            // Interrupt a blocked read while the worker cannot close the connection.
            state.interruption?.interrupt()
            defer { state.pending = [] }
            return state.pending
        }
        sleeper.signal()
        SentinelWatch.unregister(ObjectIdentifier(self), configuration)
        router?.close()
        for request in abandoned { request.fail(.clientClosed) }
        // Release the idle connection's socket now rather than at deinit.
        queue.async { self.releaseConnection() }
    }

    /// Sends several commands in one write and calls `completion` with their replies (error
    /// replies inside), or with the error that ended the call.
    ///
    /// For code that must not wait on a task: the request is queued from the calling thread,
    /// and `completion` runs on the client's own I/O queue, so it must be quick and must not
    /// block; it may queue the next request. The bridge's publisher uses it to go from a local
    /// dispatch to the socket with one thread handoff, as a raw caller does.
    package func pipeline(
        _ commands: [[RedisArgument]], timeout: Duration? = nil,
        completion: @escaping @Sendable (Result<[RESPValue], RedisError>) -> Void
    ) {
        pipeline(.arguments(commands), timeout: timeout, completion: completion)
    }

    /// ``pipeline(_:timeout:completion:)`` for commands given as arguments or already written
    /// in RESP: a caller that writes many commands straight into one buffer builds no array of
    /// arguments per command.
    package func pipeline(
        _ commands: RedisClientRequest.Commands, timeout: Duration? = nil,
        completion: @escaping @Sendable (Result<[RESPValue], RedisError>) -> Void
    ) {
        if let router, commands.count > 0 { return router.pipeline(commands, timeout: timeout, completion: completion) }
        enqueue(commands, timeout: timeout, completion: .callback(completion)) { completion(.success([])) }
    }

    /// ``pipeline(_:timeout:completion:)`` for a caller that only needs to know which commands
    /// were refused: each reply comes as a ``RESPVerdict``, and none is built as a value (an
    /// `XADD` reply, its new entry's id, was an allocation per event).
    package func pipeline(
        _ commands: RedisClientRequest.Commands, timeout: Duration? = nil,
        verdicts completion: @escaping @Sendable (Result<[RESPVerdict], RedisError>) -> Void
    ) {
        if let router, commands.count > 0 {
            return router.pipeline(commands, timeout: timeout) { completion($0.map { $0.map(RESPVerdict.init) }) }
        }
        enqueue(commands, timeout: timeout, completion: .verdicts(completion)) { completion(.success([])) }
    }

    /// Queues `commands` for a callback `completion`; calls `none` instead when there are none.
    private func enqueue(
        _ commands: RedisClientRequest.Commands, timeout: Duration?, completion: RedisClientRequest.Completion,
        none: () -> Void
    ) {
        guard commands.count > 0 else { return none() }
        enqueue(
            RedisClientRequest(
                commands: commands, timeout: timeout, connectDeadline: connectDeadline(timeout), completion: completion)
        )
    }

    private func connectDeadline(_ timeout: Duration?) -> ContinuousClock.Instant {
        .now + configuration.connectTimeout + (timeout ?? configuration.replyTimeout)
    }

    private func enqueue(_ request: RedisClientRequest) {
        enum Action { case none, drain, reject }
        let action: Action = state.withLock { state in
            if state.isClosed { return .reject }
            state.pending.append(request)
            if state.isDraining { return .none }
            state.isDraining = true
            return .drain
        }
        switch action {
        case .none: break
        case .drain: queue.async { self.drain() }
        case .reject: request.fail(.clientClosed)
        }
    }
}
