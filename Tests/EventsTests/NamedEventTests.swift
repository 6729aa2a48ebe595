import Foundation
import Testing

@testable import Events

// Names, keys and namespaces used by the named-event suites.

extension EventName {
    fileprivate static let saved: EventName = "test.saved"
    fileprivate static let deleted: EventName = "test.deleted"
}

extension PayloadKeys {
    fileprivate static let itemID = PayloadKey<String>("itemID")
    fileprivate static let count = PayloadKey<Int>("count")
    /// Same name as `count`, another type: reading through it must fail loudly.
    fileprivate static let countAsString = PayloadKey<String>("count")
    fileprivate static let ratio = PayloadKey<Double>("ratio")
}

enum AlbumEvents: String, EventNamespace {
    case listDidLoad
    case detailDidLoad
}

enum VideoEvents: String, EventNamespace {
    case listDidLoad
}

enum RenamedEvents: String, EventNamespace {
    static let namespace = "Legacy"
    case opened
}

/// Two unrelated types that produce the same namespace, for the collision exit test.
enum ClashingA: String, EventNamespace {
    static let namespace = "Clash"
    case ping
}

enum ClashingB: String, EventNamespace {
    static let namespace = "Clash"
    case pong
}

struct Document: Sendable, Equatable {
    let title: String
}

@Suite("Named events: names and namespaces")
struct EventNameTests {
    @Test func literalsInitializersAndRawValuesMakeEqualNames() {
        let literal: EventName = "test.saved"
        #expect(literal == EventName("test.saved"))
        #expect(literal == EventName(rawValue: "test.saved"))
        #expect(literal == .saved)
        #expect(literal != .deleted)
        #expect(literal.description == "test.saved")
        #expect(Set<EventName>([.saved, "test.saved", .deleted]).count == 2)
    }

    @Test func namespaceCaseIsQualifiedByItsTypeName() {
        #expect(AlbumEvents.listDidLoad.eventName == "AlbumEvents.listDidLoad")
        #expect(EventName(AlbumEvents.detailDidLoad) == "AlbumEvents.detailDidLoad")
        #expect(AlbumEvents.namespace == "AlbumEvents")
    }

    @Test func sameCaseInTwoNamespacesReachesOnlyItsOwnListeners() {
        let center = EventCenter()
        let log = Recorder<String>()
        let albums = center.listen(to: AlbumEvents.listDidLoad.eventName) { event in log.record("album \(event.name)") }
        let videos = center.listen(to: VideoEvents.listDidLoad.eventName) { event in log.record("video \(event.name)") }
        #expect(center.dispatch(AlbumEvents.listDidLoad.eventName) == 1)
        #expect(center.dispatch(VideoEvents.listDidLoad.eventName) == 1)
        #expect(log.values == ["album AlbumEvents.listDidLoad", "video VideoEvents.listDidLoad"])
        _ = (albums, videos)
    }

    @Test func namespaceCanBeChosenExplicitly() {
        #expect(RenamedEvents.opened.eventName == "Legacy.opened")
    }

    @Test func twoTypesClaimingOneNamespaceStopTheProgramWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ClashingA.ping.eventName
            _ = ClashingB.pong.eventName
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            message.contains(#"EventsTests.ClashingB and EventsTests.ClashingA both use the event namespace "Clash""#))
        #expect(message.contains("give one of them a distinct `static var namespace`"))
    }
}

@Suite("Named events: data and typed keys")
struct NamedEventPayloadTests {
    @Test func wholeDataIsReadWithItsType() throws {
        let center = EventCenter()
        let titles = Recorder<String>()
        let subscription = center.listen(to: .saved) { event in
            titles.record((try? event.data(as: Document.self).title) ?? "unreadable")
        }
        center.dispatch(.saved, data: Document(title: "Plan"))
        #expect(titles.values == ["Plan"])
        withExtendedLifetime(subscription) {}
    }

    @Test func keyedValuesAreReadThroughTypedKeys() throws {
        let event = NamedEvent(name: .saved, payload: Payload((.itemID, "a1"), (.count, 3)))
        #expect(try event[.itemID] == "a1")
        #expect(try event[.count] == 3)
        #expect(!event.hasData)
        #expect(event.payload.keys == ["count", "itemID"])
    }

    @Test func missingDataThrowsAnErrorNamingEventAndTypes() {
        let event = NamedEvent(name: .saved)
        let error = #expect(throws: NamedEventError.self) { _ = try event.data(as: Document.self) }
        #expect(error?.description == #"Named event "test.saved" has no data (expected Document, found nothing)."#)
        #expect(error?.problem == .missing)
        #expect(error?.key == nil)
        #expect(error?.actualType == nil)
    }

    @Test func dataOfAnotherTypeThrowsAnErrorNamingBothTypes() {
        let event = NamedEvent(name: .saved, data: "just a string")
        let error = #expect(throws: NamedEventError.self) { _ = try event.data(as: Document.self) }
        #expect(
            error?.description
                == #"Named event "test.saved" has data of the wrong type (expected Document, found String)."#)
        #expect(error?.eventName == .saved)
        #expect(error?.expectedType == "Document")
        #expect(error?.actualType == "String")
        #expect(error?.problem == .typeMismatch)
    }

    @Test func missingKeyThrowsAnErrorNamingEventKeyAndType() {
        let event = NamedEvent(name: .deleted, payload: Payload((.count, 1)))
        let error = #expect(throws: NamedEventError.self) { _ = try event[.itemID] }
        #expect(
            error?.description
                == #"Named event "test.deleted" has no value for key "itemID" (expected String, found nothing)."#)
        #expect(error?.key == "itemID")
        #expect(error?.problem == .missing)
    }

    @Test func valueOfAnotherTypeThrowsAnErrorNamingEventKeyAndBothTypes() {
        let event = NamedEvent(name: .deleted, payload: Payload((.count, 7)))
        let error = #expect(throws: NamedEventError.self) { _ = try event[.countAsString] }
        #expect(
            error?.description
                == #"Named event "test.deleted" has a value of the wrong type for key "count" (expected String, found Int)."#
        )
        #expect(error?.actualType == "Int")
        #expect(error?.problem == .typeMismatch)
    }

    @Test func optionalReadIsNilWhenAbsentButStillThrowsOnAnotherType() throws {
        let event = NamedEvent(name: .saved, payload: Payload((.count, 2)))
        #expect(try event.value(for: .itemID) == nil)
        #expect(try event.value(for: .count) == 2)
        #expect(throws: NamedEventError.self) { _ = try event.value(for: .countAsString) }
    }

    @Test func payloadBuildersSetReplaceAndRemoveValues() throws {
        var payload = Payload()
        #expect(payload.isEmpty)
        payload.set(.itemID, to: "x")
        payload.set(.itemID, to: "y")
        let more = payload.setting(.ratio, to: 0.5)
        #expect(payload.keys == ["itemID"])
        #expect(more.keys == ["itemID", "ratio"])
        #expect(more.contains(PayloadKeys.ratio))
        #expect(more.contains(PayloadKeys.countAsString) == false)
        var fewer = more
        fewer.remove(PayloadKeys.itemID)
        #expect(fewer.keys == ["ratio"])
        #expect(more.description == #"[itemID: "y", ratio: 0.5]"#)
        #expect(Payload().description == "[:]")
        #expect(try NamedEvent(name: .saved, payload: more)[.itemID] == "y")
        #expect(PayloadKeys.count.description == #""count" (Int)"#)
    }

    @Test func eventDescribesNameSenderDataAndPayload() {
        let center = EventCenter()
        let writer = Probe("writer")
        let seen = Recorder<String>()
        let subscription = center.listen(to: .saved) { event in seen.record(event.description) }
        center.dispatch(.saved, from: writer, data: 42, payload: Payload((.itemID, "a")))
        #expect(seen.values.count == 1)
        #expect(seen.values[0].hasPrefix(#"NamedEvent("test.saved" from Probe@0x"#))
        #expect(seen.values[0].hasSuffix(#", data: 42, payload: [itemID: "a"])"#))
        withExtendedLifetime(subscription) {}
    }
}

@Suite("Named events: listening and dispatching by name")
struct NamedListeningTests {
    @Test func listenerHearsOnlyItsNameAndEveryEventCarriesItsName() {
        let center = EventCenter()
        let log = Recorder<String>()
        let subscription = center.listen(to: .saved) { event in log.record(event.name.rawValue) }
        #expect(center.dispatch(.saved) == 1)
        #expect(center.dispatch(.deleted) == 0)
        #expect(center.dispatch("test.saved") == 1)
        #expect(log.values == ["test.saved", "test.saved"])
        withExtendedLifetime(subscription) {}
    }

    @Test func severalListenersOfOneNameRunByPriorityThenRegistrationOrder() {
        let center = EventCenter()
        let log = Recorder<String>()
        let subscriptions = [
            center.listen(to: .saved) { _ in log.record("a") },
            center.listen(to: .saved, priority: .low) { _ in log.record("last") },
            center.listen(to: .saved) { _ in log.record("b") },
            center.listen(to: .saved, priority: .high) { _ in log.record("first") },
        ]
        #expect(center.dispatch(.saved) == 4)
        #expect(log.values == ["first", "a", "b", "last"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test func senderFilterExcludesOtherSendersAndTheSenderIsHandedOver() {
        let center = EventCenter()
        let writer = Probe("writer")
        let other = Probe("other")
        let log = Recorder<String>()
        let fromWriter = center.listen(to: .saved, from: writer) { event in
            log.record("filtered: \(event.sender?.object(as: Probe.self)?.name ?? "nil")")
        }
        let fromAnyone = center.listen(to: .saved) { event in
            log.record("any: \(event.sender?.object(as: Probe.self)?.name ?? "nobody")")
        }
        #expect(center.dispatch(.saved, from: writer) == 2)
        #expect(center.dispatch(.saved, from: other) == 1)
        #expect(center.dispatch(.saved) == 1)
        #expect(log.values == ["filtered: writer", "any: writer", "any: other", "any: nobody"])
        _ = (fromWriter, fromAnyone)
    }

    @Test func senderFilterHoldsTheSenderWeakly() {
        let center = EventCenter()
        let deinits = Counter()
        var writer: Probe? = Probe { deinits.increment() }
        let subscription = center.listen(to: .saved, from: writer) { _ in }
        #expect(center.listenerCount(for: .saved) == 1)
        writer = nil
        #expect(deinits.value == 1)
        #expect(center.listenerCount(for: .saved) == 0)
        #expect(!subscription.isActive)
    }

    @Test func ownerBoundListenerReceivesItsOwnerAndEndsWhenTheOwnerDies() {
        let center = EventCenter()
        var owner: Probe? = Probe("screen")
        let log = Recorder<String>()
        center.listen(to: .saved, owner: owner!) { owner, event in log.record("\(owner.name) \(event.name)") }
        #expect(center.dispatch(.saved) == 1)
        owner = nil
        #expect(center.listenerCount(for: .saved) == 0)
        #expect(center.dispatch(.saved) == 0)
        #expect(log.values == ["screen test.saved"])
    }

    @Test func keyedRegistrationIsIgnoredWhenRepeatedForTheSameName() {
        let center = EventCenter()
        let owner = Probe()
        let calls = Counter()
        let first = center.listen(to: .saved, owner: owner, key: "refresh") { _, _ in calls.increment() }
        let again = center.listen(to: .saved, owner: owner, key: "refresh") { _, _ in calls.increment(by: 100) }
        center.listen(to: .deleted, owner: owner, key: "refresh") { _, _ in calls.increment() }
        center.listen(to: .saved, owner: owner, key: "refresh", from: Probe()) { _, _ in }
        #expect(first == again)
        #expect(center.listenerCount(for: .saved) == 1)
        #expect(center.listenerCount(for: .deleted) == 1)
        center.dispatch(.saved)
        #expect(calls.value == 1)
    }

    @Test func onceListenerHearsOneEvent() {
        let center = EventCenter()
        let log = Recorder<Int>()
        let subscription = center.listen(to: .saved, once: true) { event in log.record((try? event[.count]) ?? -1) }
        #expect(center.dispatch(.saved, payload: Payload((.count, 1))) == 1)
        #expect(center.dispatch(.saved, payload: Payload((.count, 2))) == 0)
        #expect(log.values == [1])
        #expect(!subscription.isActive)
    }

    @Test func droppingOrCancellingTheSubscriptionStopsTheListener() {
        let center = EventCenter()
        let calls = Counter()
        var dropped: Subscription? = center.listen(to: .saved) { _ in calls.increment() }
        let cancelled = center.listen(to: .saved) { _ in calls.increment() }
        #expect(center.dispatch(.saved) == 2)
        dropped = nil
        cancelled.cancel()
        #expect(center.dispatch(.saved) == 0)
        #expect(calls.value == 2)
        #expect(!center.hasListeners(for: .saved))
        withExtendedLifetime(dropped) {}
    }

    @Test func namedAndTypedEventsNeverReachEachOther() {
        let center = EventCenter()
        let log = Recorder<String>()
        let typed = center.listen(to: Tick.self) { _ in log.record("typed") }
        let named = center.listen(to: "Tick") { _ in log.record("named") }
        // Listening to NamedEvent itself is listening to every name.
        let all = center.listen(to: NamedEvent.self) { _ in log.record("all names") }
        #expect(center.dispatch(Tick(n: 1)) == 1)
        #expect(center.dispatch("Tick") == 2)
        #expect(log.values == ["typed", "named", "all names"])
        _ = (typed, named, all)
    }

    @Test func aNamedEventDispatchedAsAValueGoesOutUnderItsName() throws {
        let center = EventCenter()
        let log = Recorder<String>()
        let named = center.listen(to: "Tick") { event in log.record("named \(try event.data(as: Int.self))") }
        let all = center.listen(to: NamedEvent.self) { event in log.record("all \(event.name)") }
        let event = NamedEvent(name: "Tick", data: 7)
        #expect(center.dispatch(event) == 2)
        #expect(center.dispatchWithResult(event).received == 2)
        #expect(log.values == ["named 7", "all Tick", "named 7", "all Tick"])
        _ = (named, all)
    }

    @Test func dispatchingAReceivedEventPassesOnItsNameDataAndPayload() throws {
        let first = EventCenter()
        let second = EventCenter()
        let relay = Probe("relay")
        let received = Recorder<NamedEvent>()
        let forward = first.listen(to: .saved) { event in second.dispatch(event, from: relay) }
        let sink = second.listen(to: .saved) { event in received.record(event) }
        #expect(
            first.dispatch(.saved, from: Probe("origin"), data: Document(title: "T"), payload: Payload((.count, 5)))
                == 1)
        let event = try #require(received.values.first)
        #expect(try event.data(as: Document.self) == Document(title: "T"))
        #expect(try event[.count] == 5)
        #expect(event.sender === relay)
        _ = (forward, sink)
    }

    @Test func countsIncludeListenersOfEveryName() {
        let center = EventCenter()
        #expect(!center.hasListeners(for: .saved))
        let one = center.listen(to: .saved) { _ in }
        let all = center.listen(to: NamedEvent.self) { _ in }
        #expect(center.listenerCount(for: .saved) == 2)
        #expect(center.listenerCount(for: .deleted) == 1)
        #expect(center.listenerCount(for: NamedEvent.self) == 1)
        #expect(center.hasListeners(for: .deleted))
        _ = (one, all)
    }
}

@Suite("Named events: listening to every name")
struct AllNamesTests {
    @Test func allNamesListenerHearsEveryNameButNoTypedEvent() {
        let center = EventCenter()
        let names = Recorder<String>()
        let subscription = center.listen(to: NamedEvent.self) { event in names.record(event.name.rawValue) }
        center.dispatch(.saved)
        center.dispatch(.deleted)
        center.dispatch(Tick(n: 1))
        center.dispatch(AlbumEvents.listDidLoad.eventName)
        #expect(names.values == ["test.saved", "test.deleted", "AlbumEvents.listDidLoad"])
        withExtendedLifetime(subscription) {}
    }

    @Test func listenersOfTheNameAndOfEveryNameShareOneOrder() {
        let center = EventCenter()
        let log = Recorder<String>()
        let subscriptions = [
            center.listen(to: .saved) { _ in log.record("name 1") },
            center.listen(to: NamedEvent.self) { _ in log.record("all 2") },
            center.listen(to: .saved, priority: .low) { _ in log.record("name low") },
            center.listen(to: NamedEvent.self, priority: .high) { _ in log.record("all high") },
            center.listen(to: .saved) { _ in log.record("name 3") },
            center.listen(to: NamedEvent.self, priority: .low) { _ in log.record("all low") },
            center.listen(to: .saved, priority: .high) { _ in log.record("name high") },
        ]
        #expect(center.dispatch(.saved) == 7)
        #expect(log.values == ["all high", "name high", "name 1", "all 2", "name 3", "name low", "all low"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test func onceListenerOfEveryNameHearsOneEventInTotal() {
        let center = EventCenter()
        let names = Recorder<String>()
        let subscription = center.listen(to: NamedEvent.self, once: true) { event in names.record(event.name.rawValue) }
        center.dispatch(.saved)
        center.dispatch(.deleted)
        #expect(names.values == ["test.saved"])
        #expect(center.listenerCount(for: NamedEvent.self) == 0)
        withExtendedLifetime(subscription) {}
    }

    @Test func allNamesListenerWithSenderFilterHearsOnlyThatSender() {
        let center = EventCenter()
        let writer = Probe()
        let calls = Counter()
        let subscription = center.listen(to: NamedEvent.self, from: writer) { _ in calls.increment() }
        center.dispatch(.saved, from: writer)
        center.dispatch(.deleted, from: Probe())
        center.dispatch(.deleted)
        #expect(calls.value == 1)
        withExtendedLifetime(subscription) {}
    }

    @Test func ownerBoundListenerOfEveryNameIsDeduplicatedAndEndsWithItsOwner() {
        let center = EventCenter()
        var owner: Probe? = Probe("logger")
        let log = Recorder<String>()
        for _ in 0..<3 {
            center.listen(to: NamedEvent.self, owner: owner!, key: "log") { owner, event in
                log.record("\(owner.name) \(event.name)")
            }
        }
        center.listen(to: NamedEvent.self, owner: owner!) { _, _ in log.record("unkeyed") }
        #expect(center.listenerCount(for: NamedEvent.self) == 2)
        center.dispatch(.saved)
        owner = nil
        center.dispatch(.deleted)
        #expect(log.values == ["logger test.saved", "unkeyed"])
        #expect(center.listenerCount(for: NamedEvent.self) == 0)
    }
}

@Suite("Named events: removal by owner, name and key")
struct NamedRemovalTests {
    private func register(_ center: EventCenter, _ owner: Probe, log: Recorder<String>) {
        center.listen(to: .saved, owner: owner, key: "a") { _, _ in log.record("saved a") }
        center.listen(to: .saved, owner: owner, key: "b") { _, _ in log.record("saved b") }
        center.listen(to: .saved, owner: owner) { _, _ in log.record("saved") }
        center.listen(to: .deleted, owner: owner, key: "a") { _, _ in log.record("deleted a") }
        center.listen(to: NamedEvent.self, owner: owner, key: "a") { _, event in log.record("all a \(event.name)") }
        center.listen(to: NamedEvent.self, owner: owner) { _, event in log.record("all \(event.name)") }
        center.listen(to: Tick.self, owner: owner, key: "a") { _, _ in log.record("tick a") }
    }

    private func fire(_ center: EventCenter) {
        center.dispatch(.saved)
        center.dispatch(.deleted)
        center.dispatch(Tick(n: 0))
    }

    @Test func removeOwnerEndsItsNamedTypedAndAllNamesListeners() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        register(center, owner, log: log)
        center.remove(owner)
        fire(center)
        #expect(log.values.isEmpty)
    }

    @Test func removeOwnerForNameKeepsOtherNamesAndEveryNameListeners() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        register(center, owner, log: log)
        center.remove(owner, for: .saved)
        fire(center)
        #expect(
            log.values == [
                "all a test.saved", "all test.saved", "deleted a", "all a test.deleted", "all test.deleted", "tick a",
            ])
    }

    @Test func removeOwnerKeyForNameEndsExactlyOne() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        register(center, owner, log: log)
        center.remove(owner, key: "a", for: .saved)
        center.dispatch(.saved)
        #expect(log.values == ["saved b", "saved", "all a test.saved", "all test.saved"])
    }

    @Test func removeOwnerKeyEndsThatKeyForNamesTypesAndEveryName() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        register(center, owner, log: log)
        center.remove(owner, key: "a")
        fire(center)
        #expect(log.values == ["saved b", "saved", "all test.saved", "all test.deleted"])
    }

    @Test func removeAllNamesListenersKeepsListenersOfSingleNames() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        register(center, owner, log: log)
        center.remove(owner, key: "a", for: NamedEvent.self)
        #expect(center.listenerCount(for: NamedEvent.self) == 1)
        center.remove(owner, for: NamedEvent.self)
        #expect(center.listenerCount(for: NamedEvent.self) == 0)
        fire(center)
        #expect(log.values == ["saved a", "saved b", "saved", "deleted a", "tick a"])
    }

    @Test func removingWhatIsNotRegisteredDoesNothing() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        center.remove(owner, for: .saved)
        center.remove(owner, key: "a", for: .saved)
        center.remove(owner, for: NamedEvent.self)
        register(center, owner, log: log)
        center.remove(Probe(), for: .saved)
        center.remove(owner, key: "zzz", for: .saved)
        center.remove(owner, key: "zzz", for: NamedEvent.self)
        center.dispatch(.saved)
        #expect(log.values.count == 5)
    }
}

@Suite("Named events: handlers may dispatch, listen, cancel and remove")
struct NamedReentrancyTests {
    @Test func nestedNamedDispatchIsDeliveredDepthFirst() {
        let center = EventCenter()
        let log = Recorder<String>()
        let subscriptions = [
            center.listen(to: .saved, priority: 1) { _ in
                log.record("saved")
                center.dispatch(.deleted)
                log.record("saved done")
            },
            center.listen(to: .saved) { _ in log.record("saved 2") },
            center.listen(to: NamedEvent.self, priority: -1) { event in log.record("all \(event.name)") },
        ]
        center.dispatch(.saved)
        #expect(log.values == ["saved", "all test.deleted", "saved done", "saved 2", "all test.saved"])
        withExtendedLifetime(subscriptions) {}
    }

    @Test func listenerAddedDuringDispatchMissesItButHearsTheNext() {
        let center = EventCenter()
        let log = Recorder<String>()
        let added = Recorder<Subscription>()
        let subscription = center.listen(to: .saved) { _ in
            log.record("first")
            if added.values.isEmpty {
                added.record(center.listen(to: NamedEvent.self) { _ in log.record("added") })
            }
        }
        #expect(center.dispatch(.saved) == 1)
        #expect(center.dispatch(.saved) == 2)
        #expect(log.values == ["first", "first", "added"])
        withExtendedLifetime(subscription) {}
    }

    @Test func listenerCancelledByAnEveryNameListenerIsNotCalledInThatDispatch() {
        let center = EventCenter()
        let log = Recorder<String>()
        let victims = Recorder<Subscription>()
        let canceller = center.listen(to: NamedEvent.self, priority: .high) { _ in
            log.record("canceller")
            victims.values.forEach { $0.cancel() }
        }
        victims.record(center.listen(to: .saved) { _ in log.record("victim") })
        #expect(center.dispatch(.saved) == 1)
        #expect(log.values == ["canceller"])
        #expect(center.listenerCount(for: .saved) == 1)
        withExtendedLifetime(canceller) {}
    }

    @Test func handlerUsingTheCenterFromAnotherThreadDoesNotDeadlock() {
        let center = EventCenter()
        let owner = Probe()
        let log = Recorder<String>()
        let subscription = center.listen(to: .saved) { _ in
            DispatchQueue.global().sync {
                let inner = center.listen(to: NamedEvent.self) { event in log.record("inner \(event.name)") }
                center.dispatch(.deleted)
                center.listen(to: .deleted, owner: owner) { _, _ in }
                center.remove(owner, for: .deleted)
                inner.cancel()
                log.record("count \(center.listenerCount(for: .deleted))")
            }
        }
        #expect(center.dispatch(.saved) == 1)
        #expect(log.values == ["inner test.deleted", "count 0"])
        withExtendedLifetime(subscription) {}
    }
}

@Suite("Named events: any thread, exact counts")
struct NamedConcurrencyTests {
    @Test func severalThreadsDispatchingNamesDeliverExactCounts() async {
        let center = EventCenter()
        let threads = 4
        let dispatchesEach = 1_000
        let names: [EventName] = ["n0", "n1", "n2"]
        let perName = names.map { _ in Counter() }
        let subscriptions = names.indices.map { index in
            center.listen(to: names[index]) { _ in perName[index].increment() }
        }
        let everyName = Counter()
        let all = center.listen(to: NamedEvent.self) { _ in everyName.increment() }
        let onceCounters = (0..<5).map { _ in Counter() }
        let onces = onceCounters.map { counter in
            center.listen(to: NamedEvent.self, once: true) { _ in counter.increment() }
        }
        let owner = Probe()
        center.listen(to: "n0", owner: owner, key: "k") { owner, _ in owner.received.increment() }
        let delivered = Counter()
        let payloadErrors = Counter()
        let reader = center.listen(to: "n1") { event in
            if (try? event[.count]) == nil { payloadErrors.increment() }
        }

        await runOnThreads(threads) { thread in
            for n in 0..<dispatchesEach {
                let name = names[(thread + n) % names.count]
                delivered.increment(by: center.dispatch(name, payload: Payload((.count, n))))
                // Racing registrations of the same keyed listener stay one listener.
                center.listen(to: "n0", owner: owner, key: "k") { owner, _ in owner.received.increment() }
            }
        }

        let total = threads * dispatchesEach
        #expect(perName.map(\.value).reduce(0, +) == total)
        #expect(everyName.value == total)
        for counter in onceCounters { #expect(counter.value == 1) }
        let n0 = perName[0].value
        #expect(owner.received.value == n0)
        #expect(payloadErrors.value == 0)
        // Per dispatch: its name's listener and the every-name one; plus n0's owner and n1's reader.
        #expect(delivered.value == total * 2 + n0 + perName[1].value + onceCounters.count)
        #expect(center.listenerCount(for: "n0") == 3)
        _ = (subscriptions, all, onces, reader)
    }

    @Test func concurrentListenCancelAndRemoveOfNamesLeaveNothingBehind() async {
        let center = EventCenter()
        await runOnThreads(4) { thread in
            for n in 0..<400 {
                let owner = Probe()
                let name = EventName("churn.\(n % 5)")
                let closure = center.listen(to: name) { _ in }
                let all = center.listen(to: NamedEvent.self) { _ in }
                center.listen(to: name, owner: owner, key: n % 3) { _, _ in }
                center.listen(to: NamedEvent.self, owner: owner) { _, _ in }
                center.dispatch(name)
                if n % 2 == thread % 2 { center.remove(owner) }
                closure.cancel()
                all.cancel()
            }
        }
        for n in 0..<5 { #expect(center.listenerCount(for: EventName("churn.\(n)")) == 0) }
        #expect(center.listenerCount(for: NamedEvent.self) == 0)
    }
}

@Suite("Named events: the seed 000 API, call by call")
struct SeedAPIEquivalenceTests {
    /// The seed's listener: a target whose "selectors" are the keys of its registrations.
    final class Listener: Sendable {
        let log = Recorder<String>()
        func onWrite(_ event: NamedEvent) {
            log.record("onWrite \(event.name) \((try? event.data(as: String.self)) ?? "-")")
        }
        func onOther(_ event: NamedEvent) { log.record("onOther \(event.name)") }
    }

    private func add(_ listener: Listener, to center: EventCenter) {
        // add:selector:eventName:, twice each: the seed ignores duplicates, and so do keys.
        for _ in 0..<2 {
            center.listen(to: "eventWrite", owner: listener, key: "onWrite") { me, event in me.onWrite(event) }
            center.listen(to: "eventRead", owner: listener, key: "onWrite") { me, event in me.onWrite(event) }
            center.listen(to: "eventWrite", owner: listener, key: "onOther") { me, event in me.onOther(event) }
        }
    }

    @Test func addIgnoresDuplicatesAndDispatchCarriesDispatcherAndData() throws {
        let center = EventCenter()
        let listener = Listener()
        let writer = Probe("writer")
        let dispatchers = Recorder<String>()
        add(listener, to: center)
        let spy = center.listen(to: "eventWrite") { event in
            dispatchers.record(event.sender?.object(as: Probe.self)?.name ?? "none")
        }
        #expect(center.dispatch("eventWrite", from: writer) == 3)  // dispatch:eventName:
        #expect(center.dispatch("eventWrite", from: writer, data: "post") == 3)  // dispatch:eventName:data:
        #expect(
            listener.log.values == [
                "onWrite eventWrite -", "onOther eventWrite", "onWrite eventWrite post", "onOther eventWrite",
            ])
        #expect(dispatchers.values == ["writer", "writer"])
        withExtendedLifetime(spy) {}
    }

    @Test func removeListenerEndsEverything() {
        let center = EventCenter()
        let listener = Listener()
        add(listener, to: center)
        center.remove(listener)  // remove:
        center.dispatch("eventWrite")
        center.dispatch("eventRead")
        #expect(listener.log.values.isEmpty)
    }

    @Test func removeListenerSelectorEndsThatSelectorForEveryName() {
        let center = EventCenter()
        let listener = Listener()
        add(listener, to: center)
        center.remove(listener, key: "onWrite")  // remove:selector:
        center.dispatch("eventWrite")
        center.dispatch("eventRead")
        #expect(listener.log.values == ["onOther eventWrite"])
    }

    @Test func removeListenerSelectorNameEndsExactlyOne() {
        let center = EventCenter()
        let listener = Listener()
        add(listener, to: center)
        center.remove(listener, key: "onWrite", for: "eventWrite")  // remove:selector:eventName:
        center.dispatch("eventWrite")
        center.dispatch("eventRead")
        #expect(listener.log.values == ["onOther eventWrite", "onWrite eventRead -"])
    }
}
