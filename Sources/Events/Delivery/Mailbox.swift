/// The lock-protected FIFO behind a mailbox: jobs in arrival order, and whether a drain is
/// scheduled. Shared by the dispatch-based and the actor-based mailboxes.
final class MailboxQueue<Job: Sendable>: PendingSource, @unchecked Sendable {
    // Why @unchecked is safe: `jobs`, `head`, `draining`, `runs`, `pending` and `label` are only
    // touched inside `lock`.
    private let lock = Lock()
    private var jobs: [Job?] = []
    private var head = 0
    private var draining = false
    /// The jobs queued and not finished yet, for `EventCenter.idle()`; the job running counts
    /// until the drain asks for the next one.
    private var runs = PendingRuns()
    /// The center's record of pending deliveries, set by the first push (a mailbox serves one
    /// listener of one center).
    private var pending: PendingDeliveries?
    /// The listener, as an ``IdleReport`` names it; set with `pending`.
    private var label: PendingLabel?

    deinit {
        if let pending { pending.unregister(mailbox: self) }
    }

    /// Appends `job` for `listener`, counted as pending in `pending` until the drain finishes it;
    /// returns true when the caller must schedule a drain (none is running).
    func push(_ job: Job, for listener: ListenerRecord, pending: PendingDeliveries) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if self.pending == nil { fileFirst(for: listener, in: pending) }
        runs.add(pending)
        jobs.append(job)
        if draining { return false }
        draining = true
        return true
    }

    /// The first push: remembers the center's record and the listener, and files this mailbox
    /// in the record for reports. Kept out of `push`, which runs it once.
    @inline(never)
    private func fileFirst(for listener: ListenerRecord, in pending: PendingDeliveries) {
        self.pending = pending
        label = PendingLabel(listener)
        pending.register(mailbox: self)
    }

    func pendingListener() -> IdleReport.Listener? {
        lock.lock()
        let label = self.label
        let count = runs.count
        lock.unlock()
        guard count > 0, let label else { return nil }
        return label.listener(pending: count)
    }

    /// The next job, or nil when the queue is empty (and then no drain is running any more).
    /// `finished` says that the drain has just finished the job it took last: it stops counting
    /// as pending. Jobs are moved out, never released under the lock: a job may hold the last
    /// reference to user objects.
    func pop(finished: Bool) -> Job? {
        lock.lock()
        let ended = finished ? runs.removeOldest() : nil
        let job = takeNext()
        // Read under the lock, and only when a run ended, so that most pops retain nothing.
        let pending = ended == nil ? nil : self.pending
        lock.unlock()
        if let ended, let pending { pending.closeRun(ended) }
        return job
    }

    /// `pop`'s step with the lock held.
    private func takeNext() -> Job? {
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

    /// Queues `job` for `listener`, counted in `pending` until it has run.
    func enqueue(for listener: ListenerRecord, pending: PendingDeliveries, _ job: @escaping Job) {
        if queue.push(job, for: listener, pending: pending) {
            submit { self.drain(finished: false) }
        }
    }

    /// Runs queued jobs; `finished` says that the previous block ended with a job it has not
    /// reported as finished yet.
    private func drain(finished: Bool) {
        var finished = finished
        for _ in 0..<Self.batch {
            guard let job = queue.pop(finished: finished) else { return }
            job()
            finished = true
        }
        // More may be waiting: continue in a later block so other work on the executor runs.
        // The job just run is reported finished by the next pop, in that block.
        submit { self.drain(finished: true) }
    }
}

/// A per-listener FIFO of jobs isolated to an actor, drained by one task at a time.
final class ActorMailbox: Sendable {
    typealias Job = @Sendable () async -> Void

    private let queue = MailboxQueue<Job>()

    /// Queues `job` for `listener`, counted in `pending` until it has run.
    func enqueue(for listener: ListenerRecord, pending: PendingDeliveries, _ job: @escaping Job) {
        if queue.push(job, for: listener, pending: pending) {
            Task { await self.drain() }
        }
    }

    private func drain() async {
        var finished = false
        while let job = queue.pop(finished: finished) {
            await job()
            finished = true
        }
    }
}
