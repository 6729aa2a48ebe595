import Foundation
import Synchronization

/// Per-thread read caches of the registry's listener lists, so that threads dispatching at the
/// same time do not write to the same memory.
///
/// Each dispatching thread is assigned a stripe (round robin, on first use). A stripe holds its
/// own lock and its own copies of the lists its threads dispatched to, in their own arrays:
/// taking the lock and retaining the array touch only that stripe's cache lines. With one shared
/// lock and one shared array, two threads dispatching at once spent their time moving those
/// lines between cores and ran slower together than one thread alone.
///
/// Rules (the registry relies on them):
/// - A stripe only ever caches a copy of the registry's current list for a key. It is filled
///   under the registry lock (then the stripe lock), and every change to a key's list removes
///   that key from each stripe that cached it, in the same hold of the registry lock: once a
///   change returns, no cached copy predates it (a reader that hits the copy meanwhile reads as
///   if just before the change), and a cancelled listener is never kept alive by a cache.
/// - Lock order is registry lock, then stripe lock. Readers that hit take the stripe lock alone.
/// - Values taken out of a stripe are released by the caller after unlocking (they may hold the
///   last reference to a handler's captures).
final class ReadStripes: @unchecked Sendable {
    // Why @unchecked is safe: each stripe's table is only touched while holding that stripe's
    // lock; `stripes` and `count` are immutable after init.
    struct Stripe {
        // Unmanaged, so that reaching a stripe's lock does not retain and release the lock
        // object on every dispatch; the stripe owns one reference, released in `deinit`.
        let lock: Unmanaged<SpinLock>
        let table: UnsafeMutablePointer<ListTable<Entry>>
    }

    /// What a stripe knows of one event key: its copy of the key's list, and whether the event
    /// type of the key belongs to no family. The two share an entry so that a dispatch on a
    /// center with family listeners learns both in the one lookup it makes anyway.
    struct Entry {
        /// The stripe's copy of the list; nil when not copied (or dropped by a change).
        var records: ContiguousArray<ListenerRecord>?
        /// The family version (``FamilyIndex/version``) under which the key's event type was
        /// found to belong to no family; 0 when not known. A new family kind changes the
        /// version, so an older answer is ignored rather than cleared. Kept when `records` is
        /// dropped: membership depends on the type and the family kinds, not on the listeners.
        var familyFreeVersion: UInt64 = 0

        var isEmpty: Bool { records == nil && familyFreeVersion == 0 }
    }

    private let stripes: UnsafeMutablePointer<Stripe>
    let count: Int
    private let mask: Int
    /// The process-wide key of the per-thread stripe number, copied here: reading a global
    /// `let` goes through `swift_once` on every dispatch.
    private let threadKey = stripeKey.key

    init() {
        // Enough stripes that concurrently dispatching threads rarely share one, bounded so that
        // cached copies stay cheap (the bit mask in `ListenerList` allows up to 32).
        // A power of two, so that picking a stripe is a mask rather than a division.
        let wanted = max(2, min(16, ProcessInfo.processInfo.activeProcessorCount * 2))
        count = 1 << (Int.bitWidth - (wanted - 1).leadingZeroBitCount)
        mask = count - 1
        stripes = .allocate(capacity: count)
        for index in 0..<count {
            let table = UnsafeMutablePointer<ListTable<Entry>>.allocate(capacity: 1)
            table.initialize(to: ListTable())
            (stripes + index).initialize(to: Stripe(lock: .passRetained(SpinLock()), table: table))
        }
    }

    deinit {
        for index in 0..<count {
            stripes[index].table.deinitialize(count: 1)
            stripes[index].table.deallocate()
            stripes[index].lock.release()
        }
        stripes.deinitialize(count: count)
        stripes.deallocate()
    }

    /// The stripe of the calling thread.
    @inline(__always)
    var currentIndex: Int { threadStripeNumber(threadKey) & mask }

    /// The cached list of `key` on stripe `index`, or nil when it is not cached.
    @inline(__always)
    func cached(_ key: EventKey, in index: Int) -> ContiguousArray<ListenerRecord>? {
        let stripe = stripes[index]
        return stripe.lock._withUnsafeGuaranteedRef { lock in
            lock.withLock { stripe.table.pointee.peek(key) { $0?.records } }
        }
    }

    /// The stripe's copy of the list of `key`, and whether the key's event type is known to
    /// belong to no family under the family version `familyVersion`.
    @inline(__always)
    func cached(_ key: EventKey, in index: Int, familyVersion: UInt64) -> (
        records: ContiguousArray<ListenerRecord>?, familyFree: Bool
    ) {
        let stripe = stripes[index]
        return stripe.lock._withUnsafeGuaranteedRef { lock in
            lock.withLock {
                stripe.table.pointee.peek(key) { entry in (entry?.records, entry?.familyFreeVersion == familyVersion) }
            }
        }
    }

    /// Notes that the event type of `key` belongs to no family under the family version
    /// `familyVersion`.
    func markFamilyFree(_ key: EventKey, version familyVersion: UInt64, in index: Int) {
        let stripe = stripes[index]
        stripe.lock.takeUnretainedValue().withLock {
            stripe.table.pointee.modify(key) { entry in
                if entry == nil { entry = Entry() }
                entry?.familyFreeVersion = familyVersion
            }
        }
    }

    /// Caches `records` for `key` on stripe `index`. Call with the registry lock held. Returns
    /// what it replaced, to release after unlocking.
    func store(_ records: ContiguousArray<ListenerRecord>, for key: EventKey, in index: Int) -> ContiguousArray<
        ListenerRecord
    >? {
        let stripe = stripes[index]
        return stripe.lock.takeUnretainedValue().withLock {
            stripe.table.pointee.modify(key) { entry in
                if entry == nil { entry = Entry() }
                let old = entry?.records
                entry?.records = records
                return old
            }
        }
    }

    /// Drops `key` from every stripe in `mask`. Call with the registry lock held. Returns what it
    /// removed, to release after unlocking.
    func invalidate(_ key: EventKey, in mask: UInt32) -> [ContiguousArray<ListenerRecord>] {
        var released: [ContiguousArray<ListenerRecord>] = []
        guard mask != 0 else { return released }
        for index in 0..<count where mask & (1 << UInt32(index)) != 0 {
            let stripe = stripes[index]
            let old = stripe.lock.takeUnretainedValue().withLock {
                stripe.table.pointee.modify(key) { entry in
                    let old = entry?.records.take()
                    if entry?.isEmpty == true { entry = nil }
                    return old
                }
            }
            if let old { released.append(old) }
        }
        return released
    }
}

/// A small number per thread, assigned round robin on first use and kept in thread-local
/// storage, so that concurrently running threads land on different stripes.
@inline(__always)
private func threadStripeNumber(_ key: pthread_key_t) -> Int {
    if let value = pthread_getspecific(key) {
        return Int(bitPattern: value) &- 1
    }
    let number = stripeCounter.next()
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: number &+ 1))
    return number
}

private final class StripeKey: Sendable {
    let key: pthread_key_t
    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }
}

private final class StripeCounter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}

private let stripeKey = StripeKey()
private let stripeCounter = StripeCounter()
