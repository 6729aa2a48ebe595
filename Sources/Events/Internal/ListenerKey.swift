/// The `key:` of an owner-bound registration, type-erased. A class, so that records without a
/// key pay one nil reference for it rather than an inline existential.
final class ListenerKey: Hashable, @unchecked Sendable {
    // Why @unchecked is safe: `base` is only ever built from a `Hashable & Sendable` value (see
    // the initializer), so the erased value inside is Sendable; `AnyHashable` itself just cannot
    // say so.
    let base: AnyHashable
    /// Computed once, outside any lock: hashing a user's key runs user code.
    let hash: Int

    init(_ value: some Hashable & Sendable) {
        base = AnyHashable(value)
        hash = base.hashValue
    }

    /// The key of a registration whose `key:` parameter defaults to `Never?.none`: nil when the
    /// caller left it out. The type tells them apart, not the value, so that a key of another
    /// optional type whose value is nil is still a key.
    static func given<Key: Hashable & Sendable>(_ value: Key) -> ListenerKey? {
        Key.self == Never?.self ? nil : ListenerKey(value)
    }

    static func == (lhs: ListenerKey, rhs: ListenerKey) -> Bool {
        lhs.hash == rhs.hash && lhs.base == rhs.base
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
