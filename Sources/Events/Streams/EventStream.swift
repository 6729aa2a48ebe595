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

/// The events of one type as an `AsyncSequence`, from ``EventCenter/events(of:from:bufferingPolicy:receivingCurrent:file:line:)``.
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
///   dropping a stream that is never iterated removes the listener at once. A cancelled
///   consumer's `next()` returns nil, and events still buffered are dropped.
/// - Removing the stream's listener from the center ends the stream:
///   ``EventCenter/removeAllListeners(for:)-(E.Type)`` with its event type,
///   ``EventCenter/removeAllListeners(for:)-(EventName)`` with its name (for
///   `events(named:)`), or ``EventCenter/removeAllListeners()``. The consumer still takes the
///   events buffered before the removal, then `next()` returns nil, so a `for await` loop ends;
///   a consumer waiting at that moment gets nil at once, and so does a loop started later.
///   The center going away (its last reference released) ends the stream the same way.
/// - An event buffered and not yet taken keeps ``EventCenter/idle(isolation:)`` waiting, until
///   the consumer takes it or the stream drops it (its consumer was cancelled, or the stream
///   was let go); removing the listener drops nothing. ``EventCenter/idle(reportingAfter:isolation:_:)``
///   names such a stream when the wait takes long.
/// - Iterate a stream once: it is meant for a single consumer. If several tasks iterate the
///   same stream anyway, each event goes to one of them, and the sequence ends for all of them
///   when one stops iterating.
public struct EventStream<E: Event>: AsyncSequence, Sendable {
    public typealias Element = E

    let buffer: EventBuffer<E>
    let subscription: Subscription
    /// Ends the buffer when the last copy of the stream and of its iterators goes away.
    let keeper: StreamKeeper<E>

    init(buffer: EventBuffer<E>, subscription: Subscription) {
        self.buffer = buffer
        self.subscription = subscription
        keeper = StreamKeeper(buffer)
    }

    /// How many events the buffering policy has dropped so far.
    public var droppedCount: Int { buffer.droppedCount }

    public func makeAsyncIterator() -> Iterator {
        Iterator(buffer: buffer, end: IterationEnd(subscription, buffer: buffer, keeper: keeper))
    }

    /// Iterates the events; `next()` returns nil once the stream has ended.
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline let buffer: EventBuffer<E>
        /// Cancels the listener when the iteration ends: a `break` out of `for await` destroys
        /// the iterator, even while the stream itself is still referenced.
        @usableFromInline let end: IterationEnd<E>

        // Both `next` methods are inlinable and take a buffered event synchronously first (unless
        // the task is cancelled: the async path then ends the sequence). A consumer that has not
        // caught up then makes no async call per event: each one costs a frame from the task's
        // allocator and an executor check, more than the rest of taking a buffered event.

        // Runs on the caller's executor: a plain nonisolated async method would hop to the
        // global executor on every event.
        @inlinable
        public nonisolated(nonsending) mutating func next() async -> E? {
            // Repeated here rather than left to `next(isolation:)`: forwarding first would add an
            // async call to every buffered event.
            if !Task.isCancelled, let event = buffer.takeBuffered() { return event }
            return await next(isolation: #isolation)
        }

        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async -> E? {
            if !Task.isCancelled, let event = buffer.takeBuffered() { return event }
            guard let event = await buffer.next(isolation: actor) else {
                end.subscription.cancel()
                return nil
            }
            return event
        }
    }
}

/// Ends the listener of a stream when the last copy of its iterator goes away, and wakes any
/// other task still waiting on the same stream with the end of the sequence.
@usableFromInline
final class IterationEnd<E: Sendable>: Sendable {
    @usableFromInline let subscription: Subscription
    let buffer: EventBuffer<E>
    let keeper: StreamKeeper<E>
    init(_ subscription: Subscription, buffer: EventBuffer<E>, keeper: StreamKeeper<E>) {
        self.subscription = subscription
        self.buffer = buffer
        self.keeper = keeper
    }
    deinit {
        subscription.cancel()
        buffer.cancel()
    }
}

/// Ends a stream's buffer once neither the stream nor any of its iterators is left, even when it
/// was never iterated: its buffered events are dropped then, so that `EventCenter.idle()` does
/// not wait for a consumer that can no longer come. The listener's own record may keep the
/// buffer alive a little longer; it receives nothing more after its subscription's deinit.
final class StreamKeeper<E: Sendable>: Sendable {
    let buffer: EventBuffer<E>
    init(_ buffer: EventBuffer<E>) { self.buffer = buffer }
    deinit { buffer.cancel() }
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
    ///   - receivingCurrent: When true, the stream starts with the current values of `E` (kept by
    ///     `dispatch(_:keepingCurrent:)`), before any newer event, as a
    ///     `CurrentValueSubject` does.
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    public func events<E: Event>(
        of type: E.Type,
        from sender: AnyObject? = nil,
        bufferingPolicy: EventBufferingPolicy = .unbounded,
        receivingCurrent: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> EventStream<E> {
        makeStream(
            of: type, eventKey: EventKey(type), sender: sender, bufferingPolicy: bufferingPolicy,
            receivingCurrent: receivingCurrent, callSite: CallSite(fileID: file, line: line))
    }

    /// The stream behind `events(of:)` and `events(named:)`, for the listeners of `eventKey`.
    func makeStream<E: Event>(
        of type: E.Type, eventKey: EventKey, sender: AnyObject?, bufferingPolicy: EventBufferingPolicy,
        receivingCurrent: Bool = false, callSite: CallSite
    ) -> EventStream<E> {
        let buffer = EventBuffer<E>(
            policy: bufferingPolicy, pending: pendingDeliveries,
            label: PendingLabel(streamOf: type, eventKey: eventKey, callSite: callSite))
        // The registry holds the buffer, not the subscription: dropping the stream and its
        // iterators releases the subscription, whose deinit removes the listener. Removing the
        // listener finishes the buffer (see `StreamRecord`).
        let options = ListenerOptions(sender: sender, priority: .default, once: false, callSite: callSite)
        let record = StreamRecord<E>(
            registry: registry, callSite: callSite, details: details(of: type, eventKey: eventKey, options: options),
            buffer: buffer)
        let subscription = register(record, receivingCurrent: receivingCurrent)
        return EventStream(buffer: buffer, subscription: subscription)
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
        try await awaitNext(type, from: sender, where: predicate, callSite: CallSite(fileID: file, line: line)) {
            waiter in
            timeout.map { timeout in
                Task {
                    do {
                        try await Task.sleep(for: timeout)
                        waiter.finish(.failure(EventTimeoutError(event: String(describing: E.self), timeout: timeout)))
                    } catch {
                        // Cancelled because the event arrived first.
                    }
                }
            }
        }
    }

    /// The wait of both `next` forms: registers the listener, starts the timer `startTimer`
    /// makes (if any), waits for the event, the timer or cancellation, then removes both.
    func awaitNext<E: Event>(
        _ type: E.Type, eventKey: EventKey = EventKey(E.self), from sender: AnyObject?,
        where predicate: @escaping @Sendable (E) -> Bool, callSite: CallSite,
        isolation: isolated (any Actor)? = #isolation, startTimer: (NextEventWaiter<E>) -> Task<Void, Never>?
    ) async throws -> E {
        let waiter = NextEventWaiter<E>()
        let options = ListenerOptions(sender: sender, priority: .default, once: false, callSite: callSite)
        let subscription = registerEvents(
            type, eventKey: eventKey, options: options, place: .delivery(.postingThread)
        ) { _, event, _ in
            if predicate(event) { waiter.finish(.success(event)) }
        }
        defer { subscription.cancel() }
        let timer = startTimer(waiter)
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
    /// The name of the awaited event type, or the awaited event name for `next(named:)`.
    public let event: String
    /// How long the caller waited.
    public let timeout: Duration

    public var description: String {
        "timed out after \(timeout) waiting for \(event)"
    }
}
