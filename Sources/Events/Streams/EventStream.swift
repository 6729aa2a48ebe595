import Synchronization

/// How an ``EventStream`` buffers events its consumer has not taken yet.
public enum EventBufferingPolicy: Sendable, Hashable {
    /// Keeps every event. Memory grows while the consumer lags.
    case unbounded
    /// Keeps at most `capacity` events; when full, the oldest buffered event is dropped to
    /// make room (the consumer always sees the latest state).
    case dropOldest(capacity: Int)
    /// Keeps at most `capacity` events; when full, newly dispatched events are dropped (the
    /// consumer sees the first ones in full).
    case dropNewest(capacity: Int)
}

/// The events of one type as an `AsyncSequence`, from ``EventCenter/events(of:from:bufferingPolicy:file:line:)``.
///
/// ```swift
/// for await post in center.events(of: PostWritten.self) {
///     print(post.title)
/// }
/// ```
///
/// Rules:
/// - The listener is registered when the stream is created, so events dispatched after
///   `events(of:)` returns are buffered even before iteration starts.
/// - Events arrive in dispatch order from one thread (FIFO); dispatch never waits for the
///   consumer. Events dropped by a bounded policy are counted in ``droppedCount``.
/// - Ending the iteration (`break`, `return`, an error), cancelling the iterating task, or
///   dropping a stream that is never iterated removes the listener at once.
/// - Iterate a stream once: it has a single consumer.
public struct EventStream<E: Event>: AsyncSequence, Sendable {
    public typealias Element = E

    let stream: AsyncStream<E>
    let drops: DropCounter
    let subscription: Subscription

    /// How many events the buffering policy has dropped so far.
    public var droppedCount: Int { drops.value }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), end: IterationEnd(subscription))
    }

    /// Iterates the events; `next()` returns nil once the stream has ended.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<E>.Iterator
        /// Cancels the listener when the iteration ends: a `break` out of `for await` destroys
        /// the iterator, even while the stream itself is still referenced.
        let end: IterationEnd

        // Runs on the caller's executor, as AsyncStream's own iterator does: a plain nonisolated
        // async method would hop to the global executor on every event.
        public nonisolated(nonsending) mutating func next() async -> E? {
            await base.next(isolation: #isolation)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> E? {
            await base.next(isolation: actor)
        }
    }
}

/// Ends the listener of a stream when the last copy of its iterator goes away.
final class IterationEnd: Sendable {
    let subscription: Subscription
    init(_ subscription: Subscription) { self.subscription = subscription }
    deinit { subscription.cancel() }
}

/// Counts dropped events; shared between the listener (on dispatching threads) and readers.
final class DropCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

extension EventCenter {
    /// The events of type `E` as an `AsyncSequence`.
    ///
    /// ```swift
    /// let task = Task {
    ///     for await progress in center.events(of: Progress.self, bufferingPolicy: .dropOldest(capacity: 1)) {
    ///         await render(progress)
    ///     }
    /// }
    /// task.cancel()   // removes the listener at once
    /// ```
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - sender: When given, only events dispatched `from:` this object. It is held weakly;
    ///     once it deinitializes the stream receives nothing more (it does not finish).
    ///   - bufferingPolicy: What to do while the consumer lags. Defaults to `.unbounded`.
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    public func events<E: Event>(
        of type: E.Type,
        from sender: AnyObject? = nil,
        bufferingPolicy: EventBufferingPolicy = .unbounded,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> EventStream<E> {
        makeStream(
            of: type, eventKey: EventKey(type), sender: sender, bufferingPolicy: bufferingPolicy,
            callSite: CallSite(fileID: file, line: line))
    }

    /// The stream behind `events(of:)` and `events(named:)`, for the listeners of `eventKey`.
    func makeStream<E: Event>(
        of type: E.Type, eventKey: EventKey, sender: AnyObject?, bufferingPolicy: EventBufferingPolicy,
        callSite: CallSite
    ) -> EventStream<E> {
        let policy: AsyncStream<E>.Continuation.BufferingPolicy
        switch bufferingPolicy {
        case .unbounded: policy = .unbounded
        case .dropOldest(let capacity): policy = .bufferingNewest(max(capacity, 0))
        case .dropNewest(let capacity): policy = .bufferingOldest(max(capacity, 0))
        }
        let (stream, continuation) = AsyncStream<E>.makeStream(bufferingPolicy: policy)
        let drops = DropCounter()
        let subscription = register(
            type, eventKey: eventKey, owner: nil, key: nil, sender: sender, priority: .default, once: false,
            callSite: callSite,
            handler: { _, event, _ in
                if case .dropped = continuation.yield(event) { drops.increment() }
            },
            route: nil)
        // The stream keeps the subscription (through this closure) until it terminates: the
        // consumer ended, its task was cancelled, or the stream was dropped unused.
        continuation.onTermination = { _ in subscription.cancel() }
        return EventStream(stream: stream, drops: drops, subscription: subscription)
    }

    /// Waits for the next event of type `E` that matches `predicate`.
    ///
    /// ```swift
    /// let login = try await center.next(LoggedIn.self, where: { $0.user == "ada" }, timeout: .seconds(5))
    /// ```
    ///
    /// The listener is registered before this function suspends, so an event dispatched right
    /// after the call starts is not missed. The predicate runs on the dispatching thread.
    ///
    /// - Throws: ``EventTimeoutError`` when `timeout` passes first; `CancellationError` when the
    ///   waiting task is cancelled. Either way the listener is removed.
    public func next<E: Event>(
        _ type: E.Type,
        from sender: AnyObject? = nil,
        where predicate: @escaping @Sendable (E) -> Bool = { _ in true },
        timeout: Duration? = nil,
        isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID,
        line: UInt = #line
    ) async throws -> E {
        let waiter = NextEventWaiter<E>()
        let subscription = register(
            type, owner: nil, key: nil, sender: sender, priority: .default, once: false,
            callSite: CallSite(fileID: file, line: line),
            handler: { _, event, _ in
                if predicate(event) { waiter.finish(.success(event)) }
            },
            route: nil)
        defer { subscription.cancel() }
        let timer: Task<Void, Never>? = timeout.map { timeout in
            Task {
                do {
                    try await Task.sleep(for: timeout)
                    waiter.finish(.failure(EventTimeoutError(event: String(describing: E.self), timeout: timeout)))
                } catch {
                    // Cancelled because the event arrived first.
                }
            }
        }
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await waiter.wait()
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
    }
}

/// Thrown by ``EventCenter/next(_:from:where:timeout:isolation:file:line:)`` when no matching
/// event arrived in time.
public struct EventTimeoutError: Error, Sendable, CustomStringConvertible {
    /// The name of the awaited event type.
    public let event: String
    /// How long the caller waited.
    public let timeout: Duration

    public var description: String {
        "timed out after \(timeout) waiting for \(event)"
    }
}

/// The meeting point of `next`: the first of event, timeout or cancellation wins.
final class NextEventWaiter<E: Event>: @unchecked Sendable {
    // Why @unchecked is safe: `result` and `continuation` are only touched inside `lock`;
    // the continuation is resumed outside it, exactly once (it is taken out under the lock).
    private let lock = Lock()
    private var result: Result<E, any Error>?
    private var continuation: CheckedContinuation<E, any Error>?

    func finish(_ outcome: Result<E, any Error>) {
        let waiting: CheckedContinuation<E, any Error>? = lock.withLock {
            guard result == nil else { return nil }
            result = outcome
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: outcome)
    }

    func wait() async throws -> E {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<E, any Error>? = lock.withLock {
                if let result { return result }
                self.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
