/// A listener of the event type `E`.
///
/// Subclasses hold the handler in the shape the listener was registered with, so that a call
/// goes straight to the user's closure: `EventOnlyHandlerRecord` (the event alone),
/// `OwnerHandlerRecord` (owner-bound), `HandlerRecord` (any other posting-thread shape), and
/// `RoutedRecord` for listeners whose handler runs in another context (main actor, an actor, a
/// queue), reached through their route. Keeping each shape in its own class keeps records small.
@usableFromInline
class TypedListenerRecord<E: Sendable>: ListenerRecord, @unchecked Sendable {
    override var eventType: Any.Type { details?.family?.familyType ?? E.self }
    override var typedEventID: ObjectIdentifier { ObjectIdentifier(E.self) }

    /// Runs the handler of a posting-thread listener. A method rather than a closure call, so
    /// that the dispatch loop calls it on a borrowed record without retaining a closure context.
    @usableFromInline
    func invoke(_ owner: AnyObject?, _ event: E, _ sender: Sender?) throws {
        preconditionFailure("a routed listener is reached through its route")
    }

    /// The route of a listener in another context; only routed records have one.
    @usableFromInline
    var route: any AsyncRoute<E> { preconditionFailure("a posting-thread listener has no route") }
}
