/// The listeners of one event key, in delivery order, with a version that changes on every
/// mutation (so an optimistic check-then-insert can tell whether it raced with another change).
struct ListenerList {
    var records: ContiguousArray<ListenerRecord> = []
    var version: UInt64 = 0
    /// The read stripes that cache a copy of this list (bit i: stripe i), to invalidate on change.
    var cachedStripes: UInt32 = 0

    /// Inserts keeping the order: higher priority first, ties in registration order (by
    /// ascending sequence for named listeners; typed listeners all have sequence 0, so a new one
    /// goes after every listener of its priority).
    mutating func insert(_ record: consuming ListenerRecord) {
        let priority = record.priority
        let sequence = record.sequence
        func runsBefore(_ other: ListenerRecord) -> Bool {
            other.priority > priority || (other.priority == priority && other.sequence <= sequence)
        }
        // Usually the new listener runs last: append without searching.
        guard let last = records.last, !runsBefore(last) else {
            records.append(record)
            return
        }
        // Binary search for the first element that must run after `record`.
        var low = 0
        var high = records.count
        while low < high {
            let mid = (low + high) / 2
            if runsBefore(records[mid]) { low = mid + 1 } else { high = mid }
        }
        records.insert(record, at: low)
    }
}

/// The center's table of listeners: one list per event key, behind one lock.
///
/// Rules of this type, which the rest of the package relies on:
/// - The lock guards `lists` and the sweep counters only, and is held for table operations
///   only: no handler, no user `==`, no weak-reference load (whose temporary strong reference
///   could be the last one and run a deinitializer) ever runs under it.
/// - Readers take a snapshot (the list's array, copy-on-write) and work on it after unlocking;
///   mutations replace the array, so a snapshot never changes under its reader. Dispatch reads
///   through `ReadStripes`, per-thread copies that every mutation of a key drops under the lock,
///   so that concurrent dispatches touch no shared cache line.
/// - Whether a record belongs in a list is decided by its atomic state alone: `purge` drops
///   every record that is no longer active, and anyone who retires a record purges its list.
@usableFromInline
final class Registry: @unchecked Sendable {
    // Why @unchecked is safe: every mutable stored property is read and written only while
    // `lock` is held.
    //
    // A `SpinLock` rather than a pthread `Lock`: it is held for a few table operations only and
    // rarely contended (dispatch reads through the stripes), and an uncontended acquire and
    // release is one atomic exchange and one plain store, where the pthread pair cost two
    // library calls and two locked instructions, measured as a twentieth of a listen + cancel.
    // Like `Lock`, it is built on primitives the thread sanitizer understands.
    private let lock = SpinLock()
    /// The table lives behind a pointer: a stored `var` of a class is checked for exclusive
    /// access at run time on every read (a thread-local access set), which the benchmark showed
    /// on every dispatch. The lock already guarantees exclusivity.
    private let listsStorage: UnsafeMutablePointer<ListTable> = {
        let storage = UnsafeMutablePointer<ListTable>.allocate(capacity: 1)
        storage.initialize(to: ListTable())
        return storage
    }()
    private var lists: ListTable {
        _read { yield listsStorage.pointee }
        _modify { yield &listsStorage.pointee }
    }
    /// Keyed owner-bound records by slot, so duplicate detection never scans a whole list.
    private var duplicateIndex: [DuplicateSlot: [ListenerRecord]] = [:]
    /// Registrations since the last full sweep, and how many were alive after it: together they
    /// amortize the sweep that reclaims listeners whose owner or sender died unnoticed.
    /// Source of list versions; registry-wide so that a list removed and created again never
    /// reuses a version a reader may still hold.
    private var mutations: UInt64 = 0
    private var insertionsSinceSweep = 0
    private var liveAtLastSweep = 0
    /// Per-thread copies of the lists, read by dispatch; see `ReadStripes`.
    private let stripes = ReadStripes()

    deinit {
        listsStorage.deinitialize(count: 1)
        listsStorage.deallocate()
    }

    /// The listeners of `key` in delivery order, or nil when there are none.
    @usableFromInline
    func snapshot(for key: EventKey) -> ContiguousArray<ListenerRecord>? {
        let stripe = stripes.currentIndex
        if let cached = stripes.cached(key, in: stripe) { return cached }
        return refill(key, stripe: stripe)
    }

    /// Copies the list of `key` into the caller's stripe (into an array of its own, so that
    /// threads on different stripes never retain the same array) and returns it.
    private func refill(_ key: EventKey, stripe: Int) -> ContiguousArray<ListenerRecord>? {
        let (copy, replaced): (ContiguousArray<ListenerRecord>?, ListenerList?) = lock.withLock {
            guard let records = lists[key]?.records, !records.isEmpty else { return (nil, nil) }
            var copy = ContiguousArray<ListenerRecord>()
            // At least 128 bytes, so that two stripes' small arrays never share a cache line.
            copy.reserveCapacity(max(records.count, 12))
            copy.append(contentsOf: records)
            lists[key]!.cachedStripes |= 1 << UInt32(stripe)
            return (copy, stripes.store(copy, for: key, in: stripe))
        }
        withExtendedLifetime(replaced) {}
        return copy
    }

    /// Drops the stripes' copies of `key`'s list, which the caller is changing; call with the
    /// lock held. Returns them, to release after unlocking.
    private func invalidateCopies(of key: EventKey) -> [ListenerList] {
        let cached: UInt32 = listsStorage.pointee.modify(key) { list in
            defer { list?.cachedStripes = 0 }
            return list?.cachedStripes ?? 0
        }
        return stripes.invalidate(key, in: cached)
    }

    /// The keyed records that may duplicate a registration in `slot`, and the version of their
    /// list, for an optimistic `insert(_:ifVersion:)`.
    func duplicateCandidates(in slot: DuplicateSlot) -> (records: [ListenerRecord], version: UInt64) {
        lock.withLock {
            (duplicateIndex[slot] ?? [], lists[slot.eventKey]?.version ?? 0)
        }
    }

    /// Every list, for operations that span event types (removal by owner, sweeps, reports).
    func snapshotAll() -> [(key: EventKey, records: ContiguousArray<ListenerRecord>)] {
        lock.withLock { lists.all.map { (key: $0.key, records: $0.list.records) } }
    }

    /// Inserts `record` into its list. With `expectedVersion`, inserts only if the list has not
    /// changed since that version was read, and returns false otherwise.
    /// Also returns whether a full sweep is due (the caller runs it outside the lock).
    func insert(_ record: ListenerRecord, ifVersion expectedVersion: UInt64? = nil) -> (
        inserted: Bool, sweepDue: Bool
    ) {
        // Only a listener with an owner or a sender can end without anyone telling the registry,
        // so only those registrations count towards the sweep that reclaims such listeners.
        let mortal = !record.traits.isDisjoint(with: [.ownerBound, .filtersSender])
        guard let details = record.details else {
            // The usual listener: typed and unkeyed, so there is no duplicate index to update,
            // and its key is a known case (no copies of the enum's payload).
            lock.lock()
            let (inserted, released) = insertLocked(record, in: .type(record.typedEventID), ifVersion: expectedVersion)
            let sweepDue = inserted && mortal && countMortalInsertion()
            lock.unlock()
            withExtendedLifetime(released) {}
            return (inserted, sweepDue)
        }
        // Worked out before locking: none of it needs the lock.
        let key = details.eventKey ?? .type(record.typedEventID)
        let slot = record.duplicateSlot
        lock.lock()
        let (inserted, released) = insertLocked(record, in: key, ifVersion: expectedVersion)
        if inserted, let slot { duplicateIndex[slot, default: []].append(record) }
        let sweepDue = inserted && mortal && countMortalInsertion()
        lock.unlock()
        withExtendedLifetime(released) {}
        return (inserted, sweepDue)
    }

    /// Counts the registration of a listener that can end unnoticed, and returns whether a full
    /// sweep is due. Call with the lock held.
    private func countMortalInsertion() -> Bool {
        insertionsSinceSweep += 1
        return insertionsSinceSweep > max(64, liveAtLastSweep)
    }

    /// Puts `record` into the list of `key` (unless `expectedVersion` is given and differs), and
    /// drops the stripes' copies of that list. Call with the lock held; release `released` after
    /// unlocking (nil when no stripe had a copy, the usual case, so there is no array to release).
    @inline(__always)
    private func insertLocked(_ record: ListenerRecord, in key: EventKey, ifVersion expectedVersion: UInt64?) -> (
        inserted: Bool, released: [ListenerList]?
    ) {
        // Captured unretained: a captured reference is retained and released around the call,
        // and the caller's argument keeps the record alive throughout.
        let borrowed = Unmanaged.passUnretained(record)
        let version = mutations &+ 1
        // One table lookup for the whole change. The closure captures plain values only, so
        // that calling it retains nothing.
        let cached: UInt32? = listsStorage.pointee.modify(key) { list in
            if let expectedVersion, (list?.version ?? 0) != expectedVersion { return nil }
            if list == nil { list = ListenerList() }
            list!.insert(borrowed.takeUnretainedValue())
            list!.version = version
            defer { list!.cachedStripes = 0 }
            return list!.cachedStripes
        }
        guard let cached else { return (false, nil) }
        mutations = version
        return (true, cached == 0 ? nil : stripes.invalidate(key, in: cached))
    }

    /// Takes one retired record out of its list, in place: the path of `cancel()`. Finding it
    /// compares references only, and removal moves pointers without retaining or releasing the
    /// other records (unless a dispatch holds a snapshot, which then keeps the old array).
    func remove(_ record: ListenerRecord) {
        guard let details = record.details else {
            // Typed and unkeyed, as in `insert`: only its list changes.
            lock.lock()
            let (removed, released) = removeLocked(record, from: .type(record.typedEventID))
            lock.unlock()
            // Released only now, outside the lock: it may hold the last reference to a
            // handler's captures, whose deinitializers are user code.
            withExtendedLifetime((removed, released)) {}
            return
        }
        let key = details.eventKey ?? .type(record.typedEventID)
        let slot = record.duplicateSlot
        lock.lock()
        let (removed, released) = removeLocked(record, from: key)
        if removed != nil, let slot { removeFromDuplicateIndex(record, in: slot) }
        lock.unlock()
        withExtendedLifetime((removed, released)) {}
    }

    /// Takes `record` out of the list of `key` and drops the stripes' copies of that list. Call
    /// with the lock held; release both results after unlocking.
    @inline(__always)
    private func removeLocked(_ record: ListenerRecord, from key: EventKey) -> (
        removed: ListenerRecord?, released: [ListenerList]?
    ) {
        let id = ObjectIdentifier(record)
        let version = mutations &+ 1
        // One table lookup for the whole change; the closure captures plain values only.
        let (removed, cached): (ListenerRecord?, UInt32) = listsStorage.pointee.modify(key) { list in
            guard let index = list?.records.lastIndex(where: { ObjectIdentifier($0) == id }) else { return (nil, 0) }
            // Usually the newest listener is the one to go: then nothing moves.
            let removed =
                index == list!.records.count - 1 ? list!.records.removeLast() : list!.records.remove(at: index)
            let cached = list!.cachedStripes
            if list!.records.isEmpty {
                list = nil
            } else {
                list!.version = version
                list!.cachedStripes = 0
            }
            return (removed, cached)
        }
        guard removed != nil else { return (nil, nil) }
        mutations = version
        return (removed, cached == 0 ? nil : stripes.invalidate(key, in: cached))
    }

    /// Drops a keyed owner-bound record from the index slot it was filed in; call with the lock held.
    private func removeFromDuplicateIndex(_ record: ListenerRecord, in slot: DuplicateSlot) {
        duplicateIndex[slot]?.removeAll { $0 === record }
        if duplicateIndex[slot]?.isEmpty == true { duplicateIndex[slot] = nil }
    }

    /// Drops every record of `key` that is no longer active.
    func purge(_ key: EventKey) {
        let removed = lock.withLock { purgeLocked(key) }
        // Released only now, outside the lock: a dropped record may hold the last reference to a
        // handler's captures, whose deinitializers are user code.
        withExtendedLifetime(removed) {}
    }

    /// Drops every inactive record of each of `keys`.
    func purge(_ keys: some Sequence<EventKey>) {
        let removed = lock.withLock { keys.map { purgeLocked($0) } }
        withExtendedLifetime(removed) {}
    }

    /// Replaces the list of `key` by its active records and returns the previous array and the
    /// dropped stripe copies, which the caller must release after unlocking.
    private func purgeLocked(_ key: EventKey) -> (ContiguousArray<ListenerRecord>, [ListenerList])? {
        guard let records = lists[key]?.records else { return nil }
        let kept = ContiguousArray(records.lazy.filter { $0.isActive })
        guard kept.count != records.count else { return nil }
        let released = invalidateCopies(of: key)
        for record in records where !record.isActive {
            if let slot = record.duplicateSlot { removeFromDuplicateIndex(record, in: slot) }
        }
        if kept.isEmpty {
            lists[key] = nil
        } else {
            mutations &+= 1
            lists[key] = ListenerList(records: kept, version: mutations)
        }
        return (records, released)
    }

    /// Empties the registry (its center is deinitializing), releasing the records after unlocking.
    func removeAll() {
        let removed = lock.withLock {
            let released = lists.all.flatMap { invalidateCopies(of: $0.key) }
            let lists = listsStorage.move()
            listsStorage.initialize(to: ListTable())
            let index = duplicateIndex
            duplicateIndex = [:]
            return (lists, index, released)
        }
        withExtendedLifetime(removed) {}
    }

    /// Retires every listener whose owner or sender is gone and reclaims it. Runs after enough
    /// registrations that its cost, linear in all listeners, stays constant per registration.
    func sweep() {
        let all = snapshotAll()
        var changed: [EventKey] = []
        var live = 0
        for (key, records) in all {
            var listChanged = false
            for record in records {
                if record.checkLiveness() { live += 1 } else { listChanged = true }
            }
            if listChanged { changed.append(key) }
        }
        let removed = lock.withLock {
            insertionsSinceSweep = 0
            liveAtLastSweep = live
            return changed.map { purgeLocked($0) }
        }
        withExtendedLifetime(removed) {}
    }
}
