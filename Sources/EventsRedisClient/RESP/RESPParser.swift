/// An incremental RESP2 parser: feed it bytes as they arrive, take complete values out.
///
/// ```swift
/// var parser = RESPParser(limits: RESPLimits())
/// parser.append(chunk)                       // any split: half a header, three replies, ...
/// while let value = try parser.next() { handle(value) }
/// ```
///
/// Design: bytes accumulate in one buffer with a read index; nothing is copied until a whole
/// value is present. `next()` first *scans* the value in place (validating every header,
/// length, limit and CRLF, skipping over bulk payloads by index) and only when the scan finds
/// the value complete does it *build* the `RESPValue`. An incomplete array therefore costs a
/// walk over its headers, never a half-built tree, and a declared bulk length over the limit
/// fails before any allocation. A scan that runs out of bytes keeps how far it got (see
/// ``RESPScanner/Progress``) and the next one goes on from there, so a reply is scanned once
/// however many reads it arrives in: parsing is linear in the bytes received. The consumed
/// prefix of the buffer is dropped when it is large or when the buffer has been read to the
/// end, so memory stays proportional to the unread bytes.
///
/// Rules: malformed input throws a ``RedisError`` (`protocolViolation` or `frameTooLarge`) and
/// never traps. After an error the stream position is lost: the parser keeps throwing that
/// error, and its connection must be closed.
struct RESPParser {
    let limits: RESPLimits
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// How far the scan of the incomplete value at `readIndex` got; nil when no scan stopped
    /// there.
    private var progress: RESPScanner.Progress?
    private var failure: RedisError?

    init(limits: RESPLimits = RESPLimits()) {
        self.limits = limits
    }

    /// How many bytes have been appended but not yet consumed as values.
    var bufferedByteCount: Int { buffer.count - readIndex }

    /// Appends bytes received from the server.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        compact()
        buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Appends bytes received from the server.
    mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next complete value, or `nil` when more bytes are needed.
    mutating func next() throws(RedisError) -> RESPValue? {
        try nextComplete { scanner, start, _ in
            var cursor = start
            return scanner.build(at: &cursor)
        }
    }

    /// The next complete value's RESP bytes, verbatim, validated as ``next()`` validates them,
    /// handed to `parse` in place (borrowed from the buffer: no copy); nil when more bytes are
    /// needed. For a reply its reader walks in place (see ``RESPScanner``) rather than as a
    /// tree of values.
    mutating func nextParsed<T>(_ parse: (UnsafeBufferPointer<UInt8>) -> T) throws(RedisError) -> T? {
        try nextComplete { scanner, start, end in parse(scanner.bytes.buffer(start..<end)) }
    }

    /// What ``nextFrame(message:)`` returns: a Pub/Sub `message` frame made by the caller from
    /// its bytes, or any other value.
    enum Frame<Message> {
        case message(Message)
        case value(RESPValue)
    }

    /// The next complete value, as ``next()``, except that a Pub/Sub `message` frame is handed
    /// to `message` as its channel and payload bytes, borrowed from the buffer, instead of being
    /// built into a `RESPValue`. Validation and errors are those of ``next()``.
    ///
    /// Why: a subscribed connection receives little else, and building each message frame (an
    /// array of three values, a byte array for the word `message` and one for the channel)
    /// cost more than reading it.
    mutating func nextFrame<Message>(
        message: (_ channel: UnsafeBufferPointer<UInt8>, _ payload: UnsafeBufferPointer<UInt8>) -> Message
    ) throws(RedisError) -> Frame<Message>? {
        // Most frames are messages: read those in one pass, the rest (and any message frame
        // that is incomplete or off) through the scan that validates every value.
        if failure == nil, readIndex < buffer.count {
            let start = readIndex
            let limits = limits
            let found: (Message, end: Int)? = buffer.withUnsafeBufferPointer { bytes in
                guard let parts = RESPScanner(bytes: bytes, limits: limits).completeMessage(at: start) else {
                    return nil
                }
                return (message(parts.channel, parts.payload), parts.end)
            }
            if let found {
                readIndex = found.end
                progress = nil  // a scan may have stopped inside it before its last bytes came
                return .message(found.0)
            }
        }
        return try nextComplete { scanner, start, _ in
            if let (channel, payload) = scanner.messageParts(at: start) { return .message(message(channel, payload)) }
            var cursor = start
            return .value(scanner.build(at: &cursor))
        }
    }

    /// Scans the next value and, once it is complete and valid, hands `make` the scanner and
    /// the value's start and end, consuming the value. Nil when more bytes are needed; a
    /// malformed value is thrown, and thrown again by every later call.
    private mutating func nextComplete<T>(_ make: (RESPScanner, Int, Int) -> T) throws(RedisError) -> T? {
        if let failure { throw failure }
        guard readIndex < buffer.count else { return nil }
        let start = readIndex
        let limits = limits
        var progress = self.progress ?? RESPScanner.Progress(start: start)
        self.progress = nil
        let outcome: Result<(T, Int)?, RedisError> = buffer.withUnsafeBufferPointer { bytes in
            let scanner = RESPScanner(bytes: bytes, limits: limits)
            do throws(RedisError) {
                guard let end = try scanner.scan(&progress) else { return .success(nil) }
                return .success((make(scanner, start, end), end))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(.some((let value, let end))):
            readIndex = end
            return value
        case .success(.none):
            self.progress = progress
            return nil
        case .failure(let error):
            failure = error
            throw error
        }
    }

    /// Drops the consumed prefix when that is cheap or worth it.
    private mutating func compact() {
        if readIndex == buffer.count {
            guard readIndex > 0 else { return }
            if buffer.capacity > 4 * 1024 * 1024 {
                buffer = []  // a huge reply is gone: give its memory back
            } else {
                buffer.removeAll(keepingCapacity: true)
            }
            readIndex = 0
        } else if readIndex >= 64 * 1024 && readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            progress?.shift(by: readIndex)
            readIndex = 0
        }
    }
}
