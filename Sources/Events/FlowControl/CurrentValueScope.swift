/// Which current value a dispatch keeps: one for its event type (or name), or one for each
/// sender.
///
/// ```swift
/// struct CartChanged: Event { let items: Int }
///
/// let shop = EventCenter()
/// shop.dispatch(CartChanged(items: 3), keepingCurrent: .perType)
/// let badge = shop.listen(to: CartChanged.self, receivingCurrent: true) { cart in
///     print("badge:", cart.items)   // prints "badge: 3" at once, then on every change
/// }
/// ```
///
/// A current value is the event a center keeps after delivering it, so that listeners that
/// register later can start from it (`receivingCurrent: true`), and code can read it
/// (``EventCenter/currentValue(of:)``). Each dispatch that keeps one replaces the previous
/// one of the same scope. The center holds the event (a value) strongly and its sender weakly:
/// a value kept per sender goes away with its sender.
public struct CurrentValueScope: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case perType
        case perSender
    }

    let kind: Kind

    /// One current value for the event type or name, whatever the sender.
    public static let perType = CurrentValueScope(kind: .perType)
    /// One current value for each sender of the event type or name: several carts keep one
    /// each. A dispatch without a sender keeps the per-type value instead.
    public static let perSender = CurrentValueScope(kind: .perSender)

    public var description: String {
        switch kind {
        case .perType: "per type"
        case .perSender: "per sender"
        }
    }
}
