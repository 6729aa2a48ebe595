/// What kind of listener a record is, in one byte read by every delivery.
@usableFromInline
struct ListenerTraits: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8

    @inlinable
    init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    // Computed rather than stored `static let`s: a stored one is a lazily initialized global,
    // reached through an accessor and `swift_once` on every dispatch.

    /// Ends after its first event.
    @inlinable static var once: ListenerTraits { ListenerTraits(rawValue: 1 << 0) }
    /// The handler runs in another context, reached through the record's route.
    @inlinable static var routed: ListenerTraits { ListenerTraits(rawValue: 1 << 1) }
    /// Bound to an owner (held weakly): never called after the owner is gone.
    @inlinable static var ownerBound: ListenerTraits { ListenerTraits(rawValue: 1 << 2) }
    /// Registered with `from: sender`: hears only events dispatched from that object.
    @inlinable static var filtersSender: ListenerTraits { ListenerTraits(rawValue: 1 << 3) }
    /// An `EventOnlyHandlerRecord`, whose handler takes the event alone: dispatch calls it directly.
    @inlinable static var eventOnly: ListenerTraits { ListenerTraits(rawValue: 1 << 4) }
    /// Overrides `didCancel()`: only such records are called there when they are cancelled.
    @inlinable static var cancelHook: ListenerTraits { ListenerTraits(rawValue: 1 << 5) }
    /// A `StoppingHandlerRecord`, whose handler says whether propagation goes on.
    @inlinable static var stops: ListenerTraits { ListenerTraits(rawValue: 1 << 6) }
}
