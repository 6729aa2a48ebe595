import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Events

@Suite("Current values")
struct CurrentValueTests {
    struct CartChanged: Event, Equatable { let items: Int }
    final class Cart: Sendable {}
    final class Badge: Sendable {
        let shown = Recorder<Int>()
    }

    @Test("a listener registered with receivingCurrent gets the kept value at once, then the newer ones")
    func lateListenerGetsCurrent() {
        let center = EventCenter()
        center.dispatch(CartChanged(items: 1), keepingCurrent: .perType)
        center.dispatch(CartChanged(items: 2), keepingCurrent: .perType)
        let log = Recorder<Int>()
        let badge = center.listen(to: CartChanged.self, receivingCurrent: true) { log.record($0.items) }
        #expect(log.values == [2])
        center.dispatch(CartChanged(items: 3), keepingCurrent: .perType)
        center.dispatch(CartChanged(items: 4))
        #expect(log.values == [2, 3, 4])
        _ = badge
    }

    struct ThemeChanged: Event, Equatable { let name: String }
    struct VolumeChanged: Event, Equatable { let level: Int }

    @Test("values of several types kept in turns, cleared and kept again, each read back as its own latest")
    func interleavedTypes() {
        let center = EventCenter()
        // A type kept again and again replaces its value in place; another type, a clearing or
        // a type new to the center moves the table's entries. Each read must still find its own.
        for round in 1...40 {
            center.dispatch(CartChanged(items: round), keepingCurrent: .perType)
            center.dispatch(CartChanged(items: round * 10), keepingCurrent: .perType)
            if round.isMultiple(of: 3) {
                center.dispatch(ThemeChanged(name: "theme \(round)"), keepingCurrent: .perType)
            }
            if round.isMultiple(of: 5) { center.clearCurrentValue(of: CartChanged.self) }
            if round.isMultiple(of: 7) { center.clearCurrentValue(of: ThemeChanged.self) }
            if round == 20 { center.dispatch(VolumeChanged(level: 20), keepingCurrent: .perType) }
            center.dispatch(CartChanged(items: round * 100), keepingCurrent: .perType)
            #expect(center.currentValue(of: CartChanged.self) == CartChanged(items: round * 100))
            let theme = stride(from: round, through: 1, by: -1).first { $0.isMultiple(of: 3) || $0.isMultiple(of: 7) }
                .flatMap { $0.isMultiple(of: 7) ? nil : ThemeChanged(name: "theme \($0)") }
            #expect(center.currentValue(of: ThemeChanged.self) == theme, "round \(round)")
            #expect(center.currentValue(of: VolumeChanged.self) == (round >= 20 ? VolumeChanged(level: 20) : nil))
        }
        let late = Recorder<Int>()
        let listener = center.listen(to: CartChanged.self, receivingCurrent: true) { late.record($0.items) }
        #expect(late.values == [4000])
        _ = listener
    }

    @Test("without receivingCurrent a listener starts with the next event, and plain dispatches keep nothing")
    func optIn() {
        let center = EventCenter()
        center.dispatch(CartChanged(items: 1), keepingCurrent: .perType)
        let log = Recorder<Int>()
        let plain = center.listen(to: CartChanged.self) { log.record($0.items) }
        #expect(log.values.isEmpty)
        center.dispatch(CartChanged(items: 9))
        #expect(center.currentValue(of: CartChanged.self) == CartChanged(items: 1))
        _ = plain
    }

    @Test("current values can be read and cleared")
    func readAndClear() {
        let center = EventCenter()
        #expect(center.currentValue(of: CartChanged.self) == nil)
        center.dispatch(CartChanged(items: 5), keepingCurrent: .perType)
        #expect(center.currentValue(of: CartChanged.self)?.items == 5)
        center.clearCurrentValue(of: CartChanged.self)
        #expect(center.currentValue(of: CartChanged.self) == nil)
        let log = Recorder<Int>()
        let late = center.listen(to: CartChanged.self, receivingCurrent: true) { log.record($0.items) }
        #expect(log.values.isEmpty)
        _ = late
    }

    @Test("per sender, each sender keeps its own value; a filtered listener gets its sender's, an unfiltered one each")
    func perSender() {
        let center = EventCenter()
        let first = Cart()
        let second = Cart()
        center.dispatch(CartChanged(items: 1), from: first, keepingCurrent: .perSender)
        center.dispatch(CartChanged(items: 2), from: second, keepingCurrent: .perSender)
        center.dispatch(CartChanged(items: 3), from: first, keepingCurrent: .perSender)
        #expect(center.currentValue(of: CartChanged.self, from: first)?.items == 3)
        #expect(center.currentValue(of: CartChanged.self, from: second)?.items == 2)
        #expect(center.currentValue(of: CartChanged.self) == nil)

        let mine = Recorder<Int>()
        let filtered = center.listen(to: CartChanged.self, from: second, receivingCurrent: true) {
            mine.record($0.items)
        }
        #expect(mine.values == [2])
        let all = Recorder<Int>()
        let unfiltered = center.listen(to: Sent<CartChanged>.self, receivingCurrent: true) { sent in
            all.record(sent.event.items)
            #expect(sent.sender != nil)
        }
        // In the order they were kept.
        #expect(all.values == [2, 3])
        center.clearCurrentValue(of: CartChanged.self, from: first)
        #expect(center.currentValue(of: CartChanged.self, from: first) == nil)
        #expect(center.currentValue(of: CartChanged.self, from: second)?.items == 2)
        _ = (filtered, unfiltered)
    }

    @Test("a value kept per sender goes away with its sender, and the sender is not retained")
    func senderLifetime() {
        let center = EventCenter()
        weak var gone: Cart?
        do {
            let cart = Cart()
            gone = cart
            center.dispatch(CartChanged(items: 7), from: cart, keepingCurrent: .perSender)
            center.dispatch(CartChanged(items: 8), from: cart, keepingCurrent: .perType)
        }
        #expect(gone == nil)
        let log = Recorder<Int>()
        let late = center.listen(to: Sent<CartChanged>.self, receivingCurrent: true) { sent in
            log.record(sent.event.items)
            #expect(sent.sender == nil)
        }
        // The per-type value stays (its sender is gone, so it comes without one).
        #expect(log.values == [8])
        _ = late
    }

    @Test("a main-actor listener receives the current value on the main actor, before newer events")
    @MainActor
    func mainActorContext() async {
        let center = EventCenter()
        center.dispatch(CartChanged(items: 1), keepingCurrent: .perType)
        let badge = Badge()
        center.listen(to: CartChanged.self, owner: badge, on: .mainOrdered, receivingCurrent: true) { badge, cart in
            MainActor.assertIsolated()
            badge.shown.record(cart.items)
        }
        center.dispatch(CartChanged(items: 2), keepingCurrent: .perType)
        // Ordered main-actor delivery: nothing has run yet inside this turn.
        #expect(badge.shown.values.isEmpty)
        await center.idle()
        #expect(badge.shown.values == [1, 2])
    }

    @Test("a queue listener and a stream receive the current value first, in their own context")
    func queueAndStream() async {
        let center = EventCenter()
        center.dispatch(CartChanged(items: 1), keepingCurrent: .perType)
        let queue = DispatchQueue(label: "current")
        let log = Recorder<String>()
        let listener = center.listen(to: CartChanged.self, on: .queue(queue), receivingCurrent: true) { cart in
            dispatchPrecondition(condition: .onQueue(queue))
            log.record("queue \(cart.items)")
        }
        let stream = center.events(of: CartChanged.self, receivingCurrent: true)
        center.dispatch(CartChanged(items: 2))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.items == 1)
        #expect(await iterator.next()?.items == 2)
        await center.idle()
        #expect(log.values == ["queue 1", "queue 2"])
        _ = listener
    }

    @Test("a once listener with receivingCurrent takes the current value as its one event")
    func onceTakesCurrent() {
        let center = EventCenter()
        center.dispatch(CartChanged(items: 4), keepingCurrent: .perType)
        let count = Counter()
        let once = center.listen(to: CartChanged.self, once: true, receivingCurrent: true) { _ in count.increment() }
        center.dispatch(CartChanged(items: 5), keepingCurrent: .perType)
        #expect(count.value == 1)
        #expect(!once.isActive)
        #expect(center.listenerCount(for: CartChanged.self) == 0)
    }

    @Test("a keyed repeat with receivingCurrent is ignored and receives nothing again")
    func keyedRepeat() {
        let center = EventCenter()
        center.dispatch(CartChanged(items: 4), keepingCurrent: .perType)
        let badge = Badge()
        for _ in 0..<3 {
            center.listen(to: CartChanged.self, owner: badge, key: "badge", receivingCurrent: true) { badge, cart in
                badge.shown.record(cart.items)
            }
        }
        #expect(badge.shown.values == [4])
        #expect(center.listenerCount(for: CartChanged.self) == 1)
    }

    @Test(
        "racing registrations and keeping dispatches: each listener sees a current value once, then every newer one in order"
    )
    func racingRegistrations() async {
        let center = EventCenter()
        let rounds = 200
        let logs = (0..<4).map { _ in Recorder<Int>() }
        let dispatched = Atomic<Int>(0)
        let joinedAfter = (0..<4).map { _ in Recorder<Int>() }
        let subscriptions = Recorder<Subscription>()
        await runOnThreads(5) { thread in
            if thread == 0 {
                for value in 1...rounds {
                    center.dispatch(CartChanged(items: value), keepingCurrent: .perType)
                    dispatched.store(value, ordering: .sequentiallyConsistent)
                }
            } else {
                let log = logs[thread - 1]
                subscriptions.record(
                    center.listen(to: CartChanged.self, receivingCurrent: true) { log.record($0.items) })
                joinedAfter[thread - 1].record(dispatched.load(ordering: .sequentiallyConsistent))
            }
        }
        for (log, joined) in zip(logs, joinedAfter) {
            let values = log.values
            // No value twice and none out of order; the last value always arrives.
            #expect(values.last == rounds)
            #expect(values == values.sorted() && Set(values).count == values.count)
            // Dispatch `done + 1` may have taken its snapshot before the listener joined; every
            // later one started after `listen` returned, so none of them may be missing.
            let done = joined.values.first ?? rounds
            if done + 2 <= rounds {
                let missing = Set(done + 2...rounds).subtracting(values)
                #expect(missing.isEmpty, "joined after \(done) dispatches; missing \(missing.sorted())")
            }
        }
        #expect(subscriptions.values.count == 4)
    }

    /// A kept event's payload whose deinitializer reads the center's current values.
    final class Snapshot: Sendable {
        let center: EventCenter
        let readInDeinit: Recorder<Int?>
        init(center: EventCenter, readInDeinit: Recorder<Int?>) {
            self.center = center
            self.readInDeinit = readInDeinit
        }
        deinit { readInDeinit.record(center.currentValue(of: CartChanged.self)?.items) }
    }
    struct SnapshotTaken: Event { let snapshot: Snapshot }

    @Test("a current value that is replaced is released outside the center's lock: its deinit may use the center")
    func replacedValueReleasedOutsideTheLock() async {
        let center = EventCenter()
        let reads = Recorder<Int?>()
        center.dispatch(CartChanged(items: 7), keepingCurrent: .perType)
        let done = DispatchSemaphore(value: 0)
        // On a thread of its own, so that a deadlock fails this test instead of hanging the run.
        Thread.detachNewThread {
            center.dispatch(
                SnapshotTaken(snapshot: Snapshot(center: center, readInDeinit: reads)), keepingCurrent: .perType)
            center.dispatch(
                SnapshotTaken(snapshot: Snapshot(center: center, readInDeinit: reads)), keepingCurrent: .perType)
            done.signal()
        }
        let finished = await Task.detached { done.wait(timeout: .now() + 30) == .success }.value
        #expect(finished, "replacing a current value deadlocked")
        // The first snapshot, replaced by the second, read the center from its deinit.
        #expect(reads.values == [7])
        // Clearing releases outside the lock too (and ends the cycle of the center and its value).
        center.clearCurrentValue(of: SnapshotTaken.self)
        #expect(reads.values == [7, 7])
    }

    @Test("named events keep current values too, per name and per sender")
    func namedCurrentValues() throws {
        let center = EventCenter()
        let cart = Cart()
        center.dispatch("theme", data: "dark", keepingCurrent: .perType)
        center.dispatch("cart", from: cart, data: 3, keepingCurrent: .perSender)
        #expect(try center.currentValue(named: "theme")?.data(as: String.self) == "dark")
        #expect(try center.currentValue(named: "cart", from: cart)?.data(as: Int.self) == 3)
        #expect(center.currentValue(named: "cart", from: cart)?.sender?.isIdentical(to: cart) == true)
        center.clearCurrentValue(named: "theme")
        #expect(center.currentValue(named: "theme") == nil)
        center.clearCurrentValue(named: "cart", from: cart)
        #expect(center.currentValue(named: "cart", from: cart) == nil)
    }
}

@Suite("Current values of named events")
struct NamedCurrentValueTests {
    @Test("every named registration form can start from the current value")
    func namedForms() async throws {
        let center = EventCenter()
        center.dispatch("theme", data: "dark", keepingCurrent: .perType)
        center.dispatch("locale", data: "fr", keepingCurrent: .perType)
        let named = Recorder<String>()
        let byName = center.listen(to: "theme", receivingCurrent: true) { named.record(try $0.data(as: String.self)) }
        #expect(named.values == ["dark"])
        let every = Recorder<String>()
        let allNames = center.listen(to: NamedEvent.self, receivingCurrent: true) { every.record($0.name.rawValue) }
        // Every name's current value, in the order they were kept.
        #expect(every.values == ["theme", "locale"])
        let stream = center.events(named: "locale", receivingCurrent: true)
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next()?.data(as: String.self) == "fr")
        let onMain = Recorder<String>()
        let mainListener = center.listen(to: "theme", on: .mainOrdered, receivingCurrent: true) { event in
            onMain.record(try event.data(as: String.self))
        }
        await center.idle()
        #expect(onMain.values == ["dark"])
        _ = (byName, allNames, mainListener)
    }
}
