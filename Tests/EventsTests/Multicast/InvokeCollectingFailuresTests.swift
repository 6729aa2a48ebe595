import Testing

@testable import Events

// `invokeCollectingFailures`: every delegate runs even when some throw, and the failures come
// back in order with their delegates and errors, under the snapshot rules of `invoke`.

private protocol Store: AnyObject, Sendable {
    var name: String { get }
    func save() throws
}

private struct SaveFailed: Error, Equatable {
    let store: String
}

/// A store that journals each save and fails when told to; may react to a save (reentrancy).
private final class JournalingStore: Store {
    let name: String
    let journal: Recorder<String>
    let fails: Bool
    let reaction: (@Sendable () -> Void)?

    init(_ name: String, journal: Recorder<String>, fails: Bool = false, reaction: (@Sendable () -> Void)? = nil) {
        self.name = name
        self.journal = journal
        self.fails = fails
        self.reaction = reaction
    }

    func save() throws {
        journal.record(name)
        reaction?()
        if fails { throw SaveFailed(store: name) }
    }
}

@Suite("MulticastDelegate.invokeCollectingFailures")
struct InvokeCollectingFailuresTests {
    private let journal = Recorder<String>()
    private let delegates = MulticastDelegate<any Store>()

    private func stores(_ names: [String], failing: Set<String>) -> [JournalingStore] {
        names.map { JournalingStore($0, journal: journal, fails: failing.contains($0)) }
    }

    @Test("Every delegate runs when the first and the last throw; the failures come in order")
    func everyDelegateRunsAndFailuresComeInOrder() {
        let all = stores(["a", "b", "c", "d"], failing: ["a", "d"])
        for store in all { delegates += store }
        let failures = delegates.invokeCollectingFailures { try $0.save() }
        #expect(journal.values == ["a", "b", "c", "d"])
        #expect(failures.count == 2)
        #expect(failures.map { $0.delegate === all[0] } == [true, false])
        #expect(failures.map { $0.delegate === all[3] } == [false, true])
        #expect(failures.map { $0.error as? SaveFailed } == [SaveFailed(store: "a"), SaveFailed(store: "d")])
        withExtendedLifetime(all) {}
    }

    @Test("No failures come back when no delegate throws, and invoke's order holds")
    func noFailuresWhenNoneThrows() {
        let all = stores(["a", "b", "c"], failing: [])
        for store in all.reversed() { delegates += store }
        #expect(delegates.invokeCollectingFailures { try $0.save() }.isEmpty)
        #expect(journal.values == ["c", "b", "a"])
        withExtendedLifetime(all) {}
    }

    @Test("A delegate removed during the call, before its turn, is not called; one added is not either")
    func removalAndAdditionDuringTheCall() {
        let delegates = self.delegates
        let victim = JournalingStore("victim", journal: journal, fails: true)
        let newcomer = JournalingStore("newcomer", journal: journal, fails: true)
        let remover = JournalingStore("remover", journal: journal, fails: true) {
            delegates.remove(victim)
            delegates.add(newcomer)
        }
        let last = JournalingStore("last", journal: journal)
        for store in [remover, victim, last] { delegates += store }
        let failures = delegates.invokeCollectingFailures { try $0.save() }
        #expect(journal.values == ["remover", "last"])
        #expect(failures.map { $0.delegate.name } == ["remover"])
        #expect(
            delegates.invokeCollectingFailures { try $0.save() }.map { $0.delegate.name } == ["remover", "newcomer"])
        withExtendedLifetime([remover, victim, newcomer, last]) {}
    }

    @Test("A failure keeps its delegate alive until it is let go, and describes delegate and error")
    func failureHoldsItsDelegateAndDescribesIt() throws {
        weak var released: JournalingStore?
        var failures: [DelegateFailure<any Store>] = []
        do {
            let store = JournalingStore("only", journal: journal, fails: true)
            released = store
            delegates += store
            failures = delegates.invokeCollectingFailures { try $0.save() }
        }
        #expect(released != nil, "the failure holds its delegate")
        let description = try #require(failures.first).description
        #expect(description.hasPrefix("delegate JournalingStore (0x"))
        #expect(description.hasSuffix(") threw: SaveFailed(store: \"only\")"))
        failures.removeAll()
        #expect(released == nil, "let go, the failure releases its delegate")
        #expect(delegates.isEmpty)
    }

    @Test("A failure is Sendable when its delegate is")
    func failureIsSendableWhenItsDelegateIs() {
        func requireSendable(_ value: some Sendable) {}
        requireSendable(
            DelegateFailure<any Store>(delegate: JournalingStore("s", journal: journal), error: SaveFailed(store: "s")))
    }
}

// MARK: - Main actor

@MainActor
private protocol Panel: AnyObject {
    var title: String { get }
    func refresh() throws
}

@MainActor
private final class RecordingPanel: Panel {
    let title: String
    let fails: Bool
    var refreshed = 0
    var reaction: (() -> Void)?

    init(_ title: String, fails: Bool = false) {
        self.title = title
        self.fails = fails
    }

    func refresh() throws {
        refreshed += 1
        reaction?()
        if fails { throw SaveFailed(store: title) }
    }
}

@Suite("MainActorMulticastDelegate.invokeCollectingFailures")
@MainActor
struct MainActorInvokeCollectingFailuresTests {
    @Test("Every main-actor delegate runs when the first and the last throw; the failures come in order")
    func everyDelegateRunsAndFailuresComeInOrder() {
        let panels = MainActorMulticastDelegate<any Panel>()
        let all = [
            RecordingPanel("a", fails: true), RecordingPanel("b"), RecordingPanel("c", fails: true),
            RecordingPanel("d", fails: true),
        ]
        for panel in all { panels += panel }
        let failures = panels.invokeCollectingFailures { try $0.refresh() }
        #expect(all.map(\.refreshed) == [1, 1, 1, 1])
        #expect(failures.map { $0.delegate.title } == ["a", "c", "d"])
        #expect(failures.map { $0.error as? SaveFailed } == ["a", "c", "d"].map { SaveFailed(store: $0) })
        #expect(panels.invokeCollectingFailures { _ in }.isEmpty)
    }

    @Test("A main-actor delegate removed during the call, before its turn, is not called")
    func removalDuringTheCall() {
        let panels = MainActorMulticastDelegate<any Panel>()
        let first = RecordingPanel("first", fails: true)
        let victim = RecordingPanel("victim", fails: true)
        let last = RecordingPanel("last", fails: true)
        first.reaction = { panels.remove(victim) }
        for panel in [first, victim, last] { panels += panel }
        let failures = panels.invokeCollectingFailures { try $0.refresh() }
        #expect(failures.map { $0.delegate.title } == ["first", "last"])
        #expect(victim.refreshed == 0)
        first.reaction = nil
    }
}
