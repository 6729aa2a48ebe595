public import Events
public import Testing

/// Checks that `owner` has no live listener left in `center`; records a test issue listing
/// those it has otherwise (event, context and call site of each).
///
/// ```swift
/// var model: FeedModel? = FeedModel(center: center)
/// model?.close()                                   // should remove its listeners
/// expectNoListeners(ownedBy: model!, in: center)
/// ```
///
/// Owner-bound listeners end when their owner deinitializes, so this check is for an owner
/// that is still alive and should have let go: after a `close()`, a `stop()`, a screen that
/// disappeared.
///
/// - Returns: Whether the owner had no listener.
@discardableResult
public func expectNoListeners(
    ownedBy owner: AnyObject, in center: EventCenter, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let remaining = center.registrations(ownedBy: owner)
    guard remaining.count > 0 else { return true }
    let noun = remaining.count == 1 ? "listener" : "listeners"
    Issue.record(
        Comment(
            rawValue: """
                \(type(of: owner)) still has \(remaining.count) \(noun) in the center:
                \(indented(remaining.table))
                """),
        sourceLocation: sourceLocation)
    return false
}

/// Runs `body` and checks that every listener it added to `center` is gone when it returns, so
/// that the center's listeners are back to those it had; records a test issue listing the
/// listeners added and not removed otherwise.
///
/// ```swift
/// await expectNoListenerLeaks(in: center) {
///     let screen = FeedScreen(center: center)
///     await screen.appear()
///     await screen.disappear()   // must remove what appear() registered
/// }
/// ```
///
/// Rules:
/// - Compares the center's live listeners (`EventCenter.registrations()`) before and after
///   `body`; listeners whose owner deinitialized are not live. A listener counts as added
///   when no listener before had its event, owner type, key, priority, context, sender type
///   and call site (each one there before matches one after).
/// - The report names each listener added: its event, owner type, context and call site.
/// - Listeners registered by other code running at the same time in the same center count
///   too: give the test a center of its own.
/// - Before it compares, it waits for `center.idle()`: deliveries that `body` queued (whose
///   handlers may cancel or remove listeners) have run by then. There is deliberately no
///   synchronous form: in an async test it would be chosen for a body without `await`, and
///   would compare before those deliveries ran. A synchronous body is fine here.
///
/// - Returns: What `body` returns.
public func expectNoListenerLeaks<Result>(
    in center: EventCenter,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Result
) async rethrows -> Result {
    let before = center.registrations()
    let result = try await body()
    await center.idle()
    reportLeaks(in: center, before: before, sourceLocation: sourceLocation)
    return result
}

/// Records an issue when `center` has listeners that `before` did not, listing them.
private func reportLeaks(in center: EventCenter, before: EventRegistrations, sourceLocation: SourceLocation) {
    let after = center.registrations()
    // A listener has no identity in the report: match the rows on what does not change while
    // it lives (its counts do), and take each row of `before` once.
    var earlier: [ListenerIdentity: Int] = [:]
    for listener in before.listeners { earlier[ListenerIdentity(listener), default: 0] += 1 }
    var added: [EventRegistrations.Listener] = []
    for listener in after.listeners {
        let identity = ListenerIdentity(listener)
        if let count = earlier[identity], count > 0 {
            earlier[identity] = count - 1
        } else {
            added.append(listener)
        }
    }
    guard !added.isEmpty else { return }
    let noun = added.count == 1 ? "1 listener was" : "\(added.count) listeners were"
    let list = added.map { "  \($0)" }.joined(separator: "\n")
    Issue.record(
        Comment(
            rawValue: """
                \(noun) added and not removed (before: \(listeners(before.count)), after: \(after.count)):
                \(list)
                """),
        sourceLocation: sourceLocation)
}

/// The fields of a listener's report row that stay the same for its whole life.
private struct ListenerIdentity: Hashable {
    let event: String
    let ownerType: String?
    let key: String?
    let priority: String
    let context: String
    let senderType: String?
    let isOnce: Bool
    let fileID: String
    let line: Int

    init(_ listener: EventRegistrations.Listener) {
        event = listener.event
        ownerType = listener.ownerType
        key = listener.key
        priority = listener.priority
        context = listener.context
        senderType = listener.senderType
        isOnce = listener.isOnce
        fileID = listener.fileID
        line = listener.line
    }
}

private func listeners(_ count: Int) -> String {
    count == 1 ? "1 listener" : "\(count) listeners"
}

private func indented(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { "  \($0)" }.joined(separator: "\n")
}
