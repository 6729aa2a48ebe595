/// The lock-protected FIFO behind a mailbox: jobs in arrival order, and whether a drain is
/// scheduled. Shared by the dispatch-based and the actor-based mailboxes.
final class MailboxQueue<Job: Sendable>: @unchecked Sendable {
    // Why @unchecked is safe: `jobs`, `head` and `draining` are only touched inside `lock`.
    private let lock = Lock()
    private var jobs: [Job?] = []
    private var head = 0
    private var draining = false

    /// Appends `job`; returns true when the caller must schedule a drain (none is running).
    func push(_ job: Job) -> Bool {
        lock.withLock {
            jobs.append(job)
            if draining { return false }
            draining = true
            return true
        }
    }

    /// The next job, or nil when the queue is empty (and then no drain is running any more).
    /// Jobs are moved out, never released under the lock: a job may hold the last reference to
    /// user objects.
    func pop() -> Job? {
        lock.withLock {
            guard head < jobs.count else {
                jobs.removeAll(keepingCapacity: jobs.count <= 64)
                head = 0
                draining = false
                return nil
            }
            let job = jobs[head].take()
            head += 1
            return job
        }
    }

    /// Whether no job is queued or running.
    var isIdle: Bool { lock.withLock { !draining } }
}

/// A per-listener FIFO of synchronous jobs run one at a time by an executor (a dispatch queue,
/// an operation queue, the main queue): events reach the listener in the order they were
/// enqueued, even on a concurrent queue.
final class SerialMailbox: Sendable {
    typealias Job = @Sendable () -> Void

    private let queue = MailboxQueue<Job>()
    private let submit: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// How many jobs one drain runs before yielding the executor to other work.
    private static let batch = 64

    /// - Parameter submit: Runs a block on the listener's executor, asynchronously.
    init(submit: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.submit = submit
    }

    var isIdle: Bool { queue.isIdle }

    func enqueue(_ job: @escaping Job) {
        if queue.push(job) {
            submit { self.drain() }
        }
    }

    private func drain() {
        for _ in 0..<Self.batch {
            guard let job = queue.pop() else { return }
            job()
        }
        // More may be waiting: continue in a later block so other work on the executor runs.
        submit { self.drain() }
    }
}

/// A per-listener FIFO of jobs isolated to an actor, drained by one task at a time.
final class ActorMailbox: Sendable {
    typealias Job = @Sendable () async -> Void

    private let queue = MailboxQueue<Job>()

    func enqueue(_ job: @escaping Job) {
        if queue.push(job) {
            Task { await self.drain() }
        }
    }

    private func drain() async {
        while let job = queue.pop() {
            await job()
        }
    }
}
