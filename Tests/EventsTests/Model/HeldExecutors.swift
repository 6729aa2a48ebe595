import Dispatch
import Foundation
import Synchronization

@testable import Events

/// A serial executor that runs nothing until it is released: the actors of a model run use it,
/// so that an actor listener's events wait exactly as long as the run decides. Jobs wait in a
/// suspended dispatch queue.
final class HeldExecutor: SerialExecutor, @unchecked Sendable {
    // Why @unchecked is safe: `queue` is a `let` of a thread-safe type, `waiting` an atomic; the
    // suspend and resume calls are made by the one thread that drives the run.
    let queue = DispatchQueue(label: "swift-events.model.actors")
    /// Jobs enqueued and not yet started.
    let waiting = Atomic<Int>(0)

    init() { queue.suspend() }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        waiting.add(1, ordering: .sequentiallyConsistent)
        queue.async {
            self.waiting.subtract(1, ordering: .sequentiallyConsistent)
            job.runSynchronously(on: self.asUnownedSerialExecutor())
        }
    }
}

/// An actor whose listeners the model run holds back (see ``HeldExecutor``).
actor ModelActor {
    nonisolated let tag: Int
    nonisolated let executor: HeldExecutor

    init(tag: Int, executor: HeldExecutor) {
        self.tag = tag
        self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
}

/// The thread-safe log that handlers write to, wherever they run.
final class EntrySink: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var entries: [ModelEntry] = []

    func record(_ entry: ModelEntry) { lock.withLock { entries.append(entry) } }

    /// Everything recorded since the last call.
    func take() -> [ModelEntry] {
        lock.withLock {
            defer { entries.removeAll(keepingCapacity: true) }
            return entries
        }
    }
}

/// Tells whether one queued listener has nothing left to run: its mailbox is idle. The driver
/// drains an executor until every mailbox on it is idle, so that it knows that a skipped
/// delivery, which leaves no trace, has had its turn.
enum MailboxProbe {
    case serial(SerialMailbox<QueuedDelivery>)
    case actor(MailboxQueue<ActorMailbox.Job>)

    var isIdle: Bool {
        switch self {
        case .serial(let mailbox): mailbox.isIdle
        case .actor(let queue): queue.isIdle
        }
    }

    /// The probe of a queued listener's record, or nil for a posting-thread listener.
    init?(_ record: ListenerRecord) {
        guard
            let probe = Self.probe(record, ModelEventA.self) ?? Self.probe(record, ModelEventB.self)
                ?? Self.probe(record, NamedEvent.self) ?? Self.probe(record, StampedEvent.self)
        else {
            precondition(!record.isRouted, "model run: a queued listener of an event type the probe does not know")
            return nil
        }
        self = probe
    }

    private static func probe<E: Event>(_ record: ListenerRecord, _: E.Type) -> MailboxProbe? {
        guard let routed = record as? RoutedRecord<E> else { return nil }
        if let serial = routed.storedRoute as? SerialRoute<E> { return .serial(serial.mailbox) }
        guard let route = routed.storedRoute as? ActorRoute<E, ModelActor> else {
            preconditionFailure("model run: a routed listener of an unknown route \(type(of: routed.storedRoute))")
        }
        // The actor mailbox keeps its queue private; the model run reads it to know when an
        // actor listener is done, without a hook in the library.
        let queue = Mirror(reflecting: route.mailbox).children.first { $0.label == "queue" }?.value
        guard let queue = queue as? MailboxQueue<ActorMailbox.Job> else {
            preconditionFailure("model run: ActorMailbox no longer keeps a MailboxQueue named `queue`")
        }
        return .actor(queue)
    }
}

/// Waits, politely and for at most `timeout`, until `condition` holds; returns whether it did.
/// For work on other threads that leaves nothing to await (a skipped queued delivery).
func waitUntil(timeout: Duration = .seconds(30), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    var spins = 0
    while !condition() {
        if ContinuousClock.now >= deadline { return condition() }
        spins += 1
        if spins < 64 { sched_yield() } else { usleep(50) }
    }
    return true
}
