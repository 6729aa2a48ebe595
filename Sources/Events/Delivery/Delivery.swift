public import Dispatch
public import Foundation

/// Where a listener's handler runs, for handlers that are not main-actor isolated.
///
/// ```swift
/// center.listen(to: Saved.self) { ... }                              // the dispatching thread
/// center.listen(to: Saved.self, on: .background) { ... }             // the center's serial queue
/// center.listen(to: Saved.self, on: .queue(databaseQueue)) { ... }   // a DispatchQueue
/// center.listen(to: Saved.self, on: .operationQueue(operations)) { ... }
/// ```
///
/// Rules for every context but ``postingThread``:
/// - `dispatch` returns as soon as the event is queued; the handler runs later in its context.
/// - Per-listener FIFO: a listener receives the events dispatched from one thread in the order
///   they were dispatched, even on a concurrent queue (each listener has its own serial mailbox).
/// - Lifetime is checked again when the event's turn comes: a cancelled or removed listener, or
///   one whose owner is gone by then, is skipped.
///
/// For the main actor use ``MainActorDelivery``, whose handlers the compiler knows are
/// `@MainActor`; for any other actor, `listen(to:isolatedTo:...)`.
public struct Delivery: Sendable {
    @usableFromInline
    enum Kind: Sendable {
        case postingThread
        case background
        case queue(DispatchQueue)
        case operationQueue(OperationQueue)
    }

    @usableFromInline let kind: Kind

    @inlinable
    init(kind: Kind) {
        self.kind = kind
    }

    /// Whether handlers run on the dispatching thread.
    @inlinable var isPostingThread: Bool {
        guard case .postingThread = kind else { return false }
        return true
    }

    // Computed and inlinable rather than a stored `static let`: as the default argument of
    // every `listen`, a stored one cost a lazy-global accessor, a copy and a call to test it on
    // each registration; inlined, the test folds away.

    /// Synchronously on the thread that dispatches, before `dispatch` returns (the default).
    @inlinable public static var postingThread: Delivery { Delivery(kind: .postingThread) }
    /// On a serial background queue owned by the center, shared by all its background listeners.
    public static let background = Delivery(kind: .background)

    /// On `queue`, asynchronously. A concurrent queue is fine: each listener still receives its
    /// events one at a time, in order.
    public static func queue(_ queue: DispatchQueue) -> Delivery {
        Delivery(kind: .queue(queue))
    }

    /// As an operation on `queue`, one at a time per listener, in order.
    ///
    /// ```swift
    /// let imports = OperationQueue()
    /// center.listen(to: Saved.self, on: .operationQueue(imports)) { saved in index(saved) }
    /// ```
    ///
    /// Cancelling the queue's operations does not cancel deliveries: after
    /// `queue.cancelAllOperations()`, every event already queued for the listener, and every
    /// later one, still reaches it as an operation on `queue`, in dispatch order, and
    /// ``EventCenter/idle(isolation:)`` returns once they have run. (An operation that carries
    /// deliveries and is cancelled before it started is added to `queue` again.) To stop a
    /// listener's deliveries, cancel its ``Subscription`` or remove it: what is queued for it is
    /// then skipped. A suspended queue (`isSuspended`) holds its deliveries until it resumes,
    /// and `idle()` waits for them meanwhile.
    public static func operationQueue(_ queue: OperationQueue) -> Delivery {
        Delivery(kind: .operationQueue(queue))
    }
}

/// How a main-actor listener's handler is scheduled. The handler is `@MainActor`, checked by
/// the compiler, so it can touch UI state directly.
///
/// ```swift
/// @MainActor final class FeedViewModel {
///     var titles: [String] = []
///     func start(_ center: EventCenter) {
///         center.listen(to: PostWritten.self, owner: self, on: .main) { model, post in
///             model.titles.append(post.title)   // no DispatchQueue.main.async, no warning
///         }
///     }
/// }
/// ```
///
/// Queued deliveries run in turns of the main queue: one turn runs everything queued for the
/// listener by then, so a burst from a background thread costs one turn, and hands the main
/// queue back after 512 deliveries or 2 milliseconds, so that a flood of events cannot keep the
/// rest of the app from the main queue.
public enum MainActorDelivery: Sendable {
    /// When the event is dispatched on the main thread, the handler runs at once, inside
    /// `dispatch` (like a posting-thread listener); from any other thread it is enqueued to the
    /// main actor. Events still reach the listener in order: while earlier events are queued,
    /// later ones queue behind them instead of running inline.
    case main
    /// Always enqueued to the main actor, even when dispatched on the main thread: the handler
    /// runs after the dispatching code has finished, in dispatch order.
    case mainOrdered
}
