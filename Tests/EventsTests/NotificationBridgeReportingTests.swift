import Foundation
import Testing

@testable import Events

extension Notification.Name {
    fileprivate static let report = Notification.Name("bridge.report")
}

/// A key that prints as its text, whatever its identity: two of them can print alike.
private struct PrintedKey: Hashable, Sendable, CustomStringConvertible {
    let id: Int
    let text: String
    var description: String { text }
}

/// An enum key whose raw value prints like a string key.
private enum RawKey: String {
    case shape
}

/// Forwards one notification with `userInfo` into a fresh center and returns the event it made.
private func forwarded(
    _ userInfo: [AnyHashable: Any], keys: [PayloadKeys] = [], object: Any? = nil
) throws -> NamedEvent {
    let notifications = NotificationCenter()
    let center = EventCenter()
    let received = Recorder<NamedEvent>()
    let bridge = center.forwardNotifications(named: .report, from: notifications, keys: keys)
    let listener = center.listen(to: "bridge.report") { event in received.record(event) }
    notifications.post(name: .report, object: object, userInfo: userInfo)
    _ = (bridge, listener)
    try #require(received.values.count == 1)
    return received.values[0]
}

/// Every `userInfo` entry is accounted for: a value under a name, or a report under a name.
private func accounted(_ event: NamedEvent) -> Int {
    event.payload.keys.count + event.payload.unbridgedValues.count
}

@Suite("NotificationCenter bridge: every userInfo value is carried or reported")
struct NotificationBridgeReportingTests {
    @Test("keys that print alike lose nothing: seventeen entries make seventeen slots")
    func keysThatPrintAlikeLoseNothing() throws {
        var userInfo: [AnyHashable: Any] = [:]
        for n in 0..<8 { userInfo[String(n)] = "text \(n)" }  // carried
        for n in 10..<18 { userInfo[n] = Canvas() }  // not carried: not known to be Sendable
        userInfo[5] = "the Int key"  // prints as "5", as the String key "5" does
        #expect(userInfo.count == 17)

        let event = try forwarded(userInfo)

        #expect(accounted(event) == 17)
        #expect(event.payload.keys.count == 8)
        #expect(event.payload.unbridgedValues.count == 9)
        // The String key owns its name; the Int key is reported under a name that says its type.
        #expect(try event[PayloadKey<String>("5")] == "text 5")
        #expect(event.payload.unbridgedValues["5 (key of type Int)"] == "String")
        let error = #expect(throws: NamedEventError.self) {
            _ = try event[PayloadKey<String>("5 (key of type Int)")]
        }
        #expect(error?.problem == .notBridged)
        #expect(
            error?.description
                == #"Named event "bridge.report" has no value for key "5 (key of type Int)" (expected String, "#
                + #"found String): the notification's value was not carried because its key, of type Int, prints "#
                + #"as "5" like another key of the notification, so no PayloadKey can tell them apart; forward the "#
                + #"notification as a typed event to read it from userInfo."#)
    }

    @Test("every kind of key that prints like another is reported under its own name")
    func everyKindOfLookalikeKeyIsReported() throws {
        let userInfo: [AnyHashable: Any] = [
            "a": "String a", NSString(string: "a"): "NSString a",  // a String and an NSString
            "1": "String 1", NSNumber(value: true): "NSNumber true",  // an NSNumber prints as 1
            "shape": "String shape", RawKey.shape: "enum shape",  // an enum's raw value
            "c": "String c", Substring("c"): "Substring c",  // a Substring
            7: "Int 7", PrintedKey(id: 0, text: "7"): "printed 7",  // no String key: nobody owns "7"
            PrintedKey(id: 1, text: "x"): "x one", PrintedKey(id: 2, text: "x"): "x two",  // same type too
        ]
        #expect(userInfo.count == 12)

        let event = try forwarded(userInfo)

        #expect(accounted(event) == 12)
        #expect(event.payload.keys == ["1", "a", "c", "shape"])
        #expect(try event[PayloadKey<String>("a")] == "String a")
        #expect(try event[PayloadKey<String>("1")] == "String 1")
        #expect(try event[PayloadKey<String>("shape")] == "String shape")
        #expect(try event[PayloadKey<String>("c")] == "String c")
        #expect(
            event.payload.unbridgedValues == [
                "a (key of type NSString)": "String",
                "1 (key of type __NSCFBoolean)": "String",
                "shape (key of type RawKey)": "String",
                "c (key of type Substring)": "String",
                "7 (key of type Int)": "String",
                "7 (key of type PrintedKey)": "String",
                "x (key of type PrintedKey)": "String",
                "x (key of type PrintedKey) #2": "String",
            ])
    }

    @Test("a key that prints alone keeps its printed name, and a listed key reads it")
    func lonePrintedKeyKeepsItsName() throws {
        let event = try forwarded([5: NSNumber(value: 9), RawKey.shape: "round"], keys: [PayloadKey<Int>("5")])
        #expect(try event[PayloadKey<Int>("5")] == 9)
        #expect(try event[PayloadKey<String>("shape")] == "round")
        #expect(event.payload.unbridgedValues.isEmpty)
    }

    @Test("a name made for a lookalike key never takes a name already in the userInfo")
    func madeNamesAvoidNamesInUse() throws {
        let userInfo: [AnyHashable: Any] = [
            "5": "String 5", 5: "Int 5", "5 (key of type Int)": "a String key that looks made",
        ]
        let event = try forwarded(userInfo)
        #expect(accounted(event) == 3)
        #expect(try event[PayloadKey<String>("5 (key of type Int)")] == "a String key that looks made")
        #expect(event.payload.unbridgedValues == ["5 (key of type Int) #2": "String"])
    }

    @Test("an NSNumber that does not cast to a listed key's type is not told to list a key")
    func listedKeyOfAnotherTypeGetsTrueAdvice() throws {
        let flag = PayloadKey<Bool>("flag")
        let event = try forwarded(["flag": NSNumber(value: 7), "on": NSNumber(value: 1)], keys: [flag, .on])
        #expect(try event[PayloadKeys.on] == true)
        #expect(event.payload.unbridgedValues == ["flag": "NSNumber"])
        let error = #expect(throws: NamedEventError.self) { _ = try event[flag] }
        #expect(error?.problem == .notBridged)
        #expect(error?.actualType == "NSNumber")
        #expect(error?.description.contains("list a PayloadKey") == false)
        #expect(
            error?.description
                == #"Named event "bridge.report" has no value for key "flag" (expected Bool, found NSNumber): "#
                + #"the notification's value was not carried because it does not cast to Bool, the type of the "#
                + #"bridge's key for "flag" (whether an NSNumber casts to Bool or to a number type depends on its "#
                + #"value, and this one holds 7); give the bridge a key of a Sendable type the value casts to, or "#
                + #"forward the notification as a typed event to read it."#)
    }

    @Test("a value of a type no listed key matches names the key's type, not a missing key")
    func listedKeyNamesItsTypeForOtherValues() throws {
        let event = try forwarded(["tint": Canvas()], keys: [PayloadKey<Tint>("tint")])
        let error = #expect(throws: NamedEventError.self) { _ = try event[PayloadKey<Tint>("tint")] }
        #expect(
            error?.description
                == #"Named event "bridge.report" has no value for key "tint" (expected Tint, found Canvas): "#
                + #"the notification's value was not carried because it does not cast to Tint, the type of the "#
                + #"bridge's key for "tint"; give the bridge a key of a Sendable type the value casts to, or "#
                + #"forward the notification as a typed event to read it."#)
        #expect(event.description.contains("tint: <not carried: Canvas, does not cast to Tint>"))
    }

    @Test("two listed keys of one name are both tried, the later first")
    func listedKeysOfOneNameAreAllTried() throws {
        let asInt = PayloadKey<Int>("count")
        let asBool = PayloadKey<Bool>("count")
        // 7 is no Bool: the earlier key, an Int, carries it.
        let seven = try forwarded(["count": NSNumber(value: 7)], keys: [asInt, asBool])
        #expect(try seven[asInt] == 7)
        // 1 casts to both: the later key wins, as it always did.
        let one = try forwarded(["count": NSNumber(value: 1)], keys: [asInt, asBool])
        #expect(try one[asBool] == true)
        // Neither: the advice names both types.
        let half = try forwarded(["count": NSNumber(value: 0.5)], keys: [asInt, asBool])
        let error = #expect(throws: NamedEventError.self) { _ = try half[asInt] }
        #expect(error?.description.contains("it does not cast to Int or Bool, the types of the bridge's keys") == true)
    }

    @Test("the advice for a value no key was listed for stays: list a key")
    func unlistedValueStillAdvisesAKey() throws {
        let event = try forwarded([5: Canvas()])
        let error = #expect(throws: NamedEventError.self) { _ = try event[PayloadKey<String>("5")] }
        #expect(error?.description.hasSuffix(#"if it is, list a PayloadKey for "5" in the bridge's keys."#) == true)
    }
}

extension PayloadKeys {
    fileprivate static let on = PayloadKey<Bool>("on")
}

@Suite("NotificationCenter bridge: what a posting bridge cannot post is reported")
struct NotificationPostingReportTests {
    @Test("a payload value under the data key is reported when the event's data takes the key")
    func payloadValueHiddenByDataIsReported() throws {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let failures = Recorder<ListenerFailure>()
        center.errorHandler = { failures.record($0) }
        let posted = Recorder<String>()
        let line = #line + 1
        let bridge = center.postNotifications(for: "bridge.report", to: notifications)
        let observer = notifications.addObserver(forName: .report, object: nil, queue: nil) { note in
            posted.record(note.userInfo?[NotificationBridge.dataKey] as? String ?? "-")
        }
        center.dispatch("bridge.report", data: "the data", payload: Payload((PayloadKey<Int>("data"), 3)))
        center.dispatch("bridge.report", data: "alone")

        #expect(posted.values == ["the data", "alone"])
        try #require(failures.values.count == 1)
        #expect(
            failures.values[0].description
                == #"a listener of named event "bridge.report" registered at "#
                + "EventsTests/NotificationBridgeReportingTests.swift:"
                + #"\#(line) threw: Named event "bridge.report" was posted as notification "bridge.report" "#
                + #"without its payload value for key "data" (Int), whose userInfo key the event's data took."#)
        let error = try #require(failures.values[0].error as? NotificationPostingError)
        #expect(error.eventName == "bridge.report")
        #expect(error.notificationName == .report)
        #expect(error.payloadValueReplacedByData == "Int")
        #expect(error.uncarriedValues.isEmpty && error.uncarriedData == nil)
        notifications.removeObserver(observer)
        withExtendedLifetime(bridge) {}
    }

    @Test("values the event does not carry are reported when it is posted on")
    func uncarriedValuesAreReportedWhenPostedOn() throws {
        let incoming = NotificationCenter()
        let outgoing = NotificationCenter()
        let center = EventCenter()
        let failures = Recorder<String>()
        center.errorHandler = { failures.record(String(describing: $0.error)) }
        let inbound = center.forwardNotifications(named: .report, from: incoming)
        let outbound = center.postNotifications(for: "bridge.report", to: outgoing)
        let posted = Recorder<[String]>()
        let observer = outgoing.addObserver(forName: .report, object: nil, queue: nil) { note in
            posted.record((note.userInfo ?? [:]).keys.map { "\($0)" }.sorted())
        }
        incoming.post(name: .report, object: Tint(hue: 2), userInfo: ["id": "r1", "canvas": Canvas()])

        #expect(posted.values == [["id"]])
        #expect(
            failures.values == [
                #"Named event "bridge.report" was posted as notification "bridge.report" without the values "#
                    + #"a bridge could not carry into the event: "canvas" (Canvas), the data (Tint)."#
            ])
        outgoing.removeObserver(observer)
        _ = (inbound, outbound)
    }

    @Test("an event with nothing left out is posted without a report")
    func completeEventIsPostedWithoutAReport() {
        let notifications = NotificationCenter()
        let center = EventCenter()
        let failures = Counter()
        center.errorHandler = { _ in failures.increment() }
        let bridge = center.postNotifications(for: "bridge.report", to: notifications)
        center.dispatch("bridge.report", data: 1, payload: Payload((PayloadKey<String>("id"), "r1")))
        center.dispatch("bridge.report")
        #expect(failures.value == 0)
        withExtendedLifetime(bridge) {}
    }
}
