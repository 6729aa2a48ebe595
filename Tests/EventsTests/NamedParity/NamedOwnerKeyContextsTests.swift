import Dispatch
import Testing

@testable import Events

// The `key:` of the named owner-bound forms that hand the owner to another context: the
// main-actor form and the actor form. Each as the typed forms: a repeat with the same owner,
// key, name and sender is ignored, the key removes the listener, the owner's death ends it.

extension EventName {
    fileprivate static let edited: EventName = "named-parity.edited"
}

/// A main-actor owner registering with the spelling a view controller uses.
@MainActor
private final class EditorScreen {
    var seen: [Int] = []
    var ranOnMainQueue: [Bool] = []

    func start(center: EventCenter) {
        center.listen(to: "x", owner: self, key: "k", on: .main) { owner, event in
            owner.seen.append(try event.data(as: Int.self))
            owner.ranOnMainQueue.append(isOnMainQueue())
        }
    }
}

private actor Ledger {
    var seen: [Int] = []
    func values() -> [Int] { seen }
}

@Suite("Named owner-bound forms with a key in other contexts")
struct NamedOwnerKeyContextsTests {
    @Test("owner + key + on: .main registers once, runs on the main actor and is removed by its key")
    @MainActor
    func mainActorOwnerWithKey() async {
        let center = EventCenter()
        let screen = EditorScreen()
        screen.start(center: center)
        screen.start(center: center)
        #expect(center.listenerCount(for: "x") == 1, "the repeat with the same key is ignored")
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                center.dispatch("x", data: 1)
                continuation.resume()
            }
        }
        await center.dispatchAndWait("x", data: 2)
        #expect(screen.seen == [1, 2])
        #expect(screen.ranOnMainQueue == [true, true])
        center.remove(screen, key: "k", for: "x")
        #expect(center.listenerCount(for: "x") == 0)
        await center.dispatchAndWait("x", data: 3)
        #expect(screen.seen == [1, 2])
    }

    @Test("A different key or no key is a distinct main-actor registration; the owner's death ends them")
    @MainActor
    func mainActorOwnerKeysAreDistinctAndEndWithTheOwner() async {
        let center = EventCenter()
        var screen: EditorScreen? = EditorScreen()
        center.listen(to: .edited, owner: screen!, key: "a", on: .mainOrdered) { _, _ in }
        center.listen(to: .edited, owner: screen!, key: "b", on: .main) { _, _ in }
        center.listen(to: .edited, owner: screen!, on: .main) { _, _ in }
        center.listen(to: .edited, owner: screen!, on: .main) { _, _ in }
        #expect(center.listenerCount(for: .edited) == 4)
        center.remove(screen!, key: "a")
        #expect(center.listenerCount(for: .edited) == 3)
        screen = nil
        #expect(center.listenerCount(for: .edited) == 0)
        #expect(await center.dispatchAndWait(.edited).received == 0)
    }

    @Test("The actor form with a key registers once and is removed by its key")
    func actorWithKey() async {
        let center = EventCenter()
        let ledger = Ledger()
        for _ in 0..<2 {
            center.listen(to: .edited, isolatedTo: ledger, key: "tally") { ledger, event in
                ledger.seen.append(try event.data(as: Int.self))
            }
        }
        center.listen(to: .edited, isolatedTo: ledger) { ledger, event in
            ledger.seen.append(-(try event.data(as: Int.self)))
        }
        #expect(center.listenerCount(for: .edited) == 2)
        #expect(await center.dispatchAndWait(.edited, data: 1).received == 2)
        center.remove(ledger, key: "tally", for: .edited)
        #expect(center.listenerCount(for: .edited) == 1)
        await center.dispatchAndWait(.edited, data: 2)
        #expect(await ledger.values().sorted() == [-2, -1, 1])
    }

    @Test("The actor form ends when its actor deinitializes")
    func actorWithKeyEndsWithTheActor() async {
        let center = EventCenter()
        var ledger: Ledger? = Ledger()
        center.listen(to: .edited, isolatedTo: ledger!, key: "tally") { _, _ in }
        #expect(center.listenerCount(for: .edited) == 1)
        ledger = nil
        #expect(center.listenerCount(for: .edited) == 0)
    }
}
