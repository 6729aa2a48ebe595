/// One call waiting in a ``RedisClient``: its commands, its timeout and the continuation that
/// receives the outcome.
///
/// Rule: every request is completed exactly once: by the worker with a reply or an error, or by
/// `close()` with ``RedisError/clientClosed`` when it never reached the worker. (Checked
/// continuations: unsafe ones save an allocation per call, but the thread sanitizer reports
/// their resume from another thread as a race, swiftlang/swift#57803.)
package struct RedisClientRequest: Sendable {
    enum Completion: Sendable {
        /// One command; an error reply completes it with ``RedisError/server(_:)``.
        case single(CheckedContinuation<Result<RESPValue, RedisError>, Never>)
        /// Several commands; error replies stay in the array.
        case pipeline(CheckedContinuation<Result<[RESPValue], RedisError>, Never>)
        /// Several commands, completed by a callback on the client's queue (no task to resume).
        case callback(@Sendable (Result<[RESPValue], RedisError>) -> Void)
        /// Several commands whose replies only matter as accepted or refused, completed by a
        /// callback on the client's queue: no reply is built as a value.
        case verdicts(@Sendable (Result<[RESPVerdict], RedisError>) -> Void)
        /// Several commands, the last one's reply read by `parse` from its RESP bytes in place
        /// (see ``RESPParser/nextParsed(_:)``), after the others' replies as values.
        case parsingLast(
            parse: @Sendable (UnsafeBufferPointer<UInt8>) -> any Sendable,
            CheckedContinuation<Result<([RESPValue], any Sendable), RedisError>, Never>)
    }

    /// What to send: commands, commands already written in RESP, or a function that writes
    /// them.
    package enum Commands: Sendable {
        case arguments([[RedisArgument]])
        /// `count` commands, encoded (see ``RESPEncoder/appendCommandHeader(argumentCount:to:)``).
        case encoded([UInt8], count: Int)
        /// `count` commands that `write` appends in RESP to the connection's write buffer, on
        /// the client's thread: a large pipeline is written once, into a buffer the connection
        /// keeps, rather than into an array of its own first (a fresh array of a few hundred
        /// kilobytes per batch touched fresh pages every time, and was then copied).
        case written(count: Int, write: @Sendable (inout [UInt8]) -> Void)

        /// How many commands, so how many replies.
        var count: Int {
            switch self {
            case .arguments(let arguments): arguments.count
            case .encoded(_, let count): count
            case .written(let count, _): count
            }
        }

        /// Appends the commands in RESP to `buffer`.
        func encode(into buffer: inout [UInt8]) {
            switch self {
            case .arguments(let arguments): RESPEncoder.encode(arguments, into: &buffer)
            case .encoded(let bytes, _): buffer.append(contentsOf: bytes)
            case .written(_, let write): write(&buffer)
            }
        }
    }

    let commands: Commands
    /// The per-reply timeout; `nil` means the configured `replyTimeout`.
    let timeout: Duration?
    /// How long the request may wait for a connection before it gives up.
    let connectDeadline: ContinuousClock.Instant
    let completion: Completion

    init(
        commands: [[RedisArgument]], timeout: Duration?, connectDeadline: ContinuousClock.Instant,
        completion: Completion
    ) {
        self.init(
            commands: .arguments(commands), timeout: timeout, connectDeadline: connectDeadline, completion: completion)
    }

    init(commands: Commands, timeout: Duration?, connectDeadline: ContinuousClock.Instant, completion: Completion) {
        self.commands = commands
        self.timeout = timeout
        self.connectDeadline = connectDeadline
        self.completion = completion
    }

    /// How the last command's reply is read, when not as a value.
    var lastReplyParser: (@Sendable (UnsafeBufferPointer<UInt8>) -> any Sendable)? {
        if case .parsingLast(let parse, _) = completion { return parse }
        return nil
    }

    /// Completes with `replies`; for `parsingLast`, `last` is what its parser made of the last
    /// reply.
    func succeed(_ replies: [RESPValue], last: (any Sendable)? = nil) {
        switch completion {
        case .parsingLast(_, let continuation):
            continuation.resume(returning: .success((replies, last ?? ())))
        case .single(let continuation):
            let reply = replies.first ?? .null
            if case .error(let message) = reply {
                continuation.resume(returning: .failure(.server(message)))
            } else {
                continuation.resume(returning: .success(reply))
            }
        case .pipeline(let continuation):
            continuation.resume(returning: .success(replies))
        case .callback(let body):
            body(.success(replies))
        case .verdicts(let body):
            body(.success(replies.map(RESPVerdict.init)))
        }
    }

    func fail(_ error: RedisError) {
        switch completion {
        case .single(let continuation): continuation.resume(returning: .failure(error))
        case .pipeline(let continuation): continuation.resume(returning: .failure(error))
        case .callback(let body): body(.failure(error))
        case .verdicts(let body): body(.failure(error))
        case .parsingLast(_, let continuation): continuation.resume(returning: .failure(error))
        }
    }
}
