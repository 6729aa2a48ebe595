/// The queue between the listener of an ``EventStream`` (which pushes on dispatching threads)
/// and its consumer (which takes in a task).
///
/// Why not `AsyncStream`: measured in `events-bench` (async-delivery), a consumer of an
/// `AsyncStream` fed from a tight loop falls into lockstep with its producer, suspending after
/// every element, so each event costs a thread wake-up (about 4 µs here). This queue's consumer
/// takes events without any suspension while some are buffered, and suspends only when it has
/// caught up, so a burst costs one wake-up in all.
///
/// The events sit in a ring buffer of the queue's own, not an array. This code is generic over
/// the user's event type and is not specialized for it (it lives in this module), and an
/// unspecialized `[E]` looks its type metadata up in the runtime's cache on every append and
/// every removal: measured at two thirds of the cost of a push (about 1,900 of 2,900
/// instructions). A ring buffer of `E` needs only `E`'s own metadata, which the class carries.
/// Likewise the lock is taken and released by hand rather than through a closure returning a
/// generic value, and the common path never touches the waiters' array.
@usableFromInline
final class EventBuffer<E: Sendable>: @unchecked Sendable {
    // Why @unchecked is safe: every mutable stored property is read and written only while
    // `lock` is held; continuations are taken out under the lock and resumed after it is
    // released, each exactly once.
    //
    // A `SpinLock`: the producer and the consumer take it for a few instructions each, from two
    // threads at once, and a contended pthread mutex put one of them to sleep in the kernel.
    private let lock = SpinLock()
    private let policy: EventBufferingPolicy
    // `@exclusivity(unchecked)`: the lock makes every access exclusive already, and the run-time
    // check on a class's stored `var` costs on every access.
    /// `capacity` slots (a power of two); `count` events from `head` on, wrapping around.
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<E>
    @exclusivity(unchecked) private var capacity = 16
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var waiters: [UnsafeContinuation<E?, Never>] = []
    @exclusivity(unchecked) private var hasWaiters = false
    @exclusivity(unchecked) private var finished = false
    @exclusivity(unchecked) private var dropped = 0

    init(policy: EventBufferingPolicy) {
        self.policy = policy
        storage = .allocate(capacity: capacity)
    }

    deinit {
        Self.destroy(storage, capacity: capacity, head: head, count: count)
        storage.deallocate()
    }

    /// How many events the buffering policy dropped.
    var droppedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return dropped
    }

    /// Hands `event` to a waiting consumer, or buffers it under the policy.
    func push(_ event: E) {
        lock.lock()
        if finished {
            lock.unlock()
            return
        }
        if hasWaiters {
            resumeWaiterUnlocking(with: event)
            return
        }
        switch policy {
        case .unbounded:
            appendLocked(event)
        case .dropNewest(let limit):
            if count < limit { appendLocked(event) } else { dropped += 1 }
        case .dropOldest(let limit):
            if limit <= 0 {
                dropped += 1
            } else if count >= limit {
                replaceOldestUnlocking(with: event)
                return
            } else {
                appendLocked(event)
            }
        }
        lock.unlock()
    }

    /// Drops the oldest buffered event to make room for `event`, and releases the lock before
    /// the dropped event is destroyed: its deinitializer may be user code, which never runs
    /// under the lock. Call with the lock held.
    @inline(never)
    private func replaceOldestUnlocking(with event: E) {
        let oldest = takeLocked()
        dropped += 1
        appendLocked(event)
        lock.unlock()
        withExtendedLifetime(oldest) {}
    }

    /// Hands `event` to the longest-waiting consumer, releasing the lock before resuming it.
    /// Call with the lock held and a consumer waiting.
    ///
    /// Kept out of `push`: it needs the metadata of `E?`, which unspecialized code looks up in
    /// the runtime's cache, and the compiler requests a function's metadata on entry, so inside
    /// `push` every event paid that lookup (about 300 instructions), waiter or not.
    @inline(never)
    private func resumeWaiterUnlocking(with event: E) {
        let waiter = waiters.removeFirst()
        hasWaiters = !waiters.isEmpty
        lock.unlock()
        waiter.resume(returning: event)
    }

    /// Ends the sequence at once, dropping what is buffered: the consumer was cancelled.
    func cancel() {
        lock.lock()
        finished = true
        // The events leave with their ring, destroyed after unlocking (their deinitializers may
        // be user code); nothing is buffered after the end, so a one-slot ring is enough.
        let ring = (storage: storage, capacity: capacity, head: head, count: count)
        storage = .allocate(capacity: 1)
        capacity = 1
        head = 0
        count = 0
        let waiting = waiters
        waiters = []
        hasWaiters = false
        lock.unlock()
        Self.destroy(ring.storage, capacity: ring.capacity, head: ring.head, count: ring.count)
        ring.storage.deallocate()
        for waiter in waiting { waiter.resume(returning: nil) }
    }

    /// The next event, waiting for one if none is buffered; nil once the sequence has ended or
    /// the calling task is cancelled. Runs on the caller's executor. The iterator calls it after
    /// `takeBuffered()` found nothing.
    @usableFromInline
    func next(isolation actor: isolated (any Actor)?) async -> E? {
        if Task.isCancelled {
            cancel()
            return nil
        }
        // No look at the buffer first: the iterator has just found it empty (`takeBuffered`),
        // and the continuation below takes an event that arrived meanwhile, or the end.
        return await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: actor) { (continuation: UnsafeContinuation<E?, Never>) in
                lock.lock()
                if count > 0 {
                    let event = takeLocked()
                    lock.unlock()
                    continuation.resume(returning: event)
                } else if finished {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiters.append(continuation)
                    hasWaiters = true
                    lock.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The oldest buffered event, or nil when none is buffered.
    @usableFromInline
    func takeBuffered() -> E? {
        lock.lock()
        defer { lock.unlock() }
        return count > 0 ? takeLocked() : nil
    }

    /// Puts `event` after the newest buffered one, growing the ring when full. Call with the
    /// lock held.
    private func appendLocked(_ event: E) {
        if count == capacity { growLocked() }
        (storage + ((head + count) & (capacity - 1))).initialize(to: event)
        count += 1
    }

    /// Takes the oldest buffered event; there must be one. Call with the lock held.
    private func takeLocked() -> E {
        let event = (storage + head).move()
        head = (head + 1) & (capacity - 1)
        count -= 1
        return event
    }

    /// Doubles the ring, moving the events to its start in order. Call with the lock held.
    private func growLocked() {
        let larger = UnsafeMutablePointer<E>.allocate(capacity: capacity * 2)
        let firstPart = min(count, capacity - head)
        larger.moveInitialize(from: storage + head, count: firstPart)
        (larger + firstPart).moveInitialize(from: storage, count: count - firstPart)
        storage.deallocate()
        storage = larger
        capacity *= 2
        head = 0
    }

    /// Destroys the `count` events of a ring from `head` on, wrapping around.
    private static func destroy(_ storage: UnsafeMutablePointer<E>, capacity: Int, head: Int, count: Int) {
        let firstPart = min(count, capacity - head)
        (storage + head).deinitialize(count: firstPart)
        storage.deinitialize(count: count - firstPart)
    }
}
