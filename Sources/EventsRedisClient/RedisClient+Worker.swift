import Dispatch

extension RedisClient {
    /// What only the client's queue touches: the connection and a spare request buffer.
    final class Worker: @unchecked Sendable {
        // Safe to share: every property is read and written only by blocks running on the
        // client's serial `queue` (and by the client's deinit, when no block can be running),
        // so no two threads ever access them at the same time.
        var connection: RedisConnection?
        var batch: [RedisClientRequest] = []
    }

    /// Runs on `queue`: takes the pending requests in batches until none are left.
    func drain() {
        while true {
            let hasWork: Bool = state.withLock { state in
                guard !state.pending.isEmpty else {
                    state.isDraining = false
                    return false
                }
                // Swap buffers so that neither side allocates in the steady state.
                swap(&state.pending, &worker.batch)
                return true
            }
            guard hasWork else { return }
            run(&worker.batch)
            worker.batch.removeAll(keepingCapacity: true)
        }
    }

    /// Writes the batch's commands in one go, then completes each request as its replies
    /// arrive.
    private func run(_ batch: inout [RedisClientRequest]) {
        guard let connection = connection(for: &batch), !batch.isEmpty else { return }
        do throws(RedisError) {
            try connection.send { buffer in
                for request in batch { request.commands.encode(into: &buffer) }
            }
        } catch {
            let failure = mapped(error)
            releaseConnection()
            for request in batch { request.fail(failure) }
            return
        }
        var demoted = false
        for (index, request) in batch.enumerated() {
            do throws(RedisError) {
                demoted = try complete(request, readingFrom: connection) || demoted
            } catch {
                releaseConnection()
                request.fail(mapped(error))
                // The replies of the requests behind it were lost with the connection.
                let behind = mapped(.connectionClosed)
                for later in batch[(index + 1)...] { later.fail(behind) }
                return
            }
        }
        // The server is no longer the master (a failover demoted it): the next command connects
        // again, to the master the sentinels name, instead of being refused here for ever.
        if demoted, configuration.sentinel != nil { releaseConnection() }
    }

    /// Reads the request's replies and completes it with them; throws, leaving the request to
    /// the caller, when reading fails. Returns whether a reply says the server is not a master
    /// any more.
    private func complete(_ request: RedisClientRequest, readingFrom connection: RedisConnection) throws(RedisError)
        -> Bool
    {
        if case .verdicts(let body) = request.completion {
            var verdicts: [RESPVerdict] = []
            verdicts.reserveCapacity(request.commands.count)
            for _ in 0..<request.commands.count {
                verdicts.append(try connection.readReply(timeout: request.timeout, parsing: RESPVerdict.init(reply:)))
            }
            let demoted = verdicts.contains { verdict in
                if case .refused(let text) = verdict { return Self.saysDemoted(text) }
                return false
            }
            body(.success(verdicts))
            return demoted
        }
        var replies: [RESPValue] = []
        replies.reserveCapacity(request.commands.count)
        var last: (any Sendable)?
        let parseLast = request.lastReplyParser
        let valueCount = request.commands.count - (parseLast == nil ? 0 : 1)
        for _ in 0..<valueCount {
            replies.append(try connection.readReply(timeout: request.timeout))
        }
        var demoted = false
        if let parseLast {
            last = try connection.readReply(timeout: request.timeout) { bytes in
                if bytes.first == UInt8(ascii: "-") {
                    demoted = Self.saysDemoted(String(decoding: bytes.dropFirst(), as: UTF8.self))
                }
                return parseLast(bytes)
            }
        }
        demoted =
            demoted
            || replies.contains { reply in
                if case .error(let text) = reply { return Self.saysDemoted(text) }
                return false
            }
        request.succeed(replies, last: last)
        return demoted
    }

    /// Whether an error reply says the server stopped being a master: it refuses writes as a
    /// replica (`READONLY`), or it unblocked a blocked command when its role changed
    /// (`UNBLOCKED`).
    static func saysDemoted(_ text: String) -> Bool {
        text.hasPrefix("READONLY") || text.hasPrefix("UNBLOCKED")
    }

    /// Makes a newly opened connection the worker's, publishing its interruption so that `close()`
    /// can interrupt a blocked read; false (and the connection closed) when the client was
    /// closed meanwhile.
    private func adopt(_ connection: RedisConnection) -> Bool {
        let published: Bool = state.withLock { state in
            guard !state.isClosed else {
                state.interruption = nil
                return false
            }
            state.interruption = connection.interruption
            state.isStale = false
            return true
        }
        guard published else {
            connection.close()
            return false
        }
        worker.connection = connection
        if configuration.sentinel != nil {
            SentinelWatch.register(ObjectIdentifier(self), configuration) { [weak self] in
                self?.state.withLock { $0.isStale = true }
            }
        }
        return true
    }

    /// Publishes the interruption of a connection still shaking hands, so that `close()` can
    /// end a handshake that a silent server would hold for the whole reply timeout; `nil`
    /// withdraws it before a failed attempt closes its connection. False when closed already.
    private func publishOpening(_ interruption: RedisTransportInterruption?) -> Bool {
        state.withLock { state in
            guard let interruption else {
                state.interruption = nil
                return true
            }
            guard !state.isClosed else { return false }
            state.interruption = interruption
            return true
        }
    }

    /// Whether the sentinels announced a new master since the connection opened (clearing the
    /// mark): the connection goes to the old master.
    private func takeStaleness() -> Bool {
        state.withLock { state in
            defer { state.isStale = false }
            return state.isStale
        }
    }

    /// The open connection, opened now if needed. Requests whose connect deadline passes while
    /// opening are failed and removed from `batch`; `nil` when none is left to serve.
    private func connection(for batch: inout [RedisClientRequest]) -> RedisConnection? {
        if let connection = worker.connection {
            if connection.isUsableWhenIdle(), !takeStaleness() { return connection }
            releaseConnection()
        }
        do throws(RedisError) {
            let connection = try RedisConnection.openRetrying(
                configuration, sleeper: sleeper, isCancelled: { state.withLock { $0.isClosed } },
                shouldRetry: { error, delay in
                    // Give up on the requests that cannot wait for the next attempt.
                    let retryAt = ContinuousClock.now + delay
                    batch.removeAll { request in
                        guard request.connectDeadline <= retryAt else { return false }
                        request.fail(error)
                        return true
                    }
                    return !batch.isEmpty
                }, publishing: publishOpening)
            guard adopt(connection) else {
                for request in batch { request.fail(.clientClosed) }
                return nil
            }
            return connection
        } catch {
            for request in batch { request.fail(mapped(error)) }
            return nil
        }
    }

    /// Runs on `queue`: unpublishes the connection's interruption, then closes it.
    func releaseConnection() {
        guard let connection = worker.connection else { return }
        state.withLock { $0.interruption = nil }
        connection.close()
        worker.connection = nil
    }

    /// After `close()`, a failure caused by its interruption reads as `clientClosed`.
    private func mapped(_ error: RedisError) -> RedisError {
        state.withLock { $0.isClosed } ? .clientClosed : error
    }

    /// Runs `body` with the client's connection on the client's queue, opening the connection
    /// first if needed, for code that needs several dependent round trips without other
    /// callers' commands in between. Blocks the calling thread; never call it from `body` or
    /// from the client's own queue.
    package func withConnection<T>(_ body: (RedisConnection) throws(RedisError) -> T) throws(RedisError) -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        let result: Result<T, RedisError> = queue.sync {
            if state.withLock({ $0.isClosed }) { return .failure(.clientClosed) }
            let deadline = ContinuousClock.now + configuration.connectTimeout + configuration.replyTimeout
            let connection: RedisConnection
            if let existing = worker.connection, existing.isUsableWhenIdle(), !takeStaleness() {
                connection = existing
            } else {
                releaseConnection()
                do throws(RedisError) {
                    connection = try RedisConnection.openRetrying(
                        configuration, sleeper: sleeper, isCancelled: { state.withLock { $0.isClosed } },
                        shouldRetry: { _, delay in ContinuousClock.now + delay < deadline }, publishing: publishOpening)
                } catch {
                    return .failure(error)
                }
                guard adopt(connection) else { return .failure(.clientClosed) }
            }
            let outcome = Result { () throws(RedisError) in try body(connection) }
            if !connection.isOpen { releaseConnection() }
            return outcome.mapError(mapped)
        }
        return try result.get()
    }
}
