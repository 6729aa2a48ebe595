/// The state of an ``EventBuffer``: the buffered events, the consumers waiting for one, and
/// whether the sequence has ended.
///
/// Every transition runs with the buffer's lock held, changes only this object, and returns
/// what the caller must do once it has released the lock: resume a consumer, or let go of
/// events (their deinitializers may be user code). No transition resumes a continuation or
/// releases an event itself.
///
/// States: *open* (events may be buffered, or consumers may wait, never both: an event that
/// finds a waiter goes straight to it), *finishing* (no event arrives any more, nobody waits:
/// consumers take what is still buffered, and a consumer that finds nothing gets the end) and
/// *finished* (nothing buffered, nobody waiting, every later event dropped). `finish()` leads
/// from open to finishing, which becomes finished once the last buffered event is taken;
/// `cancel()` leads from either to finished at once, discarding what is buffered.
///
/// A class rather than a struct, and the ring's fields its own rather than a ring type's: this
/// code is generic over the user's event type and not specialized for it (it lives in this
/// module), and unspecialized code reaches the fields of a generic struct through its type
/// metadata, looked up in the runtime's cache on every call, where a class's metadata is the
/// object's own. For the same reason the events sit in a ring of slots rather than an `[E]`,
/// and the actions of the common paths hold no `E`.
final class EventBufferStateMachine<E: Sendable> {
    private let policy: EventBufferingPolicy
    /// `capacity` slots (a power of two); `count` events from `head` on, wrapping around.
    private var storage: UnsafeMutablePointer<E>
    private var capacity = 16
    private var head = 0
    /// How many events are buffered.
    private(set) var count = 0
    private var waiters: [UnsafeContinuation<E?, Never>] = []
    /// Whether `waiters` is not empty, kept apart so that a push without a waiter never touches
    /// the array: its element type needs the metadata of `E?`, which unspecialized code looks up
    /// in the runtime's cache.
    private var hasWaiters = false
    /// Whether the sequence ends once the buffer is empty: no event is buffered any more.
    private var finished = false
    /// How many events the buffering policy dropped.
    private(set) var dropped = 0

    // For `EventCenter.idle()`: a waiting `idle()` places a mark at the position of the newest
    // event buffered when it started, and is done with this buffer once that event has left it
    // (taken, or dropped). Pushes and takes pay one count and one comparison for this; the rest
    // happens only while some `idle()` waits on this buffer.

    /// How many events have left the buffer, taken or dropped by `dropOldest`.
    private var departed: UInt64 = 0
    /// The position of the first mark in `marks`, or `.max` when there is none.
    private var nextMark: UInt64 = .max
    /// The marks of waiting `idle()` calls, in order of position.
    private var marks: [(position: UInt64, waiter: UInt64)] = []
    /// The waiters whose marks the last transition reached, to report after unlocking.
    private var reached: [UInt64] = []
    /// Whether `reached` is not empty, kept apart so that the common paths test a flag.
    private(set) var hasReachedMarks = false

    /// How many consumers are suspended, waiting for an event.
    var waitingCount: Int { waiters.count }

    init(policy: EventBufferingPolicy) {
        self.policy = policy
        storage = .allocate(capacity: capacity)
    }

    deinit {
        Self.destroy(storage, capacity: capacity, head: head, count: count)
    }

    // MARK: Transitions (call each with the buffer's lock held)

    /// What the pusher does after unlocking.
    enum PushAction {
        /// Nothing: the event was buffered, or dropped (by the policy, or after the end).
        case none
        /// Hand the pushed event to this consumer, the longest waiting.
        case resume(UnsafeContinuation<E?, Never>)
        /// The buffer is full under `dropOldest`: in the same hold of the lock, call
        /// `replaceOldest(with:)`, and let go of the event it returns after unlocking. A step of
        /// its own so that this enum holds no `E`.
        case replaceOldest
    }

    /// An event arrives from a dispatching thread.
    @inline(__always)
    func push(_ event: E) -> PushAction {
        if finished { return .none }
        if hasWaiters { return .resume(removeFirstWaiter()) }
        switch policy {
        case .unbounded:
            append(event)
        case .dropNewest(let limit):
            if count < limit { append(event) } else { dropped += 1 }
        case .dropOldest(let limit):
            if limit <= 0 {
                dropped += 1
            } else if count >= limit {
                return .replaceOldest
            } else {
                append(event)
            }
        }
        return .none
    }

    /// Kept out of `push`: it needs the metadata of `E?`, and the compiler requests a function's
    /// metadata on entry, so inside `push` every event would pay that lookup, waiter or not.
    @inline(never)
    private func removeFirstWaiter() -> UnsafeContinuation<E?, Never> {
        let waiter = waiters.removeFirst()
        hasWaiters = !waiters.isEmpty
        return waiter
    }

    /// Drops the oldest buffered event to make room for `event`, after `push` returned
    /// `.replaceOldest`; returns the dropped one, to let go of after unlocking.
    @inline(never)
    func replaceOldest(with event: E) -> E {
        let oldest = removeFirst()
        dropped += 1
        append(event)
        return oldest
    }

    // MARK: Marks of waiting `idle()` calls

    /// A waiting `idle()` is done with this buffer once every event buffered now has left it;
    /// returns false when none is buffered (nothing to wait for).
    func placeMark(for waiter: UInt64) -> Bool {
        guard count > 0 else { return false }
        // `departed + count` never decreases, so marks stay in order of position.
        marks.append((position: departed + UInt64(count), waiter: waiter))
        nextMark = marks[0].position
        return true
    }

    /// Whether any event is buffered.
    var isEmpty: Bool { count == 0 }

    /// The waiters whose marks were reached, to report after unlocking; clears them.
    func takeReachedMarks() -> [UInt64] {
        defer {
            reached = []
            hasReachedMarks = false
        }
        return reached
    }

    /// Every mark is reached: the buffered events are gone.
    func reachAllMarks() {
        reached += marks.map(\.waiter)
        hasReachedMarks = !reached.isEmpty
        marks = []
        nextMark = .max
    }

    /// An event has left the buffer: moves the marks it reached to `reached`.
    @inline(never)
    private func reachMarks() {
        let count = marks.prefix { $0.position <= departed }.count
        reached += marks.prefix(count).map(\.waiter)
        hasReachedMarks = true
        marks.removeFirst(count)
        nextMark = marks.first?.position ?? .max
    }

    /// The consumer takes a buffered event without waiting; nil when none is buffered.
    @inline(__always)
    func takeBuffered() -> E? {
        count > 0 ? removeFirst() : nil
    }

    /// What a consumer about to suspend does after unlocking.
    enum SuspendAction {
        /// Nothing: it waits, and a later push or `cancel()` resumes it.
        case none
        /// Resume it at once with this event, or with nil at the end of the sequence.
        case resume(UnsafeContinuation<E?, Never>, with: E?)
    }

    /// A consumer found nothing buffered and suspends with `continuation`; an event that arrived
    /// meanwhile, or the end, resumes it at once.
    func suspend(_ continuation: UnsafeContinuation<E?, Never>) -> SuspendAction {
        if count > 0 { return .resume(continuation, with: removeFirst()) }
        if finished { return .resume(continuation, with: nil) }
        waiters.append(continuation)
        hasWaiters = true
        return .none
    }

    /// The listener was removed: no event arrives any more, and the sequence ends after those
    /// buffered now, which consumers may still take. Returns the consumers waiting now, to resume
    /// with nil after unlocking (they wait only while nothing is buffered). Idempotent.
    func finish() -> [UnsafeContinuation<E?, Never>] {
        finished = true
        let waiting = waiters
        waiters = []
        hasWaiters = false
        return waiting
    }

    /// What the canceller does after unlocking: destroy the events that were buffered, then
    /// resume every waiting consumer with nil.
    struct CancelAction {
        fileprivate let storage: UnsafeMutablePointer<E>
        fileprivate let capacity: Int
        fileprivate let head: Int
        fileprivate let count: Int
        let waiters: [UnsafeContinuation<E?, Never>]

        /// Destroys the discarded events and frees their ring. Call once.
        func destroyDiscarded() {
            EventBufferStateMachine.destroy(storage, capacity: capacity, head: head, count: count)
        }
    }

    /// The sequence ends: the consumer was cancelled, or the last iterator went away. Idempotent.
    func cancel() -> CancelAction {
        finished = true
        reachAllMarks()
        let action = CancelAction(storage: storage, capacity: capacity, head: head, count: count, waiters: waiters)
        // Nothing is buffered after the end, so a one-slot ring is enough from now on.
        storage = .allocate(capacity: 1)
        capacity = 1
        head = 0
        count = 0
        waiters = []
        hasWaiters = false
        return action
    }

    // MARK: The ring

    /// Puts `event` after the newest buffered one, growing the ring when full.
    private func append(_ event: E) {
        if count == capacity { grow() }
        (storage + ((head + count) & (capacity - 1))).initialize(to: event)
        count += 1
    }

    /// Takes the oldest buffered event; there must be one.
    private func removeFirst() -> E {
        let event = (storage + head).move()
        head = (head + 1) & (capacity - 1)
        count -= 1
        departed &+= 1
        if departed == nextMark { reachMarks() }
        return event
    }

    /// Doubles the ring, moving the events to its start in order.
    private func grow() {
        let larger = UnsafeMutablePointer<E>.allocate(capacity: capacity * 2)
        let firstPart = min(count, capacity - head)
        larger.moveInitialize(from: storage + head, count: firstPart)
        (larger + firstPart).moveInitialize(from: storage, count: count - firstPart)
        storage.deallocate()
        storage = larger
        capacity *= 2
        head = 0
    }

    /// Destroys the `count` events of a ring from `head` on, wrapping around, and frees it.
    fileprivate static func destroy(_ storage: UnsafeMutablePointer<E>, capacity: Int, head: Int, count: Int) {
        let firstPart = min(count, capacity - head)
        (storage + head).deinitialize(count: firstPart)
        storage.deinitialize(count: count - firstPart)
        storage.deallocate()
    }
}
