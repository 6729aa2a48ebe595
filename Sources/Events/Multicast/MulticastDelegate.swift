/// Many weakly held delegates behind one delegate slot.
///
/// Use a `MulticastDelegate` when an API talks to *one* delegate but several objects want to
/// hear from it, or when your own type wants to notify a list of observers through a protocol
/// instead of closures. The delegate protocol must be class-bound (`AnyObject`), because
/// delegates are held weakly:
///
/// ```swift
/// protocol DownloadDelegate: AnyObject, Sendable {
///     func download(_ id: Int, didProgress fraction: Double)
///     func suggestedFileName(for id: Int) -> String?
/// }
///
/// let delegates = MulticastDelegate<any DownloadDelegate>()
/// delegates += progressBar          // or delegates.add(progressBar)
/// delegates += logger
///
/// delegates.invoke { $0.download(7, didProgress: 0.5) }            // progressBar, then logger
/// let name = delegates.firstNonNil { $0.suggestedFileName(for: 7) } // first answer wins
/// ```
///
/// ## Rules
///
/// - **Lifetime.** Delegates are held weakly. A delegate that deinitializes simply stops being
///   called; its entry is pruned lazily (during invocations, `count`, and periodically while
///   adding), so nothing needs to remove it. The multicast delegate never keeps a delegate
///   alive beyond the duration of a call it is making.
/// - **Uniqueness.** A delegate is identified by object identity. Adding it again while it is
///   registered does nothing and keeps its original position.
/// - **Order.** Delegates are called in the order they were added. Removing a delegate and
///   adding it again moves it to the end.
/// - **Reentrancy.** No lock is held while a delegate runs, so a delegate may add or remove
///   delegates (itself included) or invoke the multicast delegate again. Each invocation works
///   on a snapshot taken when it starts:
///   - a delegate added during an invocation is not called by that invocation, only by later
///     ones;
///   - a delegate removed during an invocation, before its turn came, is not called by that
///     invocation (membership is checked right before each call);
///   - a delegate that deinitializes during an invocation is not called.
/// - **Threading.** `invoke` and its siblings call the delegates synchronously, on the calling
///   thread, before returning. See "Sendability" below.
/// - **Errors.** If a closure throws, the remaining delegates are not called and the error is
///   rethrown. ``invokeCollectingFailures(_:)`` instead calls every delegate and returns the
///   failures.
///
/// ## Sendability
///
/// `MulticastDelegate` is `Sendable` exactly when `Delegate` is. Whoever calls `invoke` gets
/// the delegates handed to its closure on its own thread, and two threads may invoke at the
/// same time, so sharing the multicast delegate across threads means sharing every delegate
/// across threads. Swift can only allow that for delegates that are themselves `Sendable`
/// (declare the protocol as `protocol P: AnyObject, Sendable`). With a non-`Sendable` delegate
/// protocol the multicast delegate still works, but the compiler keeps it inside one isolation
/// domain, such as the class or actor that owns it. For UI delegates that live on the main
/// actor, use ``MainActorMulticastDelegate``.
///
/// A removal made on another thread takes effect for every invocation that checks the entry
/// after `remove` returns; an invocation already running on a different thread may have passed
/// that check and make one last call to the removed delegate, as with `NotificationCenter`.
///
/// ## Forwarding proxy: one slot, many listeners
///
/// Delegate slots such as a table view's `delegate` accept a single object. To let many
/// listeners share the slot, write a small proxy that conforms to the delegate protocol and
/// fans every call out through a `MulticastDelegate`, then put the proxy in the slot:
///
/// ```swift
/// final class TableDelegateFanOut: TableDelegate {
///     let listeners = MulticastDelegate<any TableDelegate>()
///
///     // Notifications: everybody hears them, in order of addition.
///     func table(_ table: Table, didSelectRow row: Int) {
///         listeners.invoke { $0.table(table, didSelectRow: row) }
///     }
///
///     // Questions: decide how answers combine; here the first listener with an opinion wins.
///     func table(_ table: Table, heightOfRow row: Int) -> Double {
///         listeners.firstNonNil { $0.table(table, heightOfRow: row) } ?? 44
///     }
/// }
///
/// let fanOut = TableDelegateFanOut()   // keep it alive: delegate slots are usually weak
/// table.delegate = fanOut
/// fanOut.listeners += analytics
/// fanOut.listeners += selectionController
/// ```
///
/// Every method of the protocol needs one line in the proxy. For questions, pick the
/// combination that makes sense per method: ``firstNonNil(_:)`` for "who knows the answer",
/// ``reduce(_:_:)`` for totals, ``map(_:)`` or ``compactMap(_:)`` to gather all answers.
public final class MulticastDelegate<Delegate> {
    // All mutable state is `list`, and every access to it goes through `lock`. No user code runs
    // under the lock: delegates are called, and strong references to them released, only after
    // the lock is dropped (see `WeakDelegateList.swift` for the one justified exception).
    private let lock = Lock()
    private var list = WeakDelegateList()

    /// Creates an empty multicast delegate.
    public init() {}

    // MARK: Membership

    /// Adds `delegate` at the end of the invocation order, unless it is already registered.
    ///
    /// The delegate is held weakly: keep a strong reference to it elsewhere for as long as it
    /// should be called. Adding during an invocation takes effect from the next invocation.
    ///
    /// ```swift
    /// delegates.add(logger)
    /// ```
    ///
    /// - Precondition: `delegate` is a class instance (the delegate protocol is class-bound).
    /// - Returns: `true` if the delegate was added, `false` if it was already registered.
    /// - Complexity: O(*n*) in the number of entries.
    @discardableResult
    public func add(_ delegate: Delegate) -> Bool {
        let object = delegateObject(delegate, in: "MulticastDelegate")
        let (inserted, shouldPrune) = lock.withLock { list.insert(object) }
        if shouldPrune { pruneDeadEntries() }
        return inserted
    }

    /// Removes `delegate`, so that it is not called again.
    ///
    /// Removing a delegate that is not registered does nothing. Removing during an invocation
    /// (even the delegate being called removing itself) prevents any later call to it in that
    /// invocation.
    ///
    /// ```swift
    /// delegates.remove(logger)
    /// ```
    ///
    /// - Returns: `true` if the delegate was registered.
    /// - Complexity: O(*n*) in the number of entries.
    @discardableResult
    public func remove(_ delegate: Delegate) -> Bool {
        let object = delegate as AnyObject
        return lock.withLock { list.remove(object) }
    }

    /// Removes every delegate. Invocations in progress make no further calls.
    public func removeAll() {
        lock.withLock { list.removeAll() }
    }

    /// Whether `delegate` is registered.
    ///
    /// - Complexity: O(*n*) in the number of entries.
    public func contains(_ delegate: Delegate) -> Bool {
        let object = delegate as AnyObject
        return lock.withLock { list.contains(object) }
    }

    /// The number of registered delegates that are still alive.
    ///
    /// Used from several threads, the value is a momentary one. Reading it also prunes entries
    /// of delegates that have deinitialized.
    ///
    /// - Complexity: O(*n*) in the number of entries.
    public var count: Int {
        var dead: [WeakDelegateEntry] = []
        let live = countLiveEntries(in: snapshot(), dead: &dead)
        prune(dead)
        return live
    }

    /// Whether no live delegate is registered.
    ///
    /// - Complexity: O(*n*) in the number of entries.
    public var isEmpty: Bool {
        var isEmpty = true
        forEach { _ in
            isEmpty = false
            return false
        }
        return isEmpty
    }

    // MARK: Invocation

    /// Calls `body` with every live delegate, in order of addition.
    ///
    /// ```swift
    /// delegates.invoke { $0.download(id, didProgress: fraction) }
    /// ```
    ///
    /// The calls happen synchronously on the calling thread. Delegates added while this runs are
    /// not called; delegates removed or deinitialized before their turn are skipped. If `body`
    /// throws, the remaining delegates are not called and the error is rethrown; to call them
    /// all and collect the errors, use ``invokeCollectingFailures(_:)``.
    public func invoke(_ body: (Delegate) throws -> Void) rethrows {
        try forEach { delegate in
            try body(delegate)
            return true
        }
    }

    /// Calls `body` with every live delegate, in order of addition, even when some calls throw,
    /// and returns the failures.
    ///
    /// Use it where one failing delegate must not keep the others from hearing the news, as a
    /// throwing listener never stops the other listeners of an ``EventCenter``:
    ///
    /// ```swift
    /// let failures = delegates.invokeCollectingFailures { try $0.flush() }
    /// for failure in failures { log(failure.description) }
    /// ```
    ///
    /// Rules:
    /// - Every delegate that ``invoke(_:)`` would call is called, in the same order, with the
    ///   same snapshot and reentrancy rules: delegates added during the call are not called;
    ///   delegates removed or deinitialized before their turn are skipped.
    /// - A delegate whose call throws adds one ``DelegateFailure`` (the delegate and the error)
    ///   to the result, and the next delegate is called. The failures come in order of addition;
    ///   the result is empty when no call threw.
    /// - Each failure keeps its delegate alive until the failure is let go.
    @discardableResult
    public func invokeCollectingFailures(_ body: (Delegate) throws -> Void) -> [DelegateFailure<Delegate>] {
        var failures: [DelegateFailure<Delegate>] = []
        forEach { delegate in
            do {
                try body(delegate)
            } catch {
                failures.append(DelegateFailure(delegate: delegate, error: error))
            }
            return true
        }
        return failures
    }

    /// Asks every live delegate and returns the answers, in order of addition.
    ///
    /// Use it when every delegate's answer matters, for example to gather menu items:
    ///
    /// ```swift
    /// let items = delegates.map { $0.menuItems(for: selection) }.flatMap { $0 }
    /// ```
    ///
    /// Follows the same rules as ``invoke(_:)``.
    public func map<Answer>(_ transform: (Delegate) throws -> Answer) rethrows -> [Answer] {
        var answers: [Answer] = []
        try forEach { delegate in
            answers.append(try transform(delegate))
            return true
        }
        return answers
    }

    /// Asks every live delegate and returns the non-nil answers, in order of addition.
    ///
    /// Use it when delegates may decline to answer by returning nil:
    ///
    /// ```swift
    /// let warnings = delegates.compactMap { $0.warning(for: document) }
    /// ```
    ///
    /// Every delegate is asked, even after the first answer. Follows the same rules as
    /// ``invoke(_:)``.
    public func compactMap<Answer>(_ transform: (Delegate) throws -> Answer?) rethrows -> [Answer] {
        var answers: [Answer] = []
        try forEach { delegate in
            if let answer = try transform(delegate) { answers.append(answer) }
            return true
        }
        return answers
    }

    /// Asks the live delegates in order of addition and returns the first non-nil answer.
    ///
    /// Use it for questions that one delegate should answer, the way a data source does:
    ///
    /// ```swift
    /// let title = delegates.firstNonNil { $0.title(forRow: row) } ?? "Untitled"
    /// ```
    ///
    /// Delegates after the one that answered are not asked. Returns nil if no delegate answers.
    /// Follows the same rules as ``invoke(_:)``.
    public func firstNonNil<Answer>(_ transform: (Delegate) throws -> Answer?) rethrows -> Answer? {
        var result: Answer?
        try forEach { delegate in
            result = try transform(delegate)
            return result == nil
        }
        return result
    }

    /// Combines an answer from every live delegate, folding them in order of addition.
    ///
    /// Use it when the answers add up to one value:
    ///
    /// ```swift
    /// let rows = dataSources.reduce(0) { total, source in total + source.numberOfRows() }
    /// ```
    ///
    /// `nextPartialResult` is called once per delegate, first with `initialResult`. Follows the
    /// same rules as ``invoke(_:)``.
    public func reduce<Result>(
        _ initialResult: Result,
        _ nextPartialResult: (Result, Delegate) throws -> Result
    ) rethrows -> Result {
        var result = initialResult
        try forEach { delegate in
            result = try nextPartialResult(result, delegate)
            return true
        }
        return result
    }

    // MARK: Internals

    /// The number of stored entries, dead ones included. For tests of pruning.
    var _storedEntryCount: Int {
        lock.withLock { list.entries.count }
    }

    private func snapshot() -> [WeakDelegateEntry] {
        // Copying the array only retains its buffer; the entries themselves hold no strong
        // reference to a delegate, so nothing released here can run a deinitializer.
        lock.withLock { list.entries }
    }

    /// Walks a snapshot, calling `body` with each live delegate until it returns false, then
    /// prunes the dead entries it met (also when `body` throws).
    private func forEach(_ body: (Delegate) throws -> Bool) rethrows {
        let entries = snapshot()
        var dead: [WeakDelegateEntry] = []
        defer { prune(dead) }
        try forEachLiveDelegate(in: entries, dead: &dead, body)
    }

    private func prune(_ dead: [WeakDelegateEntry]) {
        guard !dead.isEmpty else { return }
        lock.withLock { list.removeDead(dead) }
    }

    /// A full pruning pass, triggered by `add` when the list has grown past its threshold.
    private func pruneDeadEntries() {
        var dead: [WeakDelegateEntry] = []
        _ = countLiveEntries(in: snapshot(), dead: &dead)
        lock.withLock {
            if dead.isEmpty {
                list.notePruned()
            } else {
                list.removeDead(dead)
            }
        }
    }
}

// Sendable only when the delegates are: see "Sendability" in the type's documentation.
//
// Why `@unchecked` is safe here:
// - The only mutable state, `list`, is read and written exclusively inside `lock.withLock`.
// - `WeakDelegateEntry` is itself `Sendable`: its weak reference is written once before the
//   entry is shared, and its removal flag is atomic.
// - Snapshots handed out of the lock are immutable arrays (value copies).
// - The delegates reach the closures of `invoke`, `map` and the rest on whichever thread calls
//   them, possibly on several threads at once; that is sound because `Delegate: Sendable`.
//   Closures are not escaping and run before the call returns, so they need not be `Sendable`.
extension MulticastDelegate: @unchecked Sendable where Delegate: Sendable {}
