import Synchronization

/// The families that family listeners (`listen(to: (any P).self)`) have asked for, and which of them each
/// dispatched type belongs to.
///
/// Whether an event type is a `P` is decided once per type, on its first dispatch while family
/// listeners exist, by testing that event (`event is P`: the conformance of its type, or its
/// class), and cached as the list keys of the matching families. The cache holds keys only,
/// never records: the records come from the registry's own snapshots of those lists, so a
/// family listener that comes or goes is seen by the next dispatch as for any listener, and a
/// cancelled one is never kept alive here. A new family type empties the cache (its version
/// changes), since every type may belong to it.
///
/// The index also sets and clears the center's family flag, under its lock: a registration sets
/// it after putting its record in, and the slow path clears it once the registry counts no
/// family list. Both under one lock, a clear that reads a count taken before a registration's
/// insert is ordered before that registration's set, so the flag is never left clear while a
/// family listener exists.
final class FamilyIndex: @unchecked Sendable {
    // Why @unchecked is safe: `kinds` and the table behind `matches` are only touched while
    // holding `lock`, and `version` is only written while holding it; a kind is immutable.
    private let lock = SpinLock()
    private var kinds: [FamilyKind] = []
    /// Changes with every new family kind; 0 while there is none. Read without the lock by
    /// dispatches that check a type's cached membership (``ReadStripes/Entry``).
    let version = Atomic<UInt64>(0)
    /// Per dispatched type (by identity, keyed as a typed event key): the keys of its families.
    /// Behind a pointer, as the registry's table, to spare exclusivity checks on each lookup.
    private let matches: UnsafeMutablePointer<ListTable<[EventKey]>> = {
        let storage = UnsafeMutablePointer<ListTable<[EventKey]>>.allocate(capacity: 1)
        storage.initialize(to: ListTable())
        return storage
    }()

    deinit {
        matches.deinitialize(count: 1)
        matches.deallocate()
    }

    /// Files `kind` unless a kind with its key is filed already; a new kind drops every cached
    /// match.
    func add(_ kind: FamilyKind) {
        lock.withLock {
            guard !kinds.contains(where: { $0.key == kind.key }) else { return }
            kinds.append(kind)
            version.wrappingAdd(1, ordering: .relaxed)
            matches.pointee = ListTable()
        }
    }

    /// The list keys of the families that `event`'s type belongs to, in the order the families
    /// were first listened to: cached per type after the first call. Also returns the version
    /// of the family kinds the answer holds for.
    func keys<E: Event>(for event: E) -> (keys: [EventKey], version: UInt64) {
        // The dynamic type: for an instance of a class, its own class decides, as `is` does.
        let typeKey = EventKey.type(ObjectIdentifier(type(of: event)))
        lock.lock()
        let version = self.version.load(ordering: .relaxed)
        if let cached = matches.pointee[typeKey] {
            lock.unlock()
            return (cached, version)
        }
        let kinds = self.kinds
        lock.unlock()
        // Outside the lock: a dynamic cast per family, once per type.
        let found = kinds.filter { $0.admits(event) }.map(\.key)
        lock.withLock {
            // A family added meanwhile is missing from `found`: leave the type for the next call.
            if self.version.load(ordering: .relaxed) == version { matches.pointee[typeKey] = found }
        }
        return (found, version)
    }

    /// Sets `center`'s family flag: a family listener is in the registry.
    func markPresent(in center: EventCenter) {
        lock.withLock { _ = center.flags.bitwiseOr(SlowPathFlags.families, ordering: .relaxed) }
    }

    /// Clears `center`'s family flag if the registry counts no family list.
    func clearIfGone(in center: EventCenter) {
        lock.withLock {
            guard center.registry.familyListCount.load(ordering: .relaxed) <= 0 else { return }
            _ = center.flags.bitwiseAnd(~SlowPathFlags.families, ordering: .relaxed)
        }
    }
}

/// A family type `P` as the index knows it: the key of its listeners' list, and the test of
/// whether an event is a `P`.
class FamilyKind: @unchecked Sendable {
    // Why @unchecked is safe: its one stored property is a `let` of a Sendable type; the class
    // is non-final only so that `FamilyKindOf` can add the test for its `P`.
    let key: EventKey

    init(key: EventKey) {
        self.key = key
    }

    func admits<E: Event>(_ event: E) -> Bool {
        preconditionFailure("every kind is a FamilyKindOf")
    }

    /// Whether a kept event, whatever its type, is one of this family's.
    func admits(_ event: any Event) -> Bool {
        preconditionFailure("every kind is a FamilyKindOf")
    }

    /// `Family<P>`: how diagnostics name the listeners of this family.
    var familyType: Any.Type { preconditionFailure("every kind is a FamilyKindOf") }
}

/// The family of `P`: a protocol (as `any CartEvent`) or a class.
final class FamilyKindOf<P>: FamilyKind, @unchecked Sendable {
    init() {
        super.init(key: Family<P>.key)
    }

    override func admits<E: Event>(_ event: E) -> Bool {
        event is P
    }

    override func admits(_ event: any Event) -> Bool {
        event is P
    }

    override var familyType: Any.Type { Family<P>.self }
}
