import Foundation
import Synchronization
import Testing

@testable import Events

/// A value that counts its live instances, to prove the ring neither leaks nor destroys twice.
private final class Tracked: Sendable {
    static let live = Atomic<Int>(0)
    let n: Int
    init(_ n: Int) {
        self.n = n
        Self.live.add(1, ordering: .relaxed)
    }
    deinit { Self.live.subtract(1, ordering: .relaxed) }
}

/// An event whose deinitializer runs code, as user types may: here, code that pushes into the
/// very buffer destroying it.
private final class ReentrantEvent: Sendable {
    let onDeinit: (@Sendable () -> Void)?
    init(_ onDeinit: (@Sendable () -> Void)? = nil) { self.onDeinit = onDeinit }
    deinit { onDeinit?() }
}

/// Runs `body` on a thread of its own and reports whether it finished within 10 s (a deadlock
/// leaves that thread stuck, and the test fails instead of hanging).
private func finishes(_ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done.wait(timeout: .now() + 10) == .success
}

/// The ring buffer behind `events(of:)`, driven directly: its head moves, it wraps around and
/// grows while wrapped, and every event comes out once, in order.
@Suite("Event buffer: the ring behind events(of:)", .serialized)
struct EventBufferTests {
    @Test func eventsComeOutInOrderAcrossWrapsAndGrowth() {
        let buffer = EventBuffer<Int>(policy: .unbounded)
        var next = 0
        var expected = 0
        // Rounds of pushes larger than the takes move the head around the ring, and growth
        // happens while the events wrap past its end.
        for round in 1...40 {
            for _ in 0..<(round % 7 + 3) {
                buffer.push(next)
                next += 1
            }
            for _ in 0..<(round % 5 + 1) {
                #expect(buffer.takeBuffered() == expected)
                expected += 1
            }
        }
        while let value = buffer.takeBuffered() {
            #expect(value == expected)
            expected += 1
        }
        #expect(expected == next)
        #expect(buffer.takeBuffered() == nil)
    }

    @Test func dropOldestAcrossTheWrapKeepsTheNewest() {
        let buffer = EventBuffer<Int>(policy: .dropOldest(capacity: 5))
        for value in 0..<3 { buffer.push(value) }
        #expect(buffer.takeBuffered() == 0)
        for value in 3..<40 { buffer.push(value) }
        #expect(buffer.droppedCount == 34)  // 2 left + 37 pushed, 5 kept
        var kept: [Int] = []
        while let value = buffer.takeBuffered() { kept.append(value) }
        #expect(kept == [35, 36, 37, 38, 39])
    }

    @Test func cancellingAndDeinitializingDestroyEachBufferedEventOnce() {
        let before = Tracked.live.load(ordering: .relaxed)
        do {
            let buffer = EventBuffer<Tracked>(policy: .unbounded)
            for n in 0..<50 { buffer.push(Tracked(n)) }
            for n in 0..<20 { #expect(buffer.takeBuffered()?.n == n) }
            for n in 50..<70 { buffer.push(Tracked(n)) }  // wraps and grows with the head moved
            #expect(Tracked.live.load(ordering: .relaxed) - before == 50)
            buffer.cancel()
            #expect(Tracked.live.load(ordering: .relaxed) == before)
            buffer.push(Tracked(99))  // after the end: dropped at once
            #expect(buffer.takeBuffered() == nil)
        }
        do {
            let buffer = EventBuffer<Tracked>(policy: .dropOldest(capacity: 8))
            for n in 0..<30 { buffer.push(Tracked(n)) }
            _ = buffer.takeBuffered()
            #expect(Tracked.live.load(ordering: .relaxed) - before == 7)
        }
        // The second buffer's deinit destroyed what it still held.
        #expect(Tracked.live.load(ordering: .relaxed) == before)
    }

    // No lock is held while user code runs: an event dropped or discarded by the buffer is
    // destroyed after the buffer's lock is released, so its deinitializer may use the buffer.

    @Test func anEventDroppedByDropOldestIsDestroyedOutsideTheLock() {
        let buffer = EventBuffer<ReentrantEvent>(policy: .dropOldest(capacity: 1))
        let pushedFromDeinit = Counter()
        let finished = finishes {
            buffer.push(
                ReentrantEvent {
                    buffer.push(ReentrantEvent())
                    pushedFromDeinit.increment()
                })
            buffer.push(ReentrantEvent())  // drops the first, whose deinit pushes again
        }
        // Without it, a deadlocked thread still holds the lock: touch the buffer no more.
        guard finished else {
            Issue.record("pushing from the dropped event's deinitializer deadlocked")
            return
        }
        #expect(pushedFromDeinit.value == 1)
        #expect(buffer.droppedCount == 2)
    }

    @Test func eventsDiscardedByCancelAreDestroyedOutsideTheLock() {
        let buffer = EventBuffer<ReentrantEvent>(policy: .unbounded)
        let finished = finishes {
            buffer.push(ReentrantEvent { buffer.push(ReentrantEvent()) })
            buffer.cancel()  // discards it; its deinit pushes into the ended buffer
        }
        guard finished else {
            Issue.record("pushing from a discarded event's deinitializer deadlocked")
            return
        }
        #expect(buffer.takeBuffered() == nil)
    }
}

/// The ring against a plain array model: random pushes, takes and cancels under each policy,
/// with limits on both sides of the ring's initial size, so that every wrap, growth while
/// wrapped and drop at the head is compared event by event.
extension EventBufferTests {
    @Test(arguments: [
        EventBufferingPolicy.unbounded, .dropOldest(capacity: 1), .dropOldest(capacity: 15),
        .dropOldest(capacity: 16), .dropOldest(capacity: 17), .dropOldest(capacity: 40), .dropNewest(capacity: 0),
        .dropNewest(capacity: 1), .dropNewest(capacity: 16), .dropNewest(capacity: 33),
    ])
    func randomPushesAndTakesMatchAnArray(policy: EventBufferingPolicy) {
        var generator = SeededGenerator(seed: 0x5EED)
        let before = Tracked.live.load(ordering: .relaxed)
        for _ in 0..<20 {
            let buffer = EventBuffer<Tracked>(policy: policy)
            var model: [Int] = []
            var dropped = 0
            var next = 0
            for _ in 0..<Int.random(in: 1..<400, using: &generator) {
                if Int.random(in: 0..<10, using: &generator) < 6 {
                    buffer.push(Tracked(next))
                    switch policy {
                    case .unbounded: model.append(next)
                    case .dropNewest(let limit):
                        if model.count < limit { model.append(next) } else { dropped += 1 }
                    case .dropOldest(let limit):
                        if limit <= 0 {
                            dropped += 1
                        } else {
                            if model.count >= limit {
                                model.removeFirst()
                                dropped += 1
                            }
                            model.append(next)
                        }
                    }
                    next += 1
                } else {
                    #expect(buffer.takeBuffered()?.n == (model.isEmpty ? nil : model.removeFirst()))
                }
            }
            #expect(buffer.droppedCount == dropped)
            #expect(Tracked.live.load(ordering: .relaxed) - before == model.count)
            if Bool.random(using: &generator) {
                buffer.cancel()
                #expect(Tracked.live.load(ordering: .relaxed) == before)
                #expect(buffer.takeBuffered() == nil)
            }
        }
        #expect(Tracked.live.load(ordering: .relaxed) == before)
    }
}
