import Synchronization

/// What ``EventCenter/idle(isolation:)`` waits for: the deliveries a center has queued in other
/// contexts (mailboxes of queues, the main actor, actors) and the events buffered in its
/// streams, grouped by epoch.
///
/// Time is cut into epochs. `idle()` starts a new one and waits until nothing queued in an
/// earlier epoch is pending; what is queued from then on belongs to the new epoch, so a steady
/// stream of new deliveries cannot keep it waiting.
///
/// Counting every delivery here would put one more shared write on each queued delivery.
/// Instead each mailbox keeps its own count under its own lock, as ``PendingRuns``: consecutive
/// deliveries of one epoch form a run, and only the start and the end of a run come here. A
/// mailbox that keeps up with its producer opens and closes a run per delivery; one that lags
/// serves many deliveries per run.
///
/// Stream buffers are not counted at all until an `idle()` starts: the center keeps a list of
/// its live buffers, and `idle()` asks each to mark its newest buffered event; the buffer
/// reports the mark once that event has left it (taken or dropped). A stream's producer and
/// consumer, which the benchmark measures to the nanosecond, pay one count and one comparison.
///
/// The runs of the current epoch are one counter, packed with the epoch into one atomic word,
/// so that opening and closing them takes no lock: one atomic operation each. Only `idle()`
/// takes the lock: it moves the current epoch's count into `frozen` as it starts the next
/// epoch, in one compare-and-exchange, and a run of an epoch that has been frozen closes there,
/// under the lock. Epochs are 32-bit tags in the word and in runs: a run would have to stay
/// open across four billion `idle()` calls for two tags to meet.
///
/// State under the lock: the frozen epochs that still have open runs, oldest first; the waiting
/// `idle()` calls, each waiting for the frozen epochs older than its own start and for the marks
/// it placed in stream buffers; the live stream buffers; and the live mailboxes that have had a
/// delivery, which only an ``IdleReport`` reads.
final class PendingDeliveries: @unchecked Sendable {
    // Why @unchecked is safe: `frozen`, `waiters`, `streams`, `mailboxes`, `nextSerial` and
    // `nextWaiter` are only touched with `lock` held; `word` is an atomic. A continuation leaves `waiters` in the
    // same hold of the lock that hands it out, and is resumed once, after unlocking. Buffers
    // retained from `streams` are released after unlocking.
    //
    // A `SpinLock`: the paths of deliveries and streams hold it for a few instructions, and only
    // for a frozen epoch or a waiting `idle()` (a handful of entries at most); only `idle()`
    // itself walks the list of streams under it.
    private let lock = SpinLock()
    /// The current epoch in the high 32 bits, its open runs in the low 32 bits.
    private let word = Atomic<UInt64>(0)
    private var frozen: [FrozenEpoch] = []
    private var waiters: [Waiter] = []
    private var streams: [ObjectIdentifier: WeakStream] = [:]
    /// Filed by their first delivery, so that a listener that never receives one costs nothing.
    private var mailboxes: [ObjectIdentifier: WeakSource] = [:]
    /// The serial number of the next frozen epoch: serials order them, where tags may wrap.
    private var nextSerial: UInt64 = 0
    private var nextWaiter: UInt64 = 0

    /// An epoch tag, as runs carry it.
    typealias Epoch = UInt32

    private struct FrozenEpoch {
        let epoch: Epoch
        let serial: UInt64
        var runs: UInt64
    }

    private struct Waiter {
        let id: UInt64
        /// Waits until no frozen epoch with a smaller serial has open runs.
        let serial: UInt64
        /// How many of its marks in stream buffers are not reached yet. It may go below zero
        /// while marks are being placed (a mark reached before it is counted).
        var streamMarks = 0
        /// Whether marks are still being placed: not done before that ends.
        var placingMarks = true
        /// Nil until the waiting task has suspended.
        var continuation: UnsafeContinuation<Void, Never>?
    }

    private struct WeakStream {
        weak var stream: (any PendingStream)?
    }

    private struct WeakSource {
        weak var source: (any PendingSource)?
    }

    private static func epoch(of word: UInt64) -> Epoch { Epoch(truncatingIfNeeded: word >> 32) }
    private static func runs(of word: UInt64) -> UInt64 { word & 0xFFFF_FFFF }

    /// The epoch that deliveries queued now belong to.
    var epoch: Epoch { Self.epoch(of: word.load(ordering: .acquiring)) }

    /// Whether anything is pending, in any epoch or stream buffer (for tests).
    var isEmpty: Bool {
        let (noRuns, streams) = lock.withLock {
            (Self.runs(of: word.load(ordering: .acquiring)) == 0 && frozen.isEmpty, liveStreams())
        }
        return noRuns && !streams.contains { $0.hasBufferedEvents }
    }

    // MARK: Stream buffers

    /// A stream's buffer is created; it stays listed until its deinit.
    func register(_ stream: some PendingStream) {
        lock.withLock { streams[ObjectIdentifier(stream)] = WeakStream(stream: stream) }
    }

    func unregister(_ stream: some PendingStream) {
        lock.withLock { _ = streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// The listed buffers still alive, retained: release them after unlocking (a release may
    /// run a buffer's deinit, which comes back here). Call with the lock held.
    private func liveStreams() -> [any PendingStream] {
        streams.values.compactMap(\.stream)
    }

    // MARK: Mailboxes

    /// A mailbox has its first delivery; it stays listed until its deinit. Called with the
    /// mailbox's lock held: this lock is never held while taking a mailbox's.
    func register(mailbox: some PendingSource) {
        lock.withLock { mailboxes[ObjectIdentifier(mailbox)] = WeakSource(source: mailbox) }
    }

    func unregister(mailbox: some PendingSource) {
        lock.withLock { _ = mailboxes.removeValue(forKey: ObjectIdentifier(mailbox)) }
    }

    // MARK: Reports

    /// The listeners with deliveries not run and the streams with events not taken, now. Each
    /// source is asked after unlocking, under its own lock.
    func report() -> IdleReport {
        let sources: [any PendingSource] = lock.withLock {
            liveStreams() + mailboxes.values.compactMap(\.source)
        }
        return IdleReport(listeners: sources.compactMap { $0.pendingListener() })
    }

    /// Stream buffers report marks of `waiters` reached: the events they marked have left.
    func marksReached(_ waiters: [UInt64]) {
        lock.lock()
        for id in waiters {
            if let index = self.waiters.firstIndex(where: { $0.id == id }) { self.waiters[index].streamMarks -= 1 }
        }
        let ready = takeReadyWaiters()
        lock.unlock()
        for continuation in ready { continuation.resume() }
    }

    /// A queue starts a run of deliveries; returns the run's epoch, to give to `closeRun`.
    func openRun() -> Epoch {
        Self.epoch(of: word.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue)
    }

    /// A run of `epoch` has ended: each of its deliveries ran, was skipped or was dropped.
    func closeRun(_ epoch: Epoch) {
        var current = word.load(ordering: .acquiring)
        while Self.epoch(of: current) == epoch {
            let (exchanged, original) = word.compareExchange(
                expected: current, desired: current - 1, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
        closeFrozenRun(epoch)
    }

    /// `closeRun` for an epoch that `idle()` has frozen since the run opened.
    private func closeFrozenRun(_ epoch: Epoch) {
        lock.lock()
        guard let index = frozen.firstIndex(where: { $0.epoch == epoch }) else {
            lock.unlock()
            assertionFailure("a run was closed that was not open")
            return
        }
        frozen[index].runs -= 1
        guard frozen[index].runs == 0 else {
            lock.unlock()
            return
        }
        frozen.remove(at: index)
        // Only the end of the oldest frozen epoch can let a waiter go.
        guard index == 0, !waiters.isEmpty else {
            lock.unlock()
            return
        }
        let ready = takeReadyWaiters()
        lock.unlock()
        for continuation in ready { continuation.resume() }
    }

    /// Whether `waiter` has nothing left to wait for. Call with the lock held.
    private func isDone(_ waiter: Waiter) -> Bool {
        !waiter.placingMarks && waiter.streamMarks <= 0 && waiter.serial <= (frozen.first?.serial ?? .max)
    }

    /// Removes the waiters with nothing left to wait for; returns those that have suspended.
    /// Call with the lock held.
    private func takeReadyWaiters() -> [UnsafeContinuation<Void, Never>] {
        guard waiters.contains(where: isDone) else { return [] }
        let ready = waiters.filter(isDone).compactMap(\.continuation)
        waiters.removeAll(where: isDone)
        return ready
    }

    // MARK: Waiting

    /// Waits until every delivery queued before the call is done, or the task is cancelled.
    /// Returns at once, without suspending, when nothing is pending.
    func wait(isolation: isolated (any Actor)?) async {
        guard let id = beginWaiting() else { return }
        await suspendUntilDone(id, isolation: isolation)
    }

    /// The first step of `wait`: returns nil when nothing is pending, and the wait is over;
    /// otherwise the waiter to give to `suspendUntilDone(_:isolation:)`.
    func beginWaiting() -> UInt64? {
        let (id, streams) = startWaiting()
        var placed = 0
        for stream in streams where stream.placeMark(for: id) { placed += 1 }
        return finishPlacingMarks(id, placed) ? nil : id
    }

    /// The second step of `wait`: suspends until the waiter `id` has nothing left to wait for,
    /// or the task is cancelled.
    func suspendUntilDone(_ id: UInt64, isolation: isolated (any Actor)?) async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: isolation) { (continuation: UnsafeContinuation<Void, Never>) in
                if !suspend(id, continuation) { continuation.resume() }
            }
        } onCancel: {
            stopWaiting(id)
        }
    }

    /// Freezes the current epoch, if it has open runs, starting the next one; adds a waiter for
    /// every frozen epoch. Returns the waiter and the stream buffers it must place marks in.
    private func startWaiting() -> (UInt64, [any PendingStream]) {
        lock.lock()
        defer { lock.unlock() }
        var current = word.load(ordering: .acquiring)
        while Self.runs(of: current) > 0 {
            let next = UInt64(Self.epoch(of: current) &+ 1) << 32
            let (exchanged, original) = word.compareExchange(
                expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged {
                frozen.append(
                    FrozenEpoch(epoch: Self.epoch(of: current), serial: nextSerial, runs: Self.runs(of: current)))
                nextSerial += 1
                break
            }
            current = original
        }
        let id = nextWaiter
        nextWaiter += 1
        waiters.append(Waiter(id: id, serial: nextSerial, continuation: nil))
        return (id, liveStreams())
    }

    /// The waiter has placed `placed` marks; returns true when it has nothing left to wait for
    /// (or was cancelled meanwhile), and is gone.
    private func finishPlacingMarks(_ id: UInt64, _ placed: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return true }
        waiters[index].streamMarks += placed
        waiters[index].placingMarks = false
        guard isDone(waiters[index]) else { return false }
        waiters.remove(at: index)
        return true
    }

    /// Hands the suspended task's continuation to its waiter; false when the waiter is gone
    /// already (done, or cancelled), and the task must resume at once.
    private func suspend(_ id: UInt64, _ continuation: UnsafeContinuation<Void, Never>) -> Bool {
        lock.withLock {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return false }
            waiters[index].continuation = continuation
            return true
        }
    }

    /// The waiting task was cancelled: removes its waiter and resumes it if it had suspended.
    private func stopWaiting(_ id: UInt64) {
        let continuation: UnsafeContinuation<Void, Never>? = lock.withLock {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index).continuation
        }
        continuation?.resume()
    }

    /// How many `idle()` calls are waiting (for tests).
    var waiterCount: Int { lock.withLock { waiters.count } }
}

/// A mailbox or a stream's buffer, as an ``IdleReport`` sees it.
protocol PendingSource: AnyObject, Sendable {
    /// Its listener and how much is pending for it; nil when nothing is.
    func pendingListener() -> IdleReport.Listener?
}

/// A stream's buffer, as `idle()` sees it.
protocol PendingStream: PendingSource {
    /// Marks the newest buffered event for `waiter`, reported to ``PendingDeliveries`` once it
    /// has left the buffer; false when nothing is buffered.
    func placeMark(for waiter: UInt64) -> Bool
    var hasBufferedEvents: Bool { get }
}

/// The pending deliveries of one mailbox, in order: runs of
/// consecutive deliveries queued in the same epoch, oldest first. Mutated under the mailbox's
/// own lock; a run's start and end are reported to the center's ``PendingDeliveries``, the end
/// after the mailbox's lock is released.
struct PendingRuns {
    private struct Run {
        var epoch: PendingDeliveries.Epoch
        var count: Int
    }

    /// The oldest run (its count is 0 when there is none), kept apart so that a queue with a
    /// single run, the usual case, never touches the array.
    private var head = Run(epoch: 0, count: 0)
    private var later: [Run] = []

    /// Whether no delivery of this queue is pending.
    var isEmpty: Bool { head.count == 0 }

    /// How many deliveries of this queue are pending.
    var count: Int { later.reduce(head.count) { $0 + $1.count } }

    /// One more delivery queued, after the others.
    mutating func add(_ pending: PendingDeliveries) {
        let epoch = pending.epoch
        if later.isEmpty {
            if head.count == 0 {
                head = Run(epoch: pending.openRun(), count: 1)
                return
            }
            if head.epoch == epoch {
                head.count += 1
                return
            }
        } else if later[later.count - 1].epoch == epoch {
            later[later.count - 1].count += 1
            return
        }
        later.append(Run(epoch: pending.openRun(), count: 1))
    }

    /// The oldest delivery is done; returns the epoch of the run it ended, if it ended one, to
    /// close after unlocking.
    mutating func removeOldest() -> PendingDeliveries.Epoch? {
        guard head.count > 0 else {
            assertionFailure("a delivery was done that was not pending")
            return nil
        }
        head.count -= 1
        guard head.count == 0 else { return nil }
        let ended = head.epoch
        if !later.isEmpty { head = later.removeFirst() }
        return ended
    }

    /// Every pending delivery is done (dropped); returns the epochs of the runs that ended.
    mutating func removeAll() -> [PendingDeliveries.Epoch] {
        guard head.count > 0 else { return [] }
        let ended = [head.epoch] + later.map(\.epoch)
        head = Run(epoch: 0, count: 0)
        later = []
        return ended
    }
}
