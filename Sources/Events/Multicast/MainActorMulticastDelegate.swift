/// Many weakly held delegates behind one delegate slot, for delegates that live on the main
/// actor.
///
/// Use it for UI delegates (table views, text fields, view controllers) and any delegate
/// protocol marked `@MainActor` or otherwise not `Sendable`. It has the same API and the same
/// rules as ``MulticastDelegate`` (weak holding, one entry per delegate, order of addition,
/// snapshot-based reentrancy), but it is isolated to the main actor instead of using a lock, so
/// its delegates need not be `Sendable` and its closures are `@MainActor`: they may call
/// main-actor methods of the delegates directly, without warnings.
///
/// ```swift
/// @MainActor protocol TextFieldDelegate: AnyObject {
///     func textFieldDidChange(_ field: TextField)
///     func textFieldShouldReturn(_ field: TextField) -> Bool
/// }
///
/// @MainActor final class TextFieldFanOut: TextFieldDelegate {
///     let listeners = MainActorMulticastDelegate<any TextFieldDelegate>()
///
///     func textFieldDidChange(_ field: TextField) {
///         listeners.invoke { $0.textFieldDidChange(field) }
///     }
///
///     // Return only if every listener agrees.
///     func textFieldShouldReturn(_ field: TextField) -> Bool {
///         listeners.reduce(true) { agreed, listener in agreed && listener.textFieldShouldReturn(field) }
///     }
/// }
/// ```
///
/// The type itself is `Sendable` (as every main-actor class is), so it can be stored anywhere,
/// but its methods are only callable on the main actor.
@MainActor
public final class MainActorMulticastDelegate<Delegate> {
    // Main-actor isolation replaces the lock of `MulticastDelegate`: every access to `list`
    // happens on the main actor, and the reentrancy rules come from walking snapshots exactly
    // as there.
    private var list = WeakDelegateList()

    /// Creates an empty multicast delegate.
    public init() {}

    // MARK: Membership

    /// Adds `delegate` at the end of the invocation order, unless it is already registered.
    ///
    /// The delegate is held weakly. Adding during an invocation takes effect from the next
    /// invocation.
    ///
    /// - Precondition: `delegate` is a class instance (the delegate protocol is class-bound).
    /// - Returns: `true` if the delegate was added, `false` if it was already registered.
    /// - Complexity: O(*n*) in the number of entries.
    @discardableResult
    public func add(_ delegate: Delegate) -> Bool {
        let object = delegateObject(delegate, in: "MainActorMulticastDelegate")
        let (inserted, shouldPrune) = list.insert(object)
        if shouldPrune { pruneDeadEntries() }
        return inserted
    }

    /// Removes `delegate`, so that it is not called again, even later in an invocation that is
    /// in progress.
    ///
    /// - Returns: `true` if the delegate was registered.
    /// - Complexity: O(*n*) in the number of entries.
    @discardableResult
    public func remove(_ delegate: Delegate) -> Bool {
        list.remove(delegate as AnyObject)
    }

    /// Removes every delegate. Invocations in progress make no further calls.
    public func removeAll() {
        list.removeAll()
    }

    /// Whether `delegate` is registered.
    ///
    /// - Complexity: O(*n*) in the number of entries.
    public func contains(_ delegate: Delegate) -> Bool {
        list.contains(delegate as AnyObject)
    }

    /// The number of registered delegates that are still alive. Also prunes dead entries.
    ///
    /// - Complexity: O(*n*) in the number of entries.
    public var count: Int {
        var dead: [WeakDelegateEntry] = []
        let live = countLiveEntries(in: list.entries, dead: &dead)
        list.removeDead(dead)
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

    /// Calls `body` with every live delegate, in order of addition, on the main actor.
    ///
    /// ```swift
    /// listeners.invoke { $0.textFieldDidChange(field) }
    /// ```
    ///
    /// Delegates added while this runs are not called; delegates removed or deinitialized before
    /// their turn are skipped. If `body` throws, the remaining delegates are not called and the
    /// error is rethrown; to call them all and collect the errors, use
    /// ``invokeCollectingFailures(_:)``.
    public func invoke(_ body: @MainActor (Delegate) throws -> Void) rethrows {
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
    /// let failures = listeners.invokeCollectingFailures { try $0.save() }
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
    public func invokeCollectingFailures(_ body: @MainActor (Delegate) throws -> Void) -> [DelegateFailure<Delegate>] {
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
    /// Follows the same rules as ``invoke(_:)``.
    public func map<Answer>(_ transform: @MainActor (Delegate) throws -> Answer) rethrows -> [Answer] {
        var answers: [Answer] = []
        try forEach { delegate in
            answers.append(try transform(delegate))
            return true
        }
        return answers
    }

    /// Asks every live delegate and returns the non-nil answers, in order of addition.
    ///
    /// Every delegate is asked, even after the first answer. Follows the same rules as
    /// ``invoke(_:)``.
    public func compactMap<Answer>(_ transform: @MainActor (Delegate) throws -> Answer?) rethrows -> [Answer] {
        var answers: [Answer] = []
        try forEach { delegate in
            if let answer = try transform(delegate) { answers.append(answer) }
            return true
        }
        return answers
    }

    /// Asks the live delegates in order of addition and returns the first non-nil answer.
    ///
    /// ```swift
    /// let height = listeners.firstNonNil { $0.heightOfRow(row) } ?? 44
    /// ```
    ///
    /// Delegates after the one that answered are not asked. Returns nil if no delegate answers.
    /// Follows the same rules as ``invoke(_:)``.
    public func firstNonNil<Answer>(_ transform: @MainActor (Delegate) throws -> Answer?) rethrows -> Answer? {
        var result: Answer?
        try forEach { delegate in
            result = try transform(delegate)
            return result == nil
        }
        return result
    }

    /// Combines an answer from every live delegate, folding them in order of addition.
    ///
    /// `nextPartialResult` is called once per delegate, first with `initialResult`. Follows the
    /// same rules as ``invoke(_:)``.
    public func reduce<Result>(
        _ initialResult: Result,
        _ nextPartialResult: @MainActor (Result, Delegate) throws -> Result
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
    var _storedEntryCount: Int { list.entries.count }

    private func forEach(_ body: (Delegate) throws -> Bool) rethrows {
        // A copy of the array: delegates may mutate `list` while we walk.
        let entries = list.entries
        var dead: [WeakDelegateEntry] = []
        defer { list.removeDead(dead) }
        try forEachLiveDelegate(in: entries, dead: &dead, body)
    }

    private func pruneDeadEntries() {
        var dead: [WeakDelegateEntry] = []
        _ = countLiveEntries(in: list.entries, dead: &dead)
        if dead.isEmpty {
            list.notePruned()
        } else {
            list.removeDead(dead)
        }
    }
}
