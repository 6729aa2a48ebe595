import Dispatch
import Testing

@testable import Events

// Listeners of every name (`listen(to: NamedEvent.self)`) in the contexts `listen(to: name)` has: the main actor (closure and
// owner-bound, with a key) and an actor.

@MainActor
private final class LogScreen {
    var lines: [String] = []
    var ranOnMainQueue: [Bool] = []
}

private actor NameLog {
    var lines: [String] = []
    func values() -> [String] { lines }
}

@Suite("Listening to every name on the main actor and on an actor")
struct AllNamesContextsTests {
    @Test("A main-actor listener of every name hears every name on the main thread, not typed events")
    @MainActor
    func mainActorClosureForm() async {
        let center = EventCenter()
        let screen = LogScreen()
        let subscription = center.listen(to: NamedEvent.self, on: .main) { event in
            screen.lines.append(event.name.rawValue)
            screen.ranOnMainQueue.append(isOnMainQueue())
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                center.dispatch("a")
                center.dispatch(Tick(n: 1))
                continuation.resume()
            }
        }
        await center.dispatchAndWait("b")
        #expect(screen.lines == ["a", "b"])
        #expect(screen.ranOnMainQueue == [true, true])
        subscription.cancel()
        await center.dispatchAndWait("c")
        #expect(screen.lines == ["a", "b"])
    }

    @Test("A main-actor listener of every name honours from:, once and the delivery .mainOrdered")
    @MainActor
    func mainActorClosureFormOrderSenderAndOnce() async {
        let center = EventCenter()
        let plane = Probe()
        let order = Recorder<String>()
        let first = center.listen(to: NamedEvent.self, on: .mainOrdered, from: plane, priority: .high, once: true) {
            event in
            order.record("all:\(event.name.rawValue)")
        }
        let second = center.listen(to: "a", on: .mainOrdered) { _ in order.record("a") }
        center.dispatch("a")
        center.dispatch("a", from: plane)
        center.dispatch("b", from: plane)
        await center.idle()
        // Each main-actor listener has its own queue: their order relative to each other is
        // not the dispatch's, so only what each heard is checked.
        #expect(order.values.sorted() == ["a", "a", "all:a"])
        withExtendedLifetime((first, second)) {}
    }

    @Test("Owner-bound main-actor listeners of every name: a key makes a repeat a no-op and removes it")
    @MainActor
    func mainActorOwnerForm() async {
        let center = EventCenter()
        var screen: LogScreen? = LogScreen()
        for _ in 0..<2 {
            center.listen(to: NamedEvent.self, owner: screen!, key: "log", on: .mainOrdered) { screen, event in
                screen.lines.append(event.name.rawValue)
                screen.ranOnMainQueue.append(isOnMainQueue())
            }
        }
        center.listen(to: NamedEvent.self, owner: screen!, on: .main) { screen, event in
            screen.lines.append("unkeyed:\(event.name.rawValue)")
        }
        #expect(center.listenerCount(for: NamedEvent.self) == 2)
        await center.dispatchAndWait("a")
        #expect(screen!.lines.sorted() == ["a", "unkeyed:a"])
        #expect(screen!.ranOnMainQueue == [true])
        center.remove(screen!, key: "log", for: NamedEvent.self)
        #expect(center.listenerCount(for: NamedEvent.self) == 1)
        screen = nil
        #expect(center.listenerCount(for: NamedEvent.self) == 0)
        #expect(await center.dispatchAndWait("b").received == 0)
    }

    @Test("An actor listener of every name runs isolated, once per key, and ends with the actor")
    func actorForm() async {
        let center = EventCenter()
        var log: NameLog? = NameLog()
        for _ in 0..<2 {
            center.listen(to: NamedEvent.self, isolatedTo: log!, key: "log") { log, event in
                log.lines.append(event.name.rawValue)
            }
        }
        #expect(center.listenerCount(for: NamedEvent.self) == 1)
        center.dispatch("a")
        center.dispatch(Tick(n: 1))
        #expect(await center.dispatchAndWait("b").received == 1)
        #expect(await log!.values() == ["a", "b"])
        center.remove(log!, key: "log", for: NamedEvent.self)
        #expect(center.listenerCount(for: NamedEvent.self) == 0)
        center.listen(to: NamedEvent.self, isolatedTo: log!) { _, _ in }
        #expect(center.listenerCount(for: NamedEvent.self) == 1)
        log = nil
        #expect(center.listenerCount(for: NamedEvent.self) == 0)
    }
}
