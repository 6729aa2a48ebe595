/// What an interceptor says after it handled an event: whether the event goes on to the
/// listeners after it.
///
/// Return it from the handler of an interceptor
/// (``EventCenter/intercept(_:from:priority:once:receivingCurrent:file:line:_:)-(E.Type,_,_,_,_,_,_,_)``) to stop the listeners of lower
/// priority (and those of equal priority registered later) from receiving that dispatch:
///
/// ```swift
/// struct Checkout: Event { let total: Int }
///
/// let checkoutCenter = EventCenter()
/// let validator = checkoutCenter.intercept(Checkout.self, priority: .high) { checkout in
///     checkout.total > 0 ? .continue : .stop
/// }
/// let payment = checkoutCenter.listen(to: Checkout.self) { checkout in
///     print("charging", checkout.total)   // not reached for an empty checkout
/// }
/// let result = checkoutCenter.dispatchWithResult(Checkout(total: 0))
/// print(result.isStopped)                 // true
/// ```
///
/// ## Rules
/// - Only interceptors stop propagation, and they run on the dispatching thread: their handler
///   returns before the next listener is reached. `intercept` has no `on:` parameter for that
///   reason.
/// - A stop ends that one dispatch. The listeners after the stopping one are not called and
///   not handed the event, whatever their context: a main-actor, actor, queue or stream
///   listener of lower priority does not receive it. Listeners before it (higher priority, or
///   earlier at equal priority) did, including those in other contexts, whose deliveries are
///   already queued and still run.
/// - Listeners of other dispatches, including dispatches nested inside the handlers, are not
///   affected.
/// - A handler that throws does not stop propagation: its error goes to
///   ``EventCenter/errorHandler`` and the event goes on.
/// - ``EventCenter/dispatchWithResult(_:from:file:line:)`` and the ``DispatchReport`` of
///   ``EventCenter/dispatchAndWait(_:from:isolation:)`` say that a dispatch was stopped and
///   by which listener; `dispatch` counts the listeners that received the event before it.
public enum Propagation: Sendable, Hashable {
    /// The event goes on to the next listener.
    case `continue`
    /// No listener after this one receives this dispatch.
    case stop
}
