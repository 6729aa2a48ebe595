import EventsTesting
import Testing

@testable import Events

protocol Linking: Event { var path: String { get } }

@Suite("Events held for their first listener")
struct HeldEventTests {
    struct DeepLink: Linking, Equatable { let path: String }
    final class Screen: Sendable {}

    @Test("an event nobody hears is held, delivered once to the first listener, then dropped")
    func deliveredOnceToTheFirst() {
        let center = EventCenter()
        #expect(center.dispatch(DeepLink(path: "/a"), holdingIfUnheard: .for(.seconds(60))) == 0)
        #expect(center.dispatch(DeepLink(path: "/b"), holdingIfUnheard: .for(.seconds(60))) == 0)
        let first = Recorder<String>()
        let firstListener = center.listen(to: DeepLink.self) { first.record($0.path) }
        #expect(first.values == ["/a", "/b"])
        let second = Recorder<String>()
        let secondListener = center.listen(to: DeepLink.self) { second.record($0.path) }
        #expect(second.values.isEmpty)
        _ = (firstListener, secondListener)
    }

    @Test("an event someone hears is not held")
    func heardIsNotHeld() {
        let center = EventCenter()
        let count = Counter()
        let listener = center.listen(to: DeepLink.self) { _ in count.increment() }
        #expect(center.dispatch(DeepLink(path: "/a"), holdingIfUnheard: .for(.seconds(60))) == 1)
        listener.cancel()
        let late = Recorder<String>()
        let lateListener = center.listen(to: DeepLink.self) { late.record($0.path) }
        #expect(late.values.isEmpty)
        _ = lateListener
    }

    @Test("a held event waits for a listener whose sender filter matches")
    func senderFilter() {
        let center = EventCenter()
        let screen = Screen()
        let other = Screen()
        center.dispatch(DeepLink(path: "/s"), from: screen, holdingIfUnheard: .for(.seconds(60)))
        let wrong = Recorder<String>()
        let wrongListener = center.listen(to: DeepLink.self, from: other) { wrong.record($0.path) }
        #expect(wrong.values.isEmpty)
        let right = Recorder<String>()
        let rightListener = center.listen(to: DeepLink.self, from: screen) { right.record($0.path) }
        #expect(right.values == ["/s"])
        _ = (wrongListener, rightListener)
    }

    @Test("at most `limit` are held; the oldest is dropped and reported with how long it was held")
    func limit() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let warnings = Recorder<EventWarning>()
        center.warningHandler = { warnings.record($0) }
        for index in 0..<2 {
            center.dispatch(DeepLink(path: "/\(index)"), holdingIfUnheard: .for(.seconds(60), limit: 2, clock: clock))
        }
        try await clock.waitForSleepers(count: 2)
        clock.advance(by: .seconds(5))
        for index in 2..<4 {
            center.dispatch(DeepLink(path: "/\(index)"), holdingIfUnheard: .for(.seconds(60), limit: 2, clock: clock))
        }
        let log = Recorder<String>()
        let listener = center.listen(to: DeepLink.self) { log.record($0.path) }
        #expect(log.values == ["/2", "/3"])
        #expect(warnings.values.count == 2)
        // Each warning is about one event, held for the time it waited, not for the whole hold.
        #expect(warnings.values.allSatisfy { $0.kind == .deadEvent && $0.duration == .seconds(5) && $0.count == 1 })
        #expect(warnings.values.first?.description.contains("held for 5") == true)
        #expect(warnings.values.first?.description.contains("dropped unheard: more than 2 were held") == true)
        _ = listener
    }

    @Test("a once listener takes one of two held events; the other stays held for the next listener")
    func onceTakesOne() {
        let center = EventCenter()
        let warnings = Recorder<EventWarning>()
        center.warningHandler = { warnings.record($0) }
        center.dispatch(DeepLink(path: "/a"), holdingIfUnheard: .for(.seconds(60)))
        center.dispatch(DeepLink(path: "/b"), holdingIfUnheard: .for(.seconds(60)))
        let first = Recorder<String>()
        let once = center.listen(to: DeepLink.self, once: true) { first.record($0.path) }
        #expect(first.values == ["/a"])
        let second = Recorder<String>()
        let next = center.listen(to: DeepLink.self) { second.record($0.path) }
        #expect(second.values == ["/b"])
        #expect(warnings.values.isEmpty)
        _ = (once, next)
    }

    @Test("a family listener hears a held event: the dispatch counts it, and a later family listener takes it")
    func familyListenersHearHeldEvents() {
        let center = EventCenter()
        let heard = Recorder<String>()
        let family = center.listen(to: (any Linking).self) { heard.record("family \($0.path)") }
        #expect(center.dispatch(DeepLink(path: "/now"), holdingIfUnheard: .for(.seconds(60))) == 1)
        family.cancel()
        #expect(center.dispatch(DeepLink(path: "/later"), holdingIfUnheard: .for(.seconds(60))) == 0)
        let late = center.listen(to: (any Linking).self) { heard.record("late \($0.path)") }
        // The family listener took it: an exact-type listener after it finds nothing held.
        let exact = center.listen(to: DeepLink.self) { heard.record("exact \($0.path)") }
        #expect(heard.values == ["family /now", "late /later"])
        _ = (late, exact)
    }

    @Test("an event that expires unheard is reported through the warning handler, and not delivered")
    func expiry() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let warnings = Recorder<EventWarning>()
        center.warningHandler = { warnings.record($0) }
        center.dispatch(DeepLink(path: "/old"), holdingIfUnheard: .for(.seconds(30), clock: clock))
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(29))
        #expect(warnings.values.isEmpty)
        clock.advance(by: .seconds(1))
        #expect(await eventually { warnings.values.count == 1 })
        let warning = try #require(warnings.values.first)
        #expect(warning.kind == .deadEvent)
        #expect(warning.event == "DeepLink")
        #expect(warning.callSite?.fileID.hasSuffix("HeldEventTests.swift") == true)
        #expect(warning.description.contains("expired"))
        let log = Recorder<String>()
        let late = center.listen(to: DeepLink.self) { log.record($0.path) }
        #expect(log.values.isEmpty)
        _ = late
    }

    @Test("a delivered held event cancels its expiry: nothing is reported")
    func deliveredCancelsExpiry() async throws {
        let center = EventCenter()
        let clock = TestClock()
        let warnings = Recorder<EventWarning>()
        center.warningHandler = { warnings.record($0) }
        center.dispatch(DeepLink(path: "/x"), holdingIfUnheard: .for(.seconds(5), clock: clock))
        try await clock.waitForSleepers(count: 1)
        let listener = center.listen(to: DeepLink.self) { _ in }
        #expect(await eventually { clock.sleeperCount == 0 })
        clock.advance(by: .seconds(10))
        #expect(warnings.values.isEmpty)
        _ = listener
    }

    @Test("a queued listener receives held events in its context, before newer ones")
    func queuedContext() async {
        let center = EventCenter()
        center.dispatch(DeepLink(path: "/held"), holdingIfUnheard: .for(.seconds(60)))
        let log = Recorder<String>()
        let listener = center.listen(to: DeepLink.self, on: .background) { log.record($0.path) }
        center.dispatch(DeepLink(path: "/new"))
        await center.idle()
        #expect(log.values == ["/held", "/new"])
        _ = listener
    }

    @Test("named events are held too, and a listener of every name can take them")
    func namedEvents() throws {
        let center = EventCenter()
        center.dispatch("push", data: "hello", holdingIfUnheard: .for(.seconds(60)))
        let log = Recorder<String>()
        let every = center.listen(to: NamedEvent.self) { event in log.record(event.name.rawValue) }
        #expect(log.values == ["push"])
        let named = Recorder<String>()
        let listener = center.listen(to: "push") { named.record($0.name.rawValue) }
        #expect(named.values.isEmpty)
        _ = (every, listener)
    }

    @Test("a held event does not keep its sender alive")
    func senderNotRetained() {
        let center = EventCenter()
        weak var gone: Screen?
        do {
            let screen = Screen()
            gone = screen
            center.dispatch(DeepLink(path: "/s"), from: screen, holdingIfUnheard: .for(.seconds(60)))
        }
        #expect(gone == nil)
    }
}
