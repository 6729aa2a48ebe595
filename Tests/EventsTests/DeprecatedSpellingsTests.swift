import Testing

@testable import Events

// Every retired spelling, called once as code written against earlier versions calls it: it
// still compiles, and it does what its replacement does. The warnings in this file are the
// point of it.

private protocol Alarm: Event { var room: String { get } }
private struct SmokeAlarm: Alarm { let room: String }
private struct Unrelated: Event {}

extension EventName {
    fileprivate static let doorOpened: EventName = "deprecated.doorOpened"
    fileprivate static let doorClosed: EventName = "deprecated.doorClosed"
}

@MainActor private final class AlarmPanel {
    var shown: [String] = []
}

private actor AlarmLog {
    var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
}

@Suite("Deprecated spellings forward to their replacements")
struct DeprecatedSpellingsTests {
    @Test("the sender forms hand the handler the sender, as Sent does")
    @available(*, deprecated)
    func senderForms() async {
        let center = EventCenter()
        let editor = Probe("editor")
        let heard = Recorder<String>()
        let plain = center.listen(to: PostWritten.self) { post, sender in
            heard.record("plain \(post.title) \(sender === editor)")
        }
        center.listen(to: PostWritten.self, owner: editor, key: "k") { owner, post, sender in
            heard.record("owner \(owner.name) \(post.title) \(sender === editor)")
        }
        let main = center.listen(to: PostWritten.self, on: .main) { post, sender in
            heard.record("main \(post.title) \(sender === editor)")
        }
        #expect(center.dispatch(PostWritten(title: "a"), from: editor) == 3)
        await center.idle()
        #expect(heard.values.sorted() == ["main a true", "owner editor a true", "plain a true"])
        _ = (plain, main)
    }

    @Test("listen(toAll:) hears a protocol family, with or without the sender, owned or not")
    @available(*, deprecated)
    func familyForms() async {
        let center = EventCenter()
        let sensor = Probe("sensor")
        let heard = Recorder<String>()
        let plain = center.listen(toAll: (any Alarm).self) { alarm in heard.record("plain \(alarm.room)") }
        let withSender = center.listen(toAll: (any Alarm).self) { alarm, sender in
            heard.record("sender \(alarm.room) \(sender === sensor)")
        }
        center.listen(toAll: (any Alarm).self, owner: sensor, key: "a") { owner, alarm in
            heard.record("owner \(owner.name) \(alarm.room)")
        }
        center.listen(toAll: (any Alarm).self, owner: sensor, key: "b") { owner, alarm, sender in
            heard.record("owner+sender \(alarm.room) \(sender === sensor)")
        }
        let main = center.listen(toAll: (any Alarm).self, on: .main) { alarm in heard.record("main \(alarm.room)") }
        let mainSender = center.listen(toAll: (any Alarm).self, on: .main) { alarm, sender in
            heard.record("main+sender \(alarm.room) \(sender === sensor)")
        }
        center.listen(toAll: (any Alarm).self, owner: sensor, key: "c", on: .main) { _, alarm in
            heard.record("main owner \(alarm.room)")
        }
        #expect(center.dispatch(Unrelated()) == 0)
        #expect(center.dispatch(SmokeAlarm(room: "hall"), from: sensor) == 7)
        await center.idle()
        #expect(
            heard.values.sorted() == [
                "main hall", "main owner hall", "main+sender hall true", "owner sensor hall",
                "owner+sender hall true", "plain hall", "sender hall true",
            ])
        #expect(center.listenerCount(forAll: (any Alarm).self) == 7)
        #expect(center.listenerCount(forAll: (any Alarm).self) == center.listenerCount(for: (any Alarm).self))
        center.remove(sensor, key: "a", forAll: (any Alarm).self)
        #expect(center.listenerCount(forAll: (any Alarm).self) == 6)
        center.remove(sensor, forAll: (any Alarm).self)
        #expect(center.listenerCount(forAll: (any Alarm).self) == 4)
        _ = (plain, withSender, main, mainSender)
    }

    @Test("listen(toAll:) given a class that is an Event keeps hearing its subclasses")
    @available(*, deprecated)
    func classFamily() {
        let center = EventCenter()
        let heard = Recorder<String>()
        let family = center.listen(toAll: ShopEvent.self) { event in heard.record("\(type(of: event))") }
        let exact = center.listen(to: ShopEvent.self) { event in heard.record("exact \(type(of: event))") }
        center.dispatch(ShopOpened())
        #expect(heard.values == ["ShopOpened"])
        _ = (family, exact)
    }

    @Test("listenToAllNames in each context hears every name, and the old removals and count see them")
    @available(*, deprecated)
    func everyNameForms() async {
        let center = EventCenter()
        let owner = Probe("owner")
        let log = AlarmLog()
        let heard = Recorder<String>()
        let plain = center.listenToAllNames { event in heard.record("plain \(event.name.rawValue)") }
        center.listenToAllNames(owner: owner, key: "k") { _, event in heard.record("owner \(event.name.rawValue)") }
        let main = center.listenToAllNames(on: .main) { event in heard.record("main \(event.name.rawValue)") }
        center.listenToAllNames(owner: owner, key: "m", on: .main) { _, event in
            heard.record("main owner \(event.name.rawValue)")
        }
        let isolated = center.listenToAllNames(isolatedTo: log) { log, event in log.append(event.name.rawValue) }
        #expect(center.allNamesListenerCount == 5)
        #expect(center.dispatch(.doorOpened) == 5)
        await center.idle()
        #expect(
            heard.values.sorted() == [
                "main deprecated.doorOpened", "main owner deprecated.doorOpened", "owner deprecated.doorOpened",
                "plain deprecated.doorOpened",
            ])
        #expect(await log.lines == ["deprecated.doorOpened"])

        center.removeListenersToAllNames(of: owner, key: "k")
        #expect(center.allNamesListenerCount == 4)
        center.removeAllNamesListeners(of: owner, key: "m")
        #expect(center.allNamesListenerCount == 3)
        center.listenToAllNames(owner: owner, key: "again") { _, _ in }
        center.removeListenersToAllNames(of: owner)
        #expect(center.allNamesListenerCount == 3)
        center.listenToAllNames(owner: owner, key: "and again") { _, _ in }
        center.removeAllNamesListeners(of: owner)
        #expect(center.allNamesListenerCount == center.listenerCount(for: NamedEvent.self))
        #expect(center.allNamesListenerCount == 3)
        center.removeAllListenersToAllNames()
        #expect(center.allNamesListenerCount == 0)
        _ = (plain, main, isolated)
    }

    @Test("the stopping forms of listen stop the listeners after them, as intercept does")
    @available(*, deprecated)
    func stoppingForms() {
        let center = EventCenter()
        let guardian = Probe("guardian")
        let heard = Recorder<String>()
        let answers = [
            center.listen(to: PostWritten.self, priority: .high) { post -> Propagation in
                post.title == "typed" ? .stop : .continue
            },
            center.listen(to: PostWritten.self, priority: .high) { post, sender -> Propagation in
                post.title == "sender" && sender === guardian ? .stop : .continue
            },
            center.listen(to: .doorOpened, priority: .high) { event -> Propagation in
                event.name == .doorOpened ? .stop : .continue
            },
            center.listenToAllNames(priority: .high) { event -> Propagation in
                event.name == .doorClosed ? .stop : .continue
            },
        ]
        center.listen(to: PostWritten.self, owner: guardian, key: "o", priority: .high) { _, post -> Propagation in
            post.title == "owner" ? .stop : .continue
        }
        center.listen(to: PostWritten.self, owner: guardian, key: "os", priority: .high) {
            _, post, sender -> Propagation in
            post.title == "owner sender" && sender === guardian ? .stop : .continue
        }
        center.listen(to: .doorClosed, owner: guardian, key: "n", priority: .high) { _, _ -> Propagation in
            .continue
        }
        center.listenToAllNames(owner: guardian, key: "all", priority: .high) { _, event -> Propagation in
            event.name == .doorClosed ? .stop : .continue
        }
        let after = center.listen(to: PostWritten.self) { post in heard.record(post.title) }
        let afterNames = center.listen(to: NamedEvent.self) { event in heard.record(event.name.rawValue) }

        for title in ["typed", "sender", "owner", "owner sender", "passes"] {
            #expect(
                center.dispatchWithResult(PostWritten(title: title), from: guardian).isStopped == (title != "passes"))
        }
        #expect(center.dispatchWithResult(.doorOpened).isStopped)
        #expect(center.dispatchWithResult(.doorClosed).isStopped)
        #expect(heard.values == ["passes"])
        _ = (answers, after, afterNames)
    }
}
