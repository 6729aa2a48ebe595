import Synchronization

/// A registration made with `listen`: keep it to keep listening, cancel or drop it to stop.
///
/// A subscription returned by the closure form of `listen(to:)`
/// cancels itself when it is deinitialized, like Combine's `AnyCancellable`, so a listener can
/// never outlive the object that stores its subscription:
///
/// ```swift
/// final class FeedModel {
///     private var subscriptions = Set<Subscription>()
///
///     init(center: EventCenter) {
///         center.listen(to: PostWritten.self) { post in print(post.title) }
///             .store(in: &subscriptions)
///     }
/// }   // deinit of FeedModel drops the set, which cancels the listener
/// ```
///
/// A subscription returned by the owner-bound form (`listen(to:owner:...)`) does not cancel on
/// deinit: that listener lives as long as its owner. Keeping or cancelling its subscription is
/// optional.
///
/// Rules:
/// - ``cancel()`` is idempotent and safe from any thread, including from inside the listener's
///   own handler.
/// - After ``cancel()`` returns, the handler is not started again, on any thread: every delivery
///   begins with an atomic claim on the listener, and cancellation is ordered against it. A call
///   that was claimed before `cancel()` (already running, or about to enter the handler on another
///   thread) is not waited for: waiting would let a handler that cancels from another thread
///   deadlock.
/// - For a listener in another context (main actor, actor, queue), events already queued when
///   `cancel()` returns are skipped when their turn comes.
/// - Two subscriptions are equal when they stand for the same registration.
public final class Subscription: Hashable, Sendable, CustomStringConvertible {
    // One reference, so that a subscription is the smallest heap object. Whether it cancels on
    // deinit follows from the registration: listeners without an owner end with their
    // subscription, owner-bound (and actor-bound) ones end with their owner.
    let record: ListenerRecord

    init(record: ListenerRecord) {
        self.record = record
    }

    deinit {
        guard !record.isOwnerBound else { return }
        // Already ended (usually by an explicit `cancel()`): nothing to cancel, and no call. A
        // `once` listener goes through `cancel()` anyway, which stops its queued delivery.
        if record.isActive || record.once { cancel() }
        // The registry's list does not keep this record alive (`isKeptByList`): it must leave
        // the list before this reference goes. `cancel()` took it out, unless another path had
        // retired it first (a `once` listener that fired, a sender that died), which leaves the
        // list to a purge that may not have run yet.
        if record.listed.load(ordering: .acquiring) {
            Unmanaged.passUnretained(record.registry)._withUnsafeGuaranteedRef { $0.remove(record) }
        }
    }

    /// Stops the listener. Calling it again, or on a listener that already ended, does nothing.
    public func cancel() {
        // Borrowed, not retained: the record keeps its registry in a `let` for its whole life,
        // and this subscription keeps the record alive for the whole call.
        let cancelled = Unmanaged.passUnretained(record.registry)._withUnsafeGuaranteedRef { registry in
            if record.isRetiredOnlyByCancel { return registry.cancel(record) }
            guard record.retire(.cancelled) else { return false }
            registry.remove(record)
            return true
        }
        if cancelled, record.traits.contains(.cancelHook) { record.didCancel() }
    }

    /// Whether the listener can still receive events: not cancelled or removed, not a `once`
    /// listener that already fired, and its owner and sender (when it has them) still alive.
    public var isActive: Bool { record.checkLiveness() }

    /// Where the listener was registered.
    public var callSite: CallSite { record.callSite }

    /// Keeps this subscription in `set`; it is cancelled when removed from the set or when the
    /// set is deinitialized (for the closure form of `listen`).
    public func store(in set: inout Set<Subscription>) {
        set.insert(self)
    }

    /// Keeps this subscription in `collection` (an array, for example).
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == Subscription {
        collection.append(self)
    }

    public static func == (lhs: Subscription, rhs: Subscription) -> Bool {
        lhs.record === rhs.record
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(record))
    }

    public var description: String {
        "Subscription(\(record.eventType) at \(record.callSite), \(record.state))"
    }
}
