import Testing

@testable import Events

// The spellings that replace awkward ones, each beside the old spelling it replaces: the new
// one does the job, and the old one still compiles and does exactly the same.

extension EventName {
    fileprivate static let edited: EventName = "spellings.edited"
    fileprivate static let closed: EventName = "spellings.closed"
}

extension PayloadKeys {
    fileprivate static let documentID = PayloadKey<String>("documentID")
    fileprivate static let revision = PayloadKey<Int>("revision")
}

@Suite("Preferred spellings of payloads and of removing listeners to every name")
struct PreferredSpellingsTests {
    @Test("Payload(key, value) holds that one value, read back with its type")
    func payloadOfOneValue() throws {
        let payload = Payload(.documentID, "d1")
        #expect(payload.keys == ["documentID"])
        let event = NamedEvent(name: .edited, payload: payload)
        #expect(try event[.documentID] == "d1")
        #expect(throws: NamedEventError.self) { try event[.revision] }
    }

    @Test("setting(_:to:) chains onto Payload(key, value), a later value for a key replacing an earlier one")
    func payloadChainedWithSetting() throws {
        let payload = Payload(.documentID, "d1").setting(.revision, to: 3).setting(.revision, to: 4)
        #expect(payload.keys == ["documentID", "revision"])
        let event = NamedEvent(name: .edited, payload: payload)
        #expect(try event[.documentID] == "d1")
        #expect(try event[.revision] == 4)
    }

    @Test("setting(_:to:) leaves the payload it started from unchanged")
    func settingDoesNotChangeTheOriginal() {
        let original = Payload(.documentID, "d1")
        let extended = original.setting(.revision, to: 1)
        #expect(original.keys == ["documentID"])
        #expect(extended.keys == ["documentID", "revision"])
    }

    @Test("The deprecated tuple spelling builds the same payload as the chained one")
    @available(*, deprecated, message: "exercises the deprecated Payload((key, value), ...) spelling")
    func tupleSpellingStillBuildsTheSamePayload() throws {
        let old = Payload((.documentID, "d1"), (.revision, 2))
        let new = Payload(.documentID, "d1").setting(.revision, to: 2)
        #expect(old.description == new.description)
        let event = NamedEvent(name: .edited, payload: old)
        #expect(try event[.documentID] == "d1")
        #expect(try event[.revision] == 2)
    }

    @Test("removeListenersToAllNames(of:) ends the owner's listeners to every name and keeps the rest")
    func removeListenersToAllNamesOfOwner() {
        let center = EventCenter()
        let owner = Probe()
        let other = Probe()
        let log = Recorder<String>()
        register(center, owner: owner, other: other, log: log)
        center.removeListenersToAllNames(of: owner)
        #expect(center.allNamesListenerCount == 1)
        center.dispatch(.edited)
        #expect(log.values.sorted() == ["edited", "other all edited"])
    }

    @Test("removeListenersToAllNames(of:key:) ends only the listener with that key")
    func removeListenersToAllNamesWithKey() {
        let center = EventCenter()
        let owner = Probe()
        let other = Probe()
        let log = Recorder<String>()
        register(center, owner: owner, other: other, log: log)
        center.removeListenersToAllNames(of: owner, key: "a")
        #expect(center.allNamesListenerCount == 2)
        center.dispatch(.closed)
        #expect(log.values.sorted() == ["b all closed", "other all closed"])
    }

    @Test("The deprecated removeAllNamesListeners spellings remove what the new ones remove")
    @available(*, deprecated, message: "exercises the deprecated removeAllNamesListeners spellings")
    func deprecatedRemovalSpellingsStillWork() {
        let center = EventCenter()
        let owner = Probe()
        let other = Probe()
        let log = Recorder<String>()
        register(center, owner: owner, other: other, log: log)
        center.removeAllNamesListeners(of: owner, key: "a")
        #expect(center.allNamesListenerCount == 2)
        center.removeAllNamesListeners(of: owner)
        #expect(center.allNamesListenerCount == 1)
        center.dispatch(.edited)
        #expect(log.values.sorted() == ["edited", "other all edited"])
    }

    /// `owner` listens to `.edited` and, with keys "a" and "b", to every name; `other` listens
    /// to every name.
    private func register(_ center: EventCenter, owner: Probe, other: Probe, log: Recorder<String>) {
        center.listen(to: .edited, owner: owner) { _, event in log.record(short(event.name)) }
        center.listenToAllNames(owner: owner, key: "a") { _, event in log.record("a all " + short(event.name)) }
        center.listenToAllNames(owner: owner, key: "b") { _, event in log.record("b all " + short(event.name)) }
        center.listenToAllNames(owner: other) { _, event in log.record("other all " + short(event.name)) }
    }
}

private func short(_ name: EventName) -> String {
    String(name.rawValue.dropFirst("spellings.".count))
}
