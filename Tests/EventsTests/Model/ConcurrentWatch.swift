import Synchronization

@testable import Events

/// The concurrent variant's clock: one atomic counter that every thread reads with sequentially
/// consistent increments, so that two stamps order the events that took them.
final class StampClock: Sendable {
    private let counter = Atomic<UInt64>(0)

    /// A stamp later than every stamp taken before it, on any thread.
    func next() -> UInt64 { counter.add(1, ordering: .sequentiallyConsistent).newValue }
}

/// An event of the concurrent variant: which thread dispatched it, its place among that
/// thread's dispatches, and the stamp taken just before `dispatch` was called.
struct StampedEvent: Event {
    let dispatcher: Int
    let sequence: Int
    let began: UInt64
}

/// What one listener of the concurrent variant saw, in atomics, checked after every thread
/// has finished.
final class ListenerWatch: Sendable {
    let name: String
    let once: Bool
    let calls = Atomic<Int>(0)
    /// The latest `began` stamp among the events the handler received.
    let latestEventBegan = Atomic<UInt64>(0)
    /// The latest stamp taken as a handler call started.
    let latestStart = Atomic<UInt64>(0)
    /// Taken just after `cancel()`, a removal or the owner's deinit returned; `max` until then.
    let endedAt = Atomic<UInt64>(.max)
    /// Taken just after the listener was ended on its own serial executor (so that every later
    /// turn of its queued events comes after it); `max` otherwise.
    let endedOnExecutorAt = Atomic<UInt64>(.max)
    /// Per dispatching thread, the sequence of the last event received (-1: none), to check
    /// per-listener FIFO.
    let lastSequence: [SequenceSlot]
    let outOfOrder = Atomic<Int>(0)

    init(_ name: String, once: Bool = false, dispatchers: Int) {
        self.name = name
        self.once = once
        lastSequence = (0..<dispatchers).map { _ in SequenceSlot() }
    }

    /// Called first thing in the handler.
    func ran(_ event: StampedEvent, clock: StampClock) {
        Self.raise(latestStart, to: clock.next())
        calls.add(1, ordering: .relaxed)
        Self.raise(latestEventBegan, to: event.began)
        let previous = lastSequence[event.dispatcher].value.exchange(event.sequence, ordering: .relaxed)
        if previous >= event.sequence { outOfOrder.add(1, ordering: .relaxed) }
    }

    /// Records the moment the listener ended, after the call that ended it returned.
    func ended(at stamp: UInt64, onExecutor: Bool = false) {
        endedAt.store(stamp, ordering: .relaxed)
        if onExecutor { endedOnExecutorAt.store(stamp, ordering: .relaxed) }
    }

    private static func raise(_ value: borrowing Atomic<UInt64>, to candidate: UInt64) {
        var current = value.load(ordering: .relaxed)
        while candidate > current {
            let (exchanged, original) = value.compareExchange(
                expected: current, desired: candidate, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// What this listener did wrong, if anything: the rules a concurrent run must keep.
    func violations() -> [String] {
        var found: [String] = []
        let ended = endedAt.load(ordering: .relaxed)
        if ended != .max, latestEventBegan.load(ordering: .relaxed) > ended {
            found.append("\(name): received an event dispatched after that returned")
        }
        let endedOnExecutor = endedOnExecutorAt.load(ordering: .relaxed)
        if endedOnExecutor != .max, latestStart.load(ordering: .relaxed) > endedOnExecutor {
            found.append("\(name): started a queued call after that, on the same executor")
        }
        if once, calls.load(ordering: .relaxed) > 1 {
            found.append("\(name): a once listener, ran \(calls.load(ordering: .relaxed)) times")
        }
        if outOfOrder.load(ordering: .relaxed) > 0 {
            found.append("\(name): received one thread's events out of order")
        }
        return found
    }
}

/// One dispatching thread's last sequence seen by a listener.
final class SequenceSlot: Sendable {
    let value = Atomic<Int>(-1)
}
