import Foundation
import Testing

@testable import Events

extension Notification.Name {
    fileprivate static let shapeAdded = Notification.Name("bridge.shapeAdded")
    fileprivate static let shapeRemoved = Notification.Name("bridge.shapeRemoved")
}

extension PayloadKeys {
    fileprivate static let shapeID = PayloadKey<String>("shapeID")
    fileprivate static let size = PayloadKey<Int>("size")
    fileprivate static let tint = PayloadKey<Tint>("tint")
    fileprivate static let wrapped = PayloadKey<String>("wrapped")
}

/// A Sendable value type the bridge does not know: it crosses only when a key names it.
struct Tint: Sendable, Equatable {
    let hue: Int
}

/// Something that is not Sendable at all.
final class Canvas {
    var strokes = 0
}

struct ShapeAdded: Event, Equatable {
    let shapeID: String
}

@Suite("NotificationCenter bridge: notifications into the event center")
struct NotificationForwardingTests {
    @Test func forwardedNotificationArrivesWithItsObjectAndUserInfo() throws {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let board = Probe("board")
        let received = Recorder<NamedEvent>()
        let bridge = center.forwardNotifications(named: .shapeAdded, from: notifications)
        let subscription = center.listen(to: EventName(Notification.Name.shapeAdded)) { event in received.record(event)
        }

        notifications.post(name: .shapeAdded, object: board, userInfo: ["shapeID": "s1", "size": 3])

        // Delivered synchronously inside `post`.
        let event = try #require(received.values.first)
        #expect(received.values.count == 1)
        #expect(event.name == "bridge.shapeAdded")
        #expect(event.sender === board)
        #expect(event.sender?.object(as: Probe.self)?.name == "board")
        #expect(try event[.shapeID] == "s1")
        #expect(try event[.size] == 3)
        #expect(event.payload.unbridgedValues.isEmpty)
        _ = (bridge, subscription)
    }

    @Test func severalObserversOfOneNameAllHearIt() {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let log = Recorder<String>()
        let bridge = center.forwardNotifications(named: .shapeAdded, from: notifications)
        let subscriptions = (1...3).map { index in
            center.listen(to: "bridge.shapeAdded") { _ in log.record("listener \(index)") }
        }
        let everything = center.listen(to: NamedEvent.self) { event in log.record("all \(event.name)") }
        notifications.post(name: .shapeAdded, object: nil)
        #expect(log.values == ["listener 1", "listener 2", "listener 3", "all bridge.shapeAdded"])
        _ = (bridge, subscriptions, everything)
    }

    @Test func senderFiltersExcludeOtherObjects() {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let board = Probe("board")
        let other = Probe("other")
        let log = Recorder<String>()
        // Filtered at the bridge (NotificationCenter's object:) and at the listener (from:).
        let onlyBoard = center.forwardNotifications(
            named: .shapeAdded, from: notifications, object: board, as: "board.shapeAdded")
        let everyone = center.forwardNotifications(named: .shapeAdded, from: notifications)
        let listeners = [
            center.listen(to: "board.shapeAdded") { event in
                log.record("bridge-filtered \(event.sender?.object(as: Probe.self)?.name ?? "nil")")
            },
            center.listen(to: "bridge.shapeAdded", from: other) { _ in log.record("listener-filtered other") },
        ]
        notifications.post(name: .shapeAdded, object: board)
        notifications.post(name: .shapeAdded, object: other)
        notifications.post(name: .shapeAdded, object: nil)
        #expect(log.values == ["bridge-filtered board", "listener-filtered other"])
        _ = (onlyBoard, everyone, listeners)
    }

    @Test func valueThatIsNotKnownToBeSendableIsReportedNotDropped() throws {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let received = Recorder<NamedEvent>()
        let bridge = center.forwardNotifications(named: .shapeAdded, from: notifications)
        let subscription = center.listen(to: "bridge.shapeAdded") { event in received.record(event) }

        notifications.post(name: .shapeAdded, object: nil, userInfo: ["shapeID": "s2", "canvas": Canvas()])

        let event = try #require(received.values.first)
        #expect(try event[.shapeID] == "s2")
        #expect(event.payload.keys == ["shapeID"])
        #expect(event.payload.unbridgedValues == ["canvas": "Canvas"])
        let canvasKey = PayloadKey<String>("canvas")
        let error = #expect(throws: NamedEventError.self) { _ = try event[canvasKey] }
        #expect(error?.problem == .notBridged)
        #expect(error?.actualType == "Canvas")
        #expect(
            error?.description
                == #"Named event "bridge.shapeAdded" has no value for key "canvas" (expected String, found Canvas): "#
                + #"the notification's value was not carried because its type is not known to be Sendable; "#
                + #"if it is, list a PayloadKey for "canvas" in the bridge's keys."#)
        #expect(event.description.contains("canvas: <not carried: Canvas>"))
        _ = (bridge, subscription)
    }

    @Test func keysCarryValuesOfTheirTypeThatTheBridgeDoesNotKnow() throws {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let received = Recorder<NamedEvent>()
        let plain = center.forwardNotifications(named: .shapeAdded, from: notifications)
        let keyed = center.forwardNotifications(
            named: .shapeAdded, from: notifications, as: "keyed", keys: [PayloadKeys.tint, PayloadKeys.size])
        let subscriptions = [
            center.listen(to: "bridge.shapeAdded") { event in received.record(event) },
            center.listen(to: "keyed") { event in received.record(event) },
        ]

        notifications.post(
            name: .shapeAdded, object: nil, userInfo: ["tint": Tint(hue: 120), "size": NSNumber(value: 7)])

        // NotificationCenter does not promise an order between its observers: find each by name.
        try #require(received.values.count == 2)
        let unkeyed = try #require(received.values.first { $0.name == "bridge.shapeAdded" })
        let withKeys = try #require(received.values.first { $0.name == "keyed" })
        #expect(unkeyed.payload.unbridgedValues == ["tint": "Tint", "size": "NSNumber"])
        #expect(try withKeys[.tint] == Tint(hue: 120))
        #expect(try withKeys[.size] == 7)
        _ = (plain, keyed, subscriptions)
    }

    @Test func valueOfTheWrongTypeForAKeyIsReportedWithBothTypes() throws {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let received = Recorder<NamedEvent>()
        let bridge = center.forwardNotifications(named: .shapeAdded, from: notifications, keys: [PayloadKeys.size])
        let subscription = center.listen(to: "bridge.shapeAdded") { event in received.record(event) }
        notifications.post(name: .shapeAdded, object: nil, userInfo: ["size": "large"])
        let event = try #require(received.values.first)
        let error = #expect(throws: NamedEventError.self) { _ = try event[.size] }
        #expect(
            error?.description
                == #"Named event "bridge.shapeAdded" has a value of the wrong type for key "size" (expected Int, found String)."#
        )
        _ = (bridge, subscription)
    }

    @Test func valueObjectBecomesTheEventData() throws {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let received = Recorder<NamedEvent>()
        let bridge = center.forwardNotifications(named: .shapeAdded, from: notifications)
        let subscription = center.listen(to: "bridge.shapeAdded") { event in received.record(event) }
        notifications.post(name: .shapeAdded, object: "a string object")
        notifications.post(name: .shapeAdded, object: Tint(hue: 1))
        let events = received.values
        try #require(events.count == 2)
        #expect(events[0].sender == nil)
        #expect(try events[0].data(as: String.self) == "a string object")
        let error = #expect(throws: NamedEventError.self) { _ = try events[1].data(as: Tint.self) }
        #expect(
            error?.description
                == #"Named event "bridge.shapeAdded" has no data (expected Tint, found Tint): the notification's "#
                + #"object was not carried because its type is not known to be Sendable; forward the notification "#
                + #"as a typed event to carry it."#)
        _ = (bridge, subscription)
    }

    @Test func notificationMappedToATypedEventByAClosure() {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let board = Probe("board")
        let log = Recorder<String>()
        let bridge = center.forwardNotifications(named: .shapeAdded, from: notifications) { notification in
            (notification.userInfo?["shapeID"] as? String).map(ShapeAdded.init(shapeID:))
        }
        let subscription = center.listen(to: Sent<ShapeAdded>.self) { sent in
            log.record("\(sent.event.shapeID) from \(sent.sender?.object(as: Probe.self)?.name ?? "nobody")")
        }
        notifications.post(name: .shapeAdded, object: board, userInfo: ["shapeID": "s9"])
        notifications.post(name: .shapeAdded, object: nil, userInfo: [:])  // transform returns nil: skipped
        notifications.post(name: .shapeAdded, object: nil, userInfo: ["shapeID": "s10"])
        #expect(log.values == ["s9 from board", "s10 from nobody"])
        _ = (bridge, subscription)
    }

    @Test func cancellingTheBridgeStopsForwardingAndRemovesTheObserver() {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let calls = Counter()
        let subscription = center.listen(to: "bridge.shapeAdded") { _ in calls.increment() }
        var bridge: Subscription? = center.forwardNotifications(named: .shapeAdded, from: notifications)
        weak let record = bridge?.record
        notifications.post(name: .shapeAdded, object: nil)
        bridge?.cancel()
        #expect(bridge?.isActive == false)
        notifications.post(name: .shapeAdded, object: nil)
        #expect(calls.value == 1)
        bridge = nil
        // The observer block held the record: it is gone, so NotificationCenter let go of it.
        #expect(record == nil)
        withExtendedLifetime(subscription) {}
    }

    @Test func droppingTheBridgeStopsForwardingAndRemovesTheObserver() {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let calls = Counter()
        let subscription = center.listen(to: "bridge.shapeAdded") { _ in calls.increment() }
        var bridge: Subscription? = center.forwardNotifications(named: .shapeAdded, from: notifications)
        weak let record = bridge?.record
        notifications.post(name: .shapeAdded, object: nil)
        bridge = nil
        #expect(record == nil)
        notifications.post(name: .shapeAdded, object: nil)
        #expect(calls.value == 1)
        withExtendedLifetime(subscription) {}
    }

    @Test func notificationNamesAndEventNamesConvertBothWays() {
        #expect(EventName(Notification.Name.shapeAdded) == "bridge.shapeAdded")
        #expect(EventName("bridge.shapeRemoved").notificationName == .shapeRemoved)
    }
}

@Suite("NotificationCenter bridge: events into NotificationCenter")
struct NotificationPostingTests {
    @Test func typedEventIsPostedWithItsSenderAsObjectAndItselfInUserInfo() throws {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let board = Probe("board")
        let seen = Recorder<String>()
        let bridge = center.postNotifications(for: ShapeAdded.self, to: notifications, named: .shapeAdded)
        let observer = notifications.addObserver(forName: .shapeAdded, object: nil, queue: nil) { note in
            let event = note.userInfo?[NotificationBridge.eventKey] as? ShapeAdded
            seen.record("\(event?.shapeID ?? "?") object: \((note.object as? Probe)?.name ?? "nil")")
        }
        #expect(center.dispatch(ShapeAdded(shapeID: "s1"), from: board) == 1)
        center.dispatch(ShapeAdded(shapeID: "s2"))
        #expect(seen.values == ["s1 object: board", "s2 object: nil"])
        notifications.removeObserver(observer)
        withExtendedLifetime(bridge) {}
    }

    @Test func typedEventUsesTheGivenUserInfoAndSenderFilter() {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let board = Probe("board")
        let seen = Recorder<String>()
        let bridge = center.postNotifications(
            for: ShapeAdded.self, to: notifications, named: .shapeAdded, from: board
        ) { event in ["shapeID": event.shapeID] }
        let observer = notifications.addObserver(forName: .shapeAdded, object: board, queue: nil) { note in
            seen.record(note.userInfo?["shapeID"] as? String ?? "?")
        }
        center.dispatch(ShapeAdded(shapeID: "from board"), from: board)
        center.dispatch(ShapeAdded(shapeID: "from elsewhere"), from: Probe())
        #expect(seen.values == ["from board"])
        notifications.removeObserver(observer)
        withExtendedLifetime(bridge) {}
    }

    @Test func namedEventIsPostedWithItsPayloadAndData() {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let board = Probe("board")
        let seen = Recorder<String>()
        let bridge = center.postNotifications(for: "bridge.shapeRemoved", to: notifications)
        let renamed = center.postNotifications(for: "bridge.shapeRemoved", to: notifications, as: .shapeAdded)
        let observers = [Notification.Name.shapeRemoved, .shapeAdded].map { name in
            notifications.addObserver(forName: name, object: nil, queue: nil) { note in
                let info = note.userInfo ?? [:]
                seen.record(
                    "\(note.name.rawValue) \(info["shapeID"] as? String ?? "-") \(info["size"] as? Int ?? -1) "
                        + "\(info[NotificationBridge.dataKey] as? String ?? "-") \((note.object as? Probe)?.name ?? "nil")"
                )
            }
        }
        center.dispatch(
            "bridge.shapeRemoved", from: board, data: "gone", payload: Payload((.shapeID, "s4"), (.size, 2)))
        center.dispatch("bridge.shapeRemoved")
        #expect(
            seen.values == [
                "bridge.shapeRemoved s4 2 gone board", "bridge.shapeAdded s4 2 gone board",
                "bridge.shapeRemoved - -1 - nil", "bridge.shapeAdded - -1 - nil",
            ])
        observers.forEach(notifications.removeObserver)
        _ = (bridge, renamed)
    }

    @Test func cancelledPostingBridgePostsNothing() {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let posted = Counter()
        let bridge = center.postNotifications(for: ShapeAdded.self, to: notifications, named: .shapeAdded)
        let observer = notifications.addObserver(forName: .shapeAdded, object: nil, queue: nil) { _ in
            posted.increment()
        }
        center.dispatch(ShapeAdded(shapeID: "a"))
        bridge.cancel()
        #expect(center.dispatch(ShapeAdded(shapeID: "b")) == 0)
        #expect(posted.value == 1)
        notifications.removeObserver(observer)
    }
}

@Suite("NotificationCenter bridge: both directions")
struct NotificationRoundTripTests {
    @Test func bridgingOneNameBothWaysDeliversEachEventOnceOnEachSide() {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let log = Recorder<String>()
        let inbound = center.forwardNotifications(named: .shapeAdded, from: notifications)
        let outbound = center.postNotifications(for: "bridge.shapeAdded", to: notifications)
        let listener = center.listen(to: "bridge.shapeAdded") { event in
            log.record("center: \((try? event[.shapeID]) ?? "?")")
        }
        let observer = notifications.addObserver(forName: .shapeAdded, object: nil, queue: nil) { note in
            log.record("notifications: \(note.userInfo?["shapeID"] as? String ?? "?")")
        }
        center.dispatch("bridge.shapeAdded", payload: Payload((.shapeID, "from center")))
        notifications.post(name: .shapeAdded, object: nil, userInfo: ["shapeID": "from notifications"])
        // Each side hears each event once (in whatever order each side runs its observers).
        #expect(
            log.values.sorted() == [
                "center: from center", "center: from notifications",
                "notifications: from center", "notifications: from notifications",
            ])
        notifications.removeObserver(observer)
        _ = (inbound, outbound, listener)
    }

    @Test func twoCentersTalkThroughOneNotificationCenter() throws {
        let notifications = NotificationCenter()
        let sending = EventCenter()
        let receiving = EventCenter()
        let received = Recorder<ShapeAdded>()
        let out = sending.postNotifications(for: ShapeAdded.self, to: notifications, named: .shapeAdded)
        let inbound = receiving.forwardNotifications(named: .shapeAdded, from: notifications)
        let listener = receiving.listen(to: "bridge.shapeAdded") { event in
            if let shape = try? event[PayloadKey<ShapeAdded>(NotificationBridge.eventKey)] { received.record(shape) }
        }
        sending.dispatch(ShapeAdded(shapeID: "s7"))
        #expect(received.values == [ShapeAdded(shapeID: "s7")])
        _ = (out, inbound, listener)
    }

    @Test func notificationsPostedFromSeveralThreadsAreForwardedExactlyOnce() async {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let threads = 4
        let postsEach = 500
        let sums = (0..<threads).map { _ in Counter() }
        let received = Counter()
        let bridge = center.forwardNotifications(named: .shapeAdded, from: notifications, keys: [PayloadKeys.size])
        let listener = center.listen(to: "bridge.shapeAdded") { event in
            received.increment()
            if let size = try? event[.size], let thread = try? event[.shapeID] {
                sums[Int(thread)!].increment(by: size)
            }
        }
        await runOnThreads(threads) { thread in
            for n in 1...postsEach {
                notifications.post(name: .shapeAdded, object: nil, userInfo: ["shapeID": String(thread), "size": n])
            }
        }
        #expect(received.value == threads * postsEach)
        for sum in sums { #expect(sum.value == postsEach * (postsEach + 1) / 2) }
        _ = (bridge, listener)
    }
}
