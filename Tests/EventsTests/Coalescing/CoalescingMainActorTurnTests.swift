import Dispatch
import Foundation
import Testing

@testable import Events

@Suite("Coalescing: one delivery per main-actor turn")
struct CoalescingMainActorTurnTests {
    @MainActor
    @Test("a burst dispatched from the main actor in one turn arrives once, the newest, after the turn")
    func burstInOneTurnArrivesOnce() async {
        let center = EventCenter()
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .main, coalescing: .mainActorTurn) { tick in
            heard.record(tick.n)
        }
        for n in 1...5 { center.dispatch(Tick(n: n)) }
        // Never inline, even with `.main` on the main actor.
        #expect(heard.values.isEmpty)
        await center.idle()
        #expect(heard.values == [5])
        center.dispatch(Tick(n: 6))
        await center.idle()
        #expect(heard.values == [5, 6])
        subscription.cancel()
    }

    @MainActor
    @Test("without coalescing, the same `.main` listener runs inline for every event")
    func uncoalescedRunsInline() async {
        let center = EventCenter()
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .main) { tick in heard.record(tick.n) }
        for n in 1...3 { center.dispatch(Tick(n: n)) }
        #expect(heard.values == [1, 2, 3])
        subscription.cancel()
    }

    @MainActor
    @Test("a listener on a queue hears a main-actor turn's burst once, and idle() waits for it")
    func otherContextHearsTurnOnce() async {
        let center = EventCenter()
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Tick.self, on: .background, coalescing: .mainActorTurn) { tick in
            heard.record(tick.n)
        }
        for n in 1...5 { center.dispatch(Tick(n: n)) }
        await center.idle()
        #expect(heard.values == [5])
        subscription.cancel()
    }

    @MainActor
    @Test("an owner-bound main-actor listener coalesces, and named main-actor listeners too")
    func ownerAndNamedForms() async {
        let center = EventCenter()
        let owner = Probe("owner")
        let heard = Recorder<String>()
        center.listen(to: Tick.self, owner: owner, on: .main, coalescing: .mainActorTurn) { _, tick in
            heard.record("typed \(tick.n)")
        }
        center.listen(to: "named", owner: owner, on: .main, coalescing: .mainActorTurn) { _, event in
            heard.record("named \((try? event.data(as: Int.self)) ?? -1)")
        }
        for n in 1...3 {
            center.dispatch(Tick(n: n))
            center.dispatch("named", data: n)
        }
        await center.idle()
        #expect(heard.values.sorted() == ["named 3", "typed 3"])
        center.remove(owner)
    }
}
