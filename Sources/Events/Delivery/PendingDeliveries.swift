import Synchronization

/// What ``EventCenter/idle(isolation:)`` waits for: the deliveries a center has queued in other
/// contexts (mailboxes of queues, the main actor, actors) and the events buffered in its
/// streams, grouped by epoch.
///
/// Time is cut into epochs. `idle()` starts a new one and waits until nothing queued in an
/// earlier epoch is pending; what is queued from then on belongs to the new epoch, so a steady
/// stream of new deliveries cannot keep it waiting.
///
/// Counting every delivery here would put one more lock, shared by every dispatching thread, on
/// each queued delivery. Instead each queue (a mailbox, a stream's buffer) keeps its own count
/// under its own lock, as ``PendingRuns``: consecutive deliveries of one epoch form a run, and
/// only the start and the end of a run come here. A queue that keeps up with its producer opens
/// and closes a run per delivery; one that lags serves many deliveries per run.
///
/// State: the epochs that have open runs, oldest first, each with how many; and the waiting
/// `idle()` calls, each with the epoch it started (it waits for every older one), in the order
/// they started, which is also the order of their epochs.
final class PendingDeliveries: @unchecked Sendable {
    // Why @unchecked is safe: `open`, `waiters` and `nextWaiter` are only touched with `lock`
    // held; `current` is an atomic. A continuation leaves `waiters` in the same hold of the lock
    // that hands it out, and is resumed once, after unlocking.
    //
    // A `SpinLock`: each hold is a few instructions (the lists hold one entry per epoch with open
    // runs and per waiting `idle()`, a handful at most).
    private let lock = SpinLock()
    /// The epoch new deliveries join. Written only with `lock` held; read without it by queues
    /// deciding whether their newest run is still current.
    private let current = Atomic<UInt64>(0)
    private var open: [OpenEpoch] = []
    private var waiters: [Waiter] = []
    private var nextWaiter: UInt64 = 0

    private struct OpenEpoch {
        let epoch: UInt64
        var runs: Int
    }

    private struct Waiter {
        let id: UInt64
        /// Done once no epoch older than this one has open runs.
        let epoch: UInt64
        /// Nil until the waiting task has suspended.
        var continuation: UnsafeContinuation<Void, Never>?
    }

    /// The epoch that deliveries queued now belong to.
    var epoch: UInt64 { current.load(ordering: .acquiring) }

    /// Whether anything is pending, in any epoch.
    var isEmpty: Bool { lock.withLock { open.isEmpty } }

    /// A queue starts a run of deliveries; returns the run's epoch, to give to `closeRun`.
    func openRun() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let epoch = current.load(ordering: .relaxed)
        if let last = open.indices.last, open[last].epoch == epoch {
            open[last].runs += 1
        } else {
            open.append(OpenEpoch(epoch: epoch, runs: 1))
        }
        return epoch
    }

    /// A run of `epoch` has ended: each of its deliveries ran, was skipped or was dropped.
    func closeRun(_ epoch: UInt64) {
        lock.lock()
        guard let index = open.firstIndex(where: { $0.epoch == epoch }) else {
            lock.unlock()
            assertionFailure("a run was closed that was not open")
            return
        }
        open[index].runs -= 1
        guard open[index].runs == 0 else {
            lock.unlock()
            return
        }
        open.remove(at: index)
        // Only the end of the oldest epoch can let a waiter go.
        guard index == 0, !waiters.isEmpty else {
            lock.unlock()
            return
        }
        let ready = takeReadyWaiters()
        lock.unlock()
        for continuation in ready { continuation.resume() }
    }

    /// Removes the waiters that no open epoch holds back; returns those that have suspended.
    /// Call with the lock held.
    private func takeReadyWaiters() -> [UnsafeContinuation<Void, Never>] {
        let oldest = open.first?.epoch ?? .max
        let count = waiters.prefix { $0.epoch <= oldest }.count
        let ready = waiters.prefix(count).compactMap(\.continuation)
        waiters.removeFirst(count)
        return ready
    }

    // MARK: Waiting

    /// Waits until every delivery queued before the call is done, or the task is cancelled.
    /// Returns at once, without suspending, when nothing is pending.
    func wait(isolation: isolated (any Actor)?) async {
        guard let id = startWaiting() else { return }
        await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: isolation) { (continuation: UnsafeContinuation<Void, Never>) in
                if !suspend(id, continuation) { continuation.resume() }
            }
        } onCancel: {
            stopWaiting(id)
        }
    }

    /// Starts a new epoch and a waiter for the older ones; nil when nothing is pending.
    private func startWaiting() -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        guard !open.isEmpty else { return nil }
        let epoch = current.load(ordering: .relaxed) + 1
        current.store(epoch, ordering: .releasing)
        let id = nextWaiter
        nextWaiter += 1
        waiters.append(Waiter(id: id, epoch: epoch, continuation: nil))
        return id
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

/// The pending deliveries of one queue (a mailbox, a stream's buffer), in order: runs of
/// consecutive deliveries queued in the same epoch, oldest first. Mutated under the queue's own
/// lock; a run's start and end are reported to the center's ``PendingDeliveries``, the end
/// after the queue's lock is released.
struct PendingRuns {
    private struct Run {
        var epoch: UInt64
        var count: Int
    }

    /// The oldest run (its count is 0 when there is none), kept apart so that a queue with a
    /// single run, the usual case, never touches the array.
    private var head = Run(epoch: 0, count: 0)
    private var later: [Run] = []

    /// Whether no delivery of this queue is pending.
    var isEmpty: Bool { head.count == 0 }

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
    mutating func removeOldest() -> UInt64? {
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
    mutating func removeAll() -> [UInt64] {
        guard head.count > 0 else { return [] }
        let ended = [head.epoch] + later.map(\.epoch)
        head = Run(epoch: 0, count: 0)
        later = []
        return ended
    }
}
