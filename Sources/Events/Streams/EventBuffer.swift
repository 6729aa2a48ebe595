/// The queue between the listener of an ``EventStream`` (which pushes on dispatching threads)
/// and its consumer (which takes in a task).
///
/// Why not `AsyncStream`: measured in `events-bench` (async-delivery), a consumer of an
/// `AsyncStream` fed from a tight loop falls into lockstep with its producer, suspending after
/// every element, so each event costs a thread wake-up (about 4 µs here). This queue's consumer
/// takes events without any suspension while some are buffered, and suspends only when it has
/// caught up, so a burst costs one wake-up in all.
final class EventBuffer<E: Sendable>: @unchecked Sendable {
    // Why @unchecked is safe: every mutable stored property is read and written only while
    // `lock` is held; continuations are taken out under the lock and resumed after it is
    // released, each exactly once.
    private let lock = Lock()
    private let policy: EventBufferingPolicy
    private var elements: [E] = []
    /// Elements before `head` were taken already; they are removed in bulk, not one by one.
    private var head = 0
    private var waiters: [UnsafeContinuation<E?, Never>] = []
    private var finished = false
    private var dropped = 0

    init(policy: EventBufferingPolicy) {
        self.policy = policy
    }

    /// How many events the buffering policy dropped.
    var droppedCount: Int { lock.withLock { dropped } }

    private var buffered: Int { elements.count - head }

    /// Hands `event` to a waiting consumer, or buffers it under the policy.
    func push(_ event: E) {
        let waiter: UnsafeContinuation<E?, Never>? = lock.withLock {
            guard !finished else { return nil }
            if !waiters.isEmpty { return waiters.removeFirst() }
            switch policy {
            case .unbounded:
                elements.append(event)
            case .dropNewest(let capacity):
                guard buffered < capacity else {
                    dropped += 1
                    return nil
                }
                elements.append(event)
            case .dropOldest(let capacity):
                guard capacity > 0 else {
                    dropped += 1
                    return nil
                }
                if buffered >= capacity {
                    head += 1
                    dropped += 1
                }
                elements.append(event)
                compactIfWorthIt()
            }
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// Ends the sequence at once, dropping what is buffered: the consumer was cancelled.
    func cancel() {
        let waiting: [UnsafeContinuation<E?, Never>] = lock.withLock {
            finished = true
            elements = []
            head = 0
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume(returning: nil) }
    }

    /// The next event, waiting for one if none is buffered; nil once the sequence has ended or
    /// the calling task is cancelled. Runs on the caller's executor.
    func next(isolation actor: isolated (any Actor)?) async -> E? {
        if Task.isCancelled {
            cancel()
            return nil
        }
        switch lock.withLock({ take() }) {
        case .element(let event): return event
        case .end: return nil
        case .wait: break
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: actor) { (continuation: UnsafeContinuation<E?, Never>) in
                let outcome: Taken = lock.withLock {
                    let taken = take()
                    if case .wait = taken { waiters.append(continuation) }
                    return taken
                }
                switch outcome {
                case .element(let event): continuation.resume(returning: event)
                case .end: continuation.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            cancel()
        }
    }

    private enum Taken {
        case element(E)
        case end
        case wait
    }

    /// Takes the oldest buffered event. Call with the lock held.
    private func take() -> Taken {
        guard head < elements.count else { return finished ? .end : .wait }
        let event = elements[head]
        head += 1
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else {
            compactIfWorthIt()
        }
        return .element(event)
    }

    /// Drops the taken prefix once it is the larger part of the storage: amortized O(1) per
    /// event, without the buffer growing while a lagging consumer keeps up partly.
    private func compactIfWorthIt() {
        if head >= 64, head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
    }
}
