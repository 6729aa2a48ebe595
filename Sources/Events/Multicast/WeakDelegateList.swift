import Synchronization

// The storage shared by `MulticastDelegate` and `MainActorMulticastDelegate`.
//
// Both front types keep a `WeakDelegateList` and differ only in how they protect it: the
// cross-thread type wraps every access in its `Lock`, the main-actor type relies on actor
// isolation. Everything here is therefore written as if the caller already had exclusive access.
//
// Two rules shape the code below.
//
// 1. A weak reference can only be tested for liveness by loading it strongly. The strong
//    reference obtained that way may turn out to be the *last* one (another thread dropped its
//    reference meanwhile), and releasing it then runs the delegate's `deinit`, which is user
//    code. So liveness tests happen outside the lock, on a snapshot of the entries; the lock is
//    only taken again to remove dead entries by identity.
//
//    There is one exception, used by `insert`, `remove` and `contains`: the caller passes in a
//    live object and keeps it alive for the whole call. An entry whose `ObjectIdentifier`
//    matches that object either points to that very object (loading it strongly cannot release
//    the last reference, because the caller holds one) or points to an earlier object that lived
//    at the same address and is already gone (the load yields nil and releases nothing). Two
//    objects alive at the same time never share an address, so no third case exists, and
//    loading such an entry under the lock is safe.
//
// 2. An invocation walks a snapshot of the entries taken when it starts, so that delegates can
//    add and remove delegates while being called. Removal must still take effect within the
//    walk, so every entry carries an atomic `isRemoved` flag, set when the entry leaves the
//    list and read right before each call.

/// One registered delegate: a weak reference plus the bookkeeping that outlives it.
final class WeakDelegateEntry: Sendable {
    // `nonisolated(unsafe)` because a `weak var` cannot be a `let`. It is written once, in
    // `init`, before the entry is published to other threads, and only read afterwards; loads
    // and the runtime's zeroing of weak references are atomic, so concurrent reads are safe.
    nonisolated(unsafe) private weak var storedObject: AnyObject?

    /// The identity of the object at registration time; used to find duplicates cheaply.
    let id: ObjectIdentifier

    private let removed = Atomic<Bool>(false)

    init(_ object: AnyObject) {
        storedObject = object
        id = ObjectIdentifier(object)
    }

    /// A strong reference to the delegate, or nil once it has deinitialized.
    ///
    /// Call it outside any lock unless the caller keeps the same object alive (see rule 1).
    var object: AnyObject? { storedObject }

    /// Whether the entry was taken out of its list (by `remove`, `removeAll` or pruning).
    var isRemoved: Bool { removed.load(ordering: .acquiring) }

    func markRemoved() { removed.store(true, ordering: .releasing) }

    /// Whether this entry currently holds `candidate`. `candidate` must be kept alive by the
    /// caller, which makes the strong load safe under a lock (see rule 1).
    func holds(_ candidate: AnyObject) -> Bool {
        id == ObjectIdentifier(candidate) && storedObject === candidate
    }
}

/// The ordered list of entries behind a multicast delegate. Not thread-safe by itself.
struct WeakDelegateList {
    /// Entries in order of addition. Dead entries stay until pruned.
    private(set) var entries: [WeakDelegateEntry] = []

    /// When `entries` grows to this size, `insert` asks its caller to prune. Doubling the
    /// threshold relative to the live count keeps pruning amortized O(1) per insertion, so a
    /// list whose delegates come and go without ever being invoked does not grow without bound.
    private var pruneThreshold = WeakDelegateList.minimumPruneThreshold

    static let minimumPruneThreshold = 16

    /// Appends `object` unless it is already present.
    ///
    /// - Returns: whether it was added, and whether the caller should now prune dead entries.
    mutating func insert(_ object: AnyObject) -> (inserted: Bool, shouldPrune: Bool) {
        let id = ObjectIdentifier(object)
        if let index = entries.firstIndex(where: { $0.id == id }) {
            if entries[index].holds(object) {
                return (false, false)
            }
            // A dead entry left behind by an earlier object at the same address: it must not
            // make the newcomer look like a duplicate. Drop it; the newcomer goes to the end,
            // because order of invocation is order of addition.
            entries[index].markRemoved()
            entries.remove(at: index)
        }
        entries.append(WeakDelegateEntry(object))
        return (true, entries.count >= pruneThreshold)
    }

    /// Removes `object` if present and returns whether it was.
    mutating func remove(_ object: AnyObject) -> Bool {
        guard let index = entries.firstIndex(where: { $0.holds(object) }) else { return false }
        entries[index].markRemoved()
        entries.remove(at: index)
        return true
    }

    func contains(_ object: AnyObject) -> Bool {
        entries.contains { $0.holds(object) }
    }

    mutating func removeAll() {
        for entry in entries { entry.markRemoved() }
        entries.removeAll()
    }

    /// Removes the given dead entries by identity. Entries already gone are ignored, so two
    /// threads pruning the same entries at once is harmless.
    mutating func removeDead(_ dead: [WeakDelegateEntry]) {
        guard !dead.isEmpty else { return }
        let deadIDs = Set(dead.lazy.map { ObjectIdentifier($0) })
        entries.removeAll { entry in
            guard deadIDs.contains(ObjectIdentifier(entry)) else { return false }
            entry.markRemoved()
            return true
        }
        pruneThreshold = Swift.max(Self.minimumPruneThreshold, entries.count * 2)
    }

    /// Rearms the prune trigger after a pruning pass that found nothing dead.
    mutating func notePruned() {
        pruneThreshold = Swift.max(Self.minimumPruneThreshold, entries.count * 2)
    }
}

/// Converts a delegate to the class instance it must be, stopping with a clear message if the
/// `Delegate` type of a multicast delegate is not class-bound.
func delegateObject<Delegate>(_ delegate: Delegate, in container: String) -> AnyObject {
    // Check the dynamic type before converting: `as AnyObject` would happily box a struct into a
    // fresh object that nobody else references, and that box would vanish from the weak list at
    // once.
    precondition(
        type(of: delegate as Any) is AnyObject.Type,
        """
        \(container) holds its delegates weakly, so they must be class instances, but a value of \
        type \(type(of: delegate as Any)) was passed. Declare the delegate protocol as \
        `protocol MyDelegate: AnyObject`.
        """
    )
    return delegate as AnyObject
}

/// Loads the live delegates of `snapshot` one by one, right before calling `body` with each.
///
/// An entry removed since the snapshot was taken is skipped; an entry whose object is gone is
/// skipped and collected into `dead`. `body` returns false to stop the walk early.
func forEachLiveDelegate<Delegate>(
    in snapshot: [WeakDelegateEntry],
    dead: inout [WeakDelegateEntry],
    _ body: (Delegate) throws -> Bool
) rethrows {
    for entry in snapshot {
        guard let object = entry.object else {
            if !entry.isRemoved { dead.append(entry) }
            continue
        }
        // Checked after the load and right before the call, so a removal that happened while
        // earlier delegates were being called is honoured.
        guard !entry.isRemoved else { continue }
        // Every object in the list came from a `Delegate` value (see `delegateObject`), so this
        // cast cannot fail.
        guard try body(object as! Delegate) else { return }
    }
}

/// Counts the live, registered entries of `snapshot` and collects the dead ones into `dead`.
///
/// Each liveness test loads a strong reference and drops it at once; call this outside any lock.
func countLiveEntries(in snapshot: [WeakDelegateEntry], dead: inout [WeakDelegateEntry]) -> Int {
    var live = 0
    for entry in snapshot {
        if entry.object == nil {
            if !entry.isRemoved { dead.append(entry) }
        } else if !entry.isRemoved {
            live += 1
        }
    }
    return live
}
