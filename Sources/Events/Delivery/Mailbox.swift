import Dispatch

/// The lock-protected FIFO behind a mailbox: jobs in arrival order, and whether a drain is
/// scheduled. Shared by the dispatch-based and the actor-based mailboxes.
final class MailboxQueue<Job: Sendable>: PendingSource, @unchecked Sendable {
    // Why @unchecked is safe: `jobs`, `head`, `draining`, `runs`, `pending` and `label` are only
    // touched inside `lock`.
    //
    // The lock also rules out overlapping accesses, so the runtime's exclusivity checks, a pair
    // of calls per access on every push and every batch of the drain, are left out for the
    // state that each push and pop touches.
    private let lock = Lock()
    @exclusivity(unchecked) private var jobs: [Job?] = []
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var draining = false
    /// The jobs queued and not finished yet, for `EventCenter.idle()`; the job running counts
    /// until the drain asks for the next one.
    @exclusivity(unchecked) private var runs = PendingRuns()
    /// The storage a drain gave back when it ended (empty, with its capacity), for the next
    /// drain to start with: otherwise each drain would start from an empty array, and the queue
    /// that trades places with it would grow again, step by step, over every burst.
    @exclusivity(unchecked) private var spare: [Job?] = []
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

    /// Moves every job queued now into `batch`, in order, and returns the index of the first
    /// (`batch` is left empty when there is none, and then no drain is running any more).
    /// `finished` jobs, the ones the drain took before, are done: they stop counting as pending.
    ///
    /// `batch` is the drain's storage from its last call, every job in it already taken out:
    /// the queue's storage and the drain's trade places, so that neither allocates once both
    /// have grown to the size of a burst, and the drain shares the lock with the producers once
    /// per batch where ``pop(finished:)`` takes it once per job.
    func exchange(_ batch: inout [Job?], finished: Int) -> Int {
        lock.lock()
        var ended: [PendingDeliveries.Epoch] = []
        for _ in 0..<finished {
            if let epoch = runs.removeOldest() { ended.append(epoch) }
        }
        // Only nils are left in `batch`: emptying it releases nothing under the lock.
        batch.removeAll(keepingCapacity: batch.capacity <= Self.keptCapacity)
        if batch.capacity == 0 { swap(&batch, &spare) }
        var start = 0
        if head < jobs.count {
            swap(&jobs, &batch)
            start = head
        } else {
            jobs.removeAll(keepingCapacity: jobs.capacity <= Self.keptCapacity)
            swap(&batch, &spare)
            draining = false
        }
        head = 0
        let pending = ended.isEmpty ? nil : self.pending
        lock.unlock()
        if let pending { for epoch in ended { pending.closeRun(epoch) } }
        return start
    }

    /// The largest storage, in jobs, that the queue and the drain keep for the next burst once
    /// they are empty: a burst that a drain takes in one block, not a flood's.
    private static var keptCapacity: Int { 1024 }

    /// Puts jobs a drain took but did not run back at the front of the queue, before any queued
    /// since: they run first in the drain's next turn.
    func putBack(_ rest: ArraySlice<Job?>) {
        lock.lock()
        jobs.insert(contentsOf: rest, at: head)
        lock.unlock()
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
///
/// One block on the executor runs every job queued by the time it starts, and those queued
/// while it runs, within ``DrainBudget``: a burst costs one block, not one per event, and a
/// flood cannot hold the executor (the main queue above all) for longer than the budget.
///
/// A job is a value that the drain hands to a runner given when the drain starts, rather than
/// a closure of its own: a listener's deliveries (``QueuedDelivery``) then wait in the queue's
/// reused storage with no allocation of their own, and what every delivery of the listener
/// shares (its center, record and handler) is captured once per block.
final class SerialMailbox<Job: Sendable>: Sendable {
    /// Runs one job, in the executor's context.
    typealias Runner = @Sendable (Job) -> Void

    private let queue = MailboxQueue<Job>()
    private let submit: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let budget: DrainBudget

    /// - Parameters:
    ///   - budget: How long one block may run jobs before it yields the executor.
    ///   - submit: Runs a block on the listener's executor, asynchronously.
    init(budget: DrainBudget = .standard, submit: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.budget = budget
        self.submit = submit
    }

    var isIdle: Bool { queue.isIdle }

    /// Queues `job` for `listener`, counted in `pending` until it has run. Returns true when no
    /// drain is running: the caller must then start one, with ``startDrain(_:)``.
    func push(_ job: Job, for listener: ListenerRecord, pending: PendingDeliveries) -> Bool {
        queue.push(job, for: listener, pending: pending)
    }

    /// Starts the drain that a `push` returning true asked for: a block on the executor that
    /// runs the queued jobs through `run`.
    func startDrain(_ run: @escaping Runner) {
        submit { self.drain(finished: 0, run) }
    }

    /// Runs queued jobs; `finished` counts the jobs the previous block ran and has not reported
    /// as finished yet.
    private func drain(finished: Int, _ run: @escaping Runner) {
        var finished = finished
        var batch: [Job?] = []
        var ran = 0
        let began = DispatchTime.now().uptimeNanoseconds
        while true {
            var index = queue.exchange(&batch, finished: finished)
            finished = 0
            guard index < batch.count else { return }
            while index < batch.count {
                let job = batch[index].take()!
                index += 1
                run(job)
                finished += 1
                ran += 1
                if budget.isSpent(ran: ran, since: began) {
                    // Yield: what this block took and did not run goes back to the front, and a
                    // later block goes on, so that other work on the executor runs meanwhile. The
                    // jobs run here are reported finished by that block's first exchange.
                    if index < batch.count { queue.putBack(batch[index...]) }
                    let done = finished
                    submit { self.drain(finished: done, run) }
                    return
                }
            }
        }
    }
}

/// A mailbox whose jobs are closures, for deliveries that decide what they run when they are
/// queued (a coalesced listener's flushes).
typealias ClosureMailbox = SerialMailbox<@Sendable () -> Void>

extension SerialMailbox where Job == @Sendable () -> Void {
    /// Queues `job` for `listener`, counted in `pending` until it has run.
    func enqueue(for listener: ListenerRecord, pending: PendingDeliveries, _ job: @escaping @Sendable () -> Void) {
        if push(job, for: listener, pending: pending) { startDrain { $0() } }
    }
}

/// How long one block of a ``SerialMailbox`` may run its listener's deliveries before it hands
/// the executor back: at most `deliveries` of them, and once `time` has passed (read after
/// every eighth delivery, where reading the clock after each would cost a dispatch more than
/// the check saves), no more.
struct DrainBudget: Sendable {
    let deliveries: Int
    let nanoseconds: UInt64

    init(deliveries: Int, time: Duration) {
        self.deliveries = deliveries
        let (seconds, attoseconds) = time.components
        nanoseconds = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    /// 512 deliveries or 2 milliseconds: a burst that a view shows at once is drained in one turn
    /// of the main queue, and a flood leaves most of a frame's time to the rest of the app.
    static let standard = DrainBudget(deliveries: 512, time: .milliseconds(2))

    /// Whether a block that started at `began` (in `DispatchTime` nanoseconds) and has run `ran`
    /// deliveries must yield.
    func isSpent(ran: Int, since began: UInt64) -> Bool {
        if ran >= deliveries { return true }
        guard ran & 7 == 0 else { return false }
        return DispatchTime.now().uptimeNanoseconds &- began >= nanoseconds
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
