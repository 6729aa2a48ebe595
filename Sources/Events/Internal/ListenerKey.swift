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

    static func == (lhs: ListenerKey, rhs: ListenerKey) -> Bool {
        lhs.hash == rhs.hash && lhs.base == rhs.base
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
