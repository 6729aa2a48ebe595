/// A byte stream to a Redis server: what the client writes commands to and reads replies from.
///
/// The client ships two transports: plain TCP (``RedisTransportFactory/tcp``, the default) and,
/// in the `EventsRedisTLS` product, TLS over OpenSSL. Write your own only to reach Redis some
/// other way, such as through a platform's TLS stack (see <doc:ConnectingOverTLS>), and hand it
/// to the client through ``RedisConfiguration/transport``:
///
/// ```swift
/// configuration.transport = RedisTransportFactory(name: "my transport") { configuration in
///     try MyTransport.connect(to: configuration)   // throws RedisError
/// }
/// ```
///
/// Rules:
/// - One owner at a time: the client calls every member from one thread at a time, never two
///   at once. The one call made from another thread is ``interruption``'s
///   ``RedisTransportInterruption/interrupt()``, which must therefore be safe at any moment until
///   ``close()``.
/// - Every wait ends by its deadline. A read that finds nothing by then returns `nil`; a write
///   that cannot finish by then throws ``RedisError/timedOut(_:)`` with `"write"`.
/// - A broken or closed stream throws ``RedisError/connectionClosed`` from every later read or
///   write; ``isOpen`` is then `false`.
/// - Never raise `SIGPIPE` or any other signal: a server that hangs up is an error, not a crash.
public protocol RedisTransport: AnyObject {
    /// Whether the stream can still be read and written: `false` after ``shutDown()``,
    /// ``close()`` or a failure.
    var isOpen: Bool { get }

    /// Writes all of `bytes`, waiting for room until `deadline`.
    ///
    /// Throws ``RedisError/timedOut(_:)`` (`"write"`) when the deadline passes first and
    /// ``RedisError/connectionClosed`` when the stream broke.
    func write(_ bytes: UnsafeRawBufferPointer, until deadline: ContinuousClock.Instant) throws(RedisError)

    /// Reads what is available into `buffer` (at least one byte), waiting until `deadline`.
    ///
    /// - Returns: how many bytes were read, or `nil` when the deadline passed with nothing to
    ///   read (the stream stays usable).
    /// - Throws: ``RedisError/connectionClosed`` when the server closed the stream or it broke.
    func read(into buffer: UnsafeMutableRawBufferPointer, until deadline: ContinuousClock.Instant)
        throws(RedisError) -> Int?

    /// Whether bytes arrived or the server hung up, checked without waiting: the client asks
    /// before it reuses a connection that sat idle, when nothing should have arrived. Bytes of
    /// the transport's own protocol that carry no data (such as TLS session tickets) do not
    /// count.
    func hasInputOrHangUp() -> Bool

    /// How another thread wakes a read or write blocked on this transport. The client publishes
    /// it while it owns the transport and withdraws it before it calls ``close()``.
    var interruption: RedisTransportInterruption { get }

    /// Ends the stream at once (the server sees it closed) but keeps what ``interruption``
    /// touches alive until ``close()``. Called after a failure. Idempotent.
    func shutDown()

    /// Releases everything the transport holds. Idempotent; the transport is not used
    /// afterwards.
    func close()
}

/// How a thread wakes another that is blocked reading or writing a ``RedisTransport``: after
/// ``interrupt()`` the blocked call returns promptly, and it and every later read or write
/// throw.
///
/// Use ``shuttingDown(descriptor:)`` for a transport over a POSIX socket, and
/// ``init(_:)`` for any other (for example one that cancels a platform connection and signals
/// the waiting thread).
public struct RedisTransportInterruption: Sendable {
    private enum Method: Sendable {
        case shutDown(Int32)
        case custom(@Sendable () -> Void)
    }

    private let method: Method

    /// Interrupts by `shutdown(2)` of `descriptor`, which wakes a `poll()` on it at once.
    ///
    /// The transport must keep `descriptor` allocated (shut down, not closed) until its
    /// ``RedisTransport/close()``, so that the number cannot meanwhile name another socket.
    public static func shuttingDown(descriptor: Int32) -> RedisTransportInterruption {
        RedisTransportInterruption(method: .shutDown(descriptor))
    }

    /// Interrupts by calling `interrupt`, from any thread, at any moment until the transport is
    /// closed.
    public init(_ interrupt: @escaping @Sendable () -> Void) {
        self.method = .custom(interrupt)
    }

    private init(method: Method) {
        self.method = method
    }

    /// Wakes the blocked read or write and makes later ones throw.
    public func interrupt() {
        switch method {
        case .shutDown(let descriptor): RedisSocket.interrupt(descriptor: descriptor)
        case .custom(let interrupt): interrupt()
        }
    }
}
