/// Why a listener no longer receives events. Stored in one atomic byte per listener; every
/// transition is away from `.active` and happens at most once.
@usableFromInline
enum ListenerState: UInt8, Sendable {
    case active = 0
    /// `cancel()` or one of the `remove` calls.
    case cancelled
    /// A `once` listener that has received its event. For a listener in another context this
    /// means its event is on its way: the record stays listed, so that `remove` can still find
    /// it and stop that delivery, until the context takes it (``delivered``) or it is cancelled.
    case consumed
    /// The owner of an owner-bound listener deinitialized.
    case ownerGone
    /// The sender named in `from:` deinitialized, so the filter can never match again.
    case senderGone
    /// A `once` listener in another context whose event its context has taken: run, or skipped
    /// because the owner was gone.
    case delivered
}
