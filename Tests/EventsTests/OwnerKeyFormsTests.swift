import Testing

@testable import Events

// The `key:` of every owner-bound form: left out, each registration is distinct; given, a
// repeated registration is ignored (rule 3). One test per form, so that each spelling is
// compiled and its behaviour checked, with and without the key.

private struct Edited: Event {
    let n: Int
}

extension EventName {
    fileprivate static let keyed: EventName = "owner-key.keyed"
}

private actor Tally {
    var seen: [Int] = []
    func add(_ n: Int) { seen.append(n) }
}

@Suite("Owner-bound forms with and without a key")
struct OwnerKeyFormsTests {
    @Test("Typed owner-bound listeners without a key are distinct; with one a repeat is ignored")
    func typedOwnerForms() {
        let center = EventCenter()
        let owner = Probe()
        center.listen(to: Edited.self, owner: owner) { _, _ in }
        center.listen(to: Edited.self, owner: owner) { _, _ in }
        center.listen(to: Sent<Edited>.self, owner: owner, once: true) { _, _ in }
        #expect(center.listenerCount(for: Edited.self) == 3)
        center.listen(to: Edited.self, owner: owner, key: "k") { _, _ in }
        center.listen(to: Edited.self, owner: owner, key: "k") { _, _ in }
        center.listen(to: Sent<Edited>.self, owner: owner, key: "s", priority: 1) { _, _ in }
        center.listen(to: Sent<Edited>.self, owner: owner, key: "s", priority: 2) { _, _ in }
        #expect(center.listenerCount(for: Edited.self) == 5)
        center.remove(owner, key: "k")
        center.remove(owner, key: "s", for: Edited.self)
        #expect(center.listenerCount(for: Edited.self) == 3)
    }

    @Test("A key of an optional type whose value is nil is a key, not the absence of one")
    func optionalKeyWithNilValueIsAKey() {
        let center = EventCenter()
        let owner = Probe()
        let key: String? = nil
        center.listen(to: Edited.self, owner: owner) { _, _ in }
        center.listen(to: Edited.self, owner: owner, key: key) { _, _ in }
        center.listen(to: Edited.self, owner: owner, key: key) { _, _ in }
        #expect(center.listenerCount(for: Edited.self) == 2)
        center.remove(owner, key: key)
        #expect(center.listenerCount(for: Edited.self) == 1)
    }

    @Test("Main-actor owner-bound listeners without a key are distinct; with one a repeat is ignored")
    @MainActor
    func mainActorOwnerForms() {
        let center = EventCenter()
        let owner = Probe()
        center.listen(to: Edited.self, owner: owner, on: .main) { _, _ in }
        center.listen(to: Edited.self, owner: owner, on: .mainOrdered) { _, _ in }
        center.listen(to: Edited.self, owner: owner, key: 7, on: .main) { _, _ in }
        center.listen(to: Edited.self, owner: owner, key: 7, on: .main) { _, _ in }
        #expect(center.listenerCount(for: Edited.self) == 3)
    }

    @Test("Actor listeners without a key are distinct; with one a repeat is ignored")
    func actorForms() async {
        let center = EventCenter()
        let tally = Tally()
        center.listen(to: Edited.self, isolatedTo: tally) { tally, event in tally.add(event.n) }
        center.listen(to: Edited.self, isolatedTo: tally) { tally, event in tally.add(event.n) }
        center.listen(to: Edited.self, isolatedTo: tally, key: "a") { tally, event in tally.add(event.n) }
        center.listen(to: Edited.self, isolatedTo: tally, key: "a") { tally, event in tally.add(event.n) }
        #expect(center.listenerCount(for: Edited.self) == 3)
        let report = await center.dispatchAndWait(Edited(n: 1))
        #expect(report.received == 3)
        #expect(await tally.seen == [1, 1, 1])
    }

    @Test("Named and every-name owner-bound listeners without a key are distinct; with one a repeat is ignored")
    func namedOwnerForms() {
        let center = EventCenter()
        let owner = Probe()
        center.listen(to: .keyed, owner: owner) { _, _ in }
        center.listen(to: .keyed, owner: owner) { _, _ in }
        center.listen(to: .keyed, owner: owner, key: "k") { _, _ in }
        center.listen(to: .keyed, owner: owner, key: "k") { _, _ in }
        center.listen(to: NamedEvent.self, owner: owner) { _, _ in }
        center.listen(to: NamedEvent.self, owner: owner) { _, _ in }
        center.listen(to: NamedEvent.self, owner: owner, key: "k") { _, _ in }
        center.listen(to: NamedEvent.self, owner: owner, key: "k") { _, _ in }
        #expect(center.listenerCount(for: .keyed) == 6)
        #expect(center.listenerCount(for: NamedEvent.self) == 3)
        #expect(center.dispatch(.keyed) == 6)
    }
}
