import Synchronization

/// The center's table of listeners: one list per event key, behind one lock.
///
/// Rules of this type, which the rest of the package relies on:
/// - The lock guards `lists` and the sweep counters only, and is held for table operations
///   only: no handler, no user `==`, no weak-reference load (whose temporary strong reference
///   could be the last one and run a deinitializer) ever runs under it.
/// - Readers get the records retained, copied out under the lock, and work on them after
///   unlocking; a copy never changes under its reader. Dispatch reads through `ReadStripes`,
///   per-thread copies that every mutation of a key drops under the lock, so that concurrent
///   dispatches touch no shared cache line.
/// - Whether a record belongs in a list is decided by its atomic state alone: `purge` drops
///   every record that is no longer active (but for a `once` listener whose event is still
///   queued, see ``ListenerRecord/awaitsQueuedDelivery``), and anyone who retires a record
///   purges its list.
/// - A record in a list is alive while the lock is held (see `ListenerList`): a record the
///   list does not keep is removed by its subscription, under the lock, before it is released.
@usableFromInline
final class Registry: @unchecked Sendable {
    // Why @unchecked is safe: every mutable stored property is read and written only while
    // `lock` is held.
    //
    // A `SpinLock` rather than a `Lock`: it is held for a few table operations only and rarely
    // contended (dispatch reads through the stripes), so every listen and cancel gains from the
    // cheapest uncontended acquire the platform has (see `SpinLock`). Like `Lock`, it is built
    // on primitives the thread sanitizer understands.
    private let lock = SpinLock()
    /// The table lives behind a pointer: a stored `var` of a class is checked for exclusive
    /// access at run time on every read (a thread-local access set), a cost paid by every
    /// dispatch. The lock already guarantees exclusivity.
    ///
    /// The table holds its lists unmanaged, owning one reference to each (taken when a list is
    /// created, given back when it is dropped): a list is reached on every listen and cancel,
    /// and a managed reference is retained and released around each such use.
    private let listsStorage: UnsafeMutablePointer<ListTable<Unmanaged<ListenerList>>> = {
        let storage = UnsafeMutablePointer<ListTable<Unmanaged<ListenerList>>>.allocate(capacity: 1)
        storage.initialize(to: ListTable())
        return storage
    }()
    private var lists: ListTable<Unmanaged<ListenerList>> {
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
    /// The keys of the lists of family listeners (`listen(to: (any P).self)`), which the center tells
    /// apart from its other lists only to know whether any family listener is left.
    private var familyKeys: Set<ObjectIdentifier> = []
    /// How many family lists exist (a list exists while it holds a record). Written under the
    /// lock; read without it by the family slow path, which clears the center's family flag
    /// once it reads 0 (see `FamilyIndex`).
    let familyListCount = Atomic<Int>(0)
    /// The families dispatched events are matched against, and the cached matches.
    let families = FamilyIndex()

    deinit {
        // The lists are empty by now, so no list reference is lost here: every record keeps its
        // registry, so none can still be listed when the registry goes.
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

    /// The listeners of `key` (as ``snapshot(for:)``), and whether the event type of `key` is
    /// known to belong to no family that family listeners listen to now. A dispatch that finds
    /// it so delivers as a center without family listeners does; one that does not looks the
    /// families up (``EventCenter/familyListeners(of:)``), which notes the answer for the next.
    /// Never true once the last family listener is gone, so that the slow path that follows
    /// clears the center's family flag.
    @usableFromInline
    func snapshotIfFamilyFree(for key: EventKey) -> (records: ContiguousArray<ListenerRecord>?, familyFree: Bool) {
        let version = families.version.load(ordering: .relaxed)
        let stripe = stripes.currentIndex
        let (cached, familyFree) = stripes.cached(key, in: stripe, familyVersion: version)
        let free = familyFree && version != 0 && familyListCount.load(ordering: .relaxed) > 0
        if let cached { return (cached, free) }
        return (refill(key, stripe: stripe), free)
    }

    /// Notes in the caller's stripe that the event type of `key` belongs to no family under
    /// the family version `version`.
    func markFamilyFree(_ key: EventKey, version: UInt64) {
        stripes.markFamilyFree(key, version: version, in: stripes.currentIndex)
    }

    /// Copies the list of `key` into the caller's stripe (into an array of its own, so that
    /// threads on different stripes never retain the same array) and returns it.
    private func refill(_ key: EventKey, stripe: Int) -> ContiguousArray<ListenerRecord>? {
        let (copy, replaced): (ContiguousArray<ListenerRecord>?, ContiguousArray<ListenerRecord>?) = lock.withLock {
            guard let list = lists[key]?.takeUnretainedValue(), !list.isEmpty else { return (nil, nil) }
            var copy = ContiguousArray<ListenerRecord>()
            // At least 128 bytes, so that two stripes' small arrays never share a cache line.
            copy.reserveCapacity(max(list.count, 12))
            for entry in list.entries { copy.append(entry.takeUnretainedValue()) }
            list.cachedStripes |= 1 << UInt32(stripe)
            return (copy, stripes.store(copy, for: key, in: stripe))
        }
        withExtendedLifetime(replaced) {}
        return copy
    }

    /// Drops the stripes' copies of `list`, the list of `key`, which the caller is changing; call
    /// with the lock held. Returns them, to release after unlocking.
    private func dropCopies(of list: ListenerList, key: EventKey) -> [ContiguousArray<ListenerRecord>] {
        stripes.invalidate(key, in: list.takeCachedStripes())
    }

    /// The keyed records that may duplicate a registration in `slot`, and the version of their
    /// list, for an optimistic `insert(_:ifVersion:)`.
    func duplicateCandidates(in slot: DuplicateSlot) -> (records: [ListenerRecord], version: UInt64) {
        lock.withLock {
            (duplicateIndex[slot] ?? [], lists[slot.eventKey]?.takeUnretainedValue().version ?? 0)
        }
    }

    /// Every list, for operations that span event types (removal by owner, sweeps, reports).
    func snapshotAll() -> [(key: EventKey, records: ContiguousArray<ListenerRecord>)] {
        lock.withLock { lists.all.map { (key: $0.key, records: $0.list.takeUnretainedValue().records) } }
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
        inserted: Bool, released: [ContiguousArray<ListenerRecord>]?
    ) {
        // Captured unretained: a captured reference is retained and released around the call,
        // and the caller's argument keeps the record alive throughout.
        let borrowed = Unmanaged.passUnretained(record)
        let version = mutations &+ 1
        // One table lookup for the whole change. The closure captures plain values only, so
        // that calling it retains nothing.
        let cached: UInt32? = listsStorage.pointee.modify(key) { list in
            if let expectedVersion, (list?._withUnsafeGuaranteedRef { $0.version } ?? 0) != expectedVersion {
                return nil
            }
            if list == nil { list = .passRetained(ListenerList()) }
            return list.unsafelyUnwrapped._withUnsafeGuaranteedRef { list in
                borrowed._withUnsafeGuaranteedRef { record in
                    list.insert(record)
                    record.listed.store(true, ordering: .relaxed)
                }
                list.version = version
                return list.takeCachedStripes()
            }
        }
        guard let cached else { return (false, nil) }
        mutations = version
        return (true, cached == 0 ? nil : stripes.invalidate(key, in: cached))
    }

    /// Cancels a listener that nothing but its subscription can retire (see
    /// ``ListenerRecord/isRetiredOnlyByCancel``) and takes it out of its list. Returns false when
    /// it had already been cancelled.
    ///
    /// The state changes under the lock, with a plain store rather than a compare-and-exchange:
    /// every writer of this record's state holds the lock, and dispatch, which only reads it,
    /// sees the change as it would the exchange's.
    func cancel(_ record: ListenerRecord) -> Bool {
        guard record.isActive else { return false }
        // As in `insert`: a typed listener's key is a known case, with no payload to copy.
        guard let details = record.details else { return cancelLocking(record, in: .type(record.typedEventID)) }
        return cancelLocking(record, in: details.eventKey ?? .type(record.typedEventID))
    }

    @inline(__always)
    private func cancelLocking(_ record: ListenerRecord, in key: EventKey) -> Bool {
        lock.lock()
        guard record.isActive else {
            lock.unlock()
            return false
        }
        record.rawState.store(ListenerState.cancelled.rawValue, ordering: .releasing)
        let (_, listReference, copies) = removeLocked(record, from: key)
        lock.unlock()
        // Released only now, outside the lock: it may hold the last reference to a handler's
        // captures, whose deinitializers are user code. (Tested first: both are usually nil,
        // and releasing nil is still a call.)
        if listReference != nil || copies != nil { withExtendedLifetime((listReference, copies)) {} }
        return true
    }

    /// Takes `record` out of its list, in place, if it is there: the path of `cancel()` and of a
    /// subscription's deinit. Finding it compares references only, and removal moves pointers
    /// without retaining or releasing the other records.
    func remove(_ record: ListenerRecord) {
        guard let details = record.details else {
            // Typed and unkeyed, as in `insert`: only its list changes.
            lock.lock()
            let (_, listReference, copies) = removeLocked(record, from: .type(record.typedEventID))
            lock.unlock()
            withExtendedLifetime((listReference, copies)) {}
            return
        }
        let key = details.eventKey ?? .type(record.typedEventID)
        let slot = record.duplicateSlot
        lock.lock()
        let (removed, listReference, copies) = removeLocked(record, from: key)
        let indexReference = removed ? slot.map { removeFromDuplicateIndex(record, in: $0) } : nil
        lock.unlock()
        withExtendedLifetime((listReference, copies, indexReference)) {}
    }

    /// Takes `record` out of the list of `key` and drops the stripes' copies of that list. Call
    /// with the lock held, while holding `record`; release what it returns after unlocking: the
    /// list's reference (for a record the list keeps) and the stripes' copies.
    @inline(__always)
    private func removeLocked(_ record: ListenerRecord, from key: EventKey) -> (
        removed: Bool, listReference: ListenerRecord?, copies: [ContiguousArray<ListenerRecord>]?
    ) {
        let version = mutations &+ 1
        var dropped = false
        // One table lookup for the whole change; the closure captures plain values only.
        let (removed, cached): (Unmanaged<ListenerRecord>?, UInt32) = listsStorage.pointee.modify(key) { list in
            guard let current = list else { return (nil, 0) }
            let (removed, cached, isEmpty) = current._withUnsafeGuaranteedRef {
                current -> (Unmanaged<ListenerRecord>?, UInt32, Bool) in
                guard let removed = current.remove(record) else { return (nil, 0, false) }
                current.version = version
                return (removed, current.takeCachedStripes(), current.isEmpty)
            }
            if isEmpty {
                list = nil
                // Freeing a list runs no user code, so it may happen under the lock.
                current.release()
                dropped = true
            }
            return (removed, cached)
        }
        if dropped { noteDroppedList(key) }
        guard let removed else { return (false, nil, nil) }
        mutations = version
        return (true, ListenerList.unlist(removed), cached == 0 ? nil : stripes.invalidate(key, in: cached))
    }

    /// Drops a keyed owner-bound record from the index slot it was filed in; call with the lock
    /// held. Returns the index's reference, to release after unlocking.
    private func removeFromDuplicateIndex(_ record: ListenerRecord, in slot: DuplicateSlot) -> ListenerRecord? {
        guard var filed = duplicateIndex.removeValue(forKey: slot) else { return nil }
        guard let index = filed.firstIndex(where: { $0 === record }) else {
            duplicateIndex[slot] = filed
            return nil
        }
        let removed = filed.remove(at: index)
        if !filed.isEmpty { duplicateIndex[slot] = filed }
        return removed
    }

    /// Drops every record of `key` that is no longer active.
    func purge(_ key: EventKey) {
        let released = lock.withLock { purgeLocked(key) }
        // Released only now, outside the lock: a dropped record may hold the last reference to a
        // handler's captures, whose deinitializers are user code.
        withExtendedLifetime(released) {}
    }

    /// Drops every inactive record of each of `keys`.
    func purge(_ keys: some Sequence<EventKey>) {
        let released = lock.withLock { keys.map { purgeLocked($0) } }
        withExtendedLifetime(released) {}
    }

    /// Keeps the active records of `key`'s list and returns what the caller must release after
    /// unlocking, or nil when every record is still active.
    private func purgeLocked(_ key: EventKey) -> Released? {
        guard let list = lists[key]?.takeUnretainedValue() else { return nil }
        let dropped = list.removeInactive()
        guard !dropped.isEmpty else { return nil }
        var released = Released()
        released.copies = dropCopies(of: list, key: key)
        if list.isEmpty {
            lists[key] = nil
            Unmanaged.passUnretained(list).release()
            noteDroppedList(key)
        } else {
            mutations &+= 1
            list.version = mutations
        }
        for entry in dropped {
            entry._withUnsafeGuaranteedRef { record in
                if let slot = record.duplicateSlot, let indexReference = removeFromDuplicateIndex(record, in: slot) {
                    released.records.append(indexReference)
                }
            }
            // Last: after this, a record the list does not keep may be freed by its subscription.
            released.unlist(entry)
        }
        return released
    }

    /// Empties the registry (its center is deinitializing), releasing the records after unlocking.
    func removeAll() {
        let released = lock.withLock {
            var released = Released()
            for (key, list) in lists.all {
                list._withUnsafeGuaranteedRef { list in
                    released.copies += dropCopies(of: list, key: key)
                    for entry in list.entries { released.unlist(entry) }
                }
                list.release()
            }
            listsStorage.pointee = ListTable()
            familyListCount.store(0, ordering: .relaxed)
            released.records += duplicateIndex.values.joined()
            duplicateIndex = [:]
            return released
        }
        withExtendedLifetime(released) {}
    }

    // MARK: Family lists

    /// Files `key` as the key of a family's list, and counts the family lists that exist
    /// again. Called after a family listener was put in (or found a duplicate in) that list:
    /// family lists are created there only, so the count is right from then on, and
    /// `noteDroppedList` keeps it right as lists go.
    func countFamilyLists(adding key: EventKey) {
        guard case .type(let id) = key else { return }
        lock.withLock {
            familyKeys.insert(id)
            let existing = familyKeys.count { lists[.type($0)] != nil }
            familyListCount.store(existing, ordering: .relaxed)
        }
    }

    /// Counts a dropped list out if it was a family's. Call with the lock held. Paid only when
    /// a list empties, and a center without families tests one empty set.
    @inline(__always)
    private func noteDroppedList(_ key: EventKey) {
        guard !familyKeys.isEmpty, case .type(let id) = key, familyKeys.contains(id) else { return }
        familyListCount.wrappingSubtract(1, ordering: .relaxed)
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
        let released = lock.withLock {
            insertionsSinceSweep = 0
            liveAtLastSweep = live
            return changed.map { purgeLocked($0) }
        }
        withExtendedLifetime(released) {}
    }
}
