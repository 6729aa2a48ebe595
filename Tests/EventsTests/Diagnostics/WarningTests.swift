import Dispatch
import Foundation
import Testing

@testable import Events

/// Collects the warnings a center gives.
final class WarningLog: Sendable {
    private let recorder = Recorder<EventWarning>()
    var all: [EventWarning] { recorder.values }
    func of(_ kind: EventWarning.Kind) -> [EventWarning] { all.filter { $0.kind == kind } }
    func attach(to center: EventCenter) { center.warningHandler = { [recorder] in recorder.record($0) } }
}

@Suite("Diagnostics warnings")
struct WarningTests {
    struct Unheard: Event {}
    struct Heard: Event {}
    final class Screen: Sendable {}

    @Test("a dispatch no listener receives is a dead event, warned once per interval with the count since")
    func deadEventsAreRateLimited() {
        let center = EventCenter()
        let log = WarningLog()
        log.attach(to: center)
        center.diagnostics.deadEventInterval = .seconds(3600)
        let line = #line + 1
        center.dispatch(Unheard())
        center.dispatch(Unheard())
        center.dispatch(EventName("nobody.listens"))
        let dead = log.of(.deadEvent)
        #expect(dead.map(\.event) == ["Unheard", "\"nobody.listens\""])
        #expect(dead.first?.callSite?.line == line)
        #expect(dead.first?.description.contains("no listener received it") == true)

        // An interval of zero reports each one, with the dispatches since the last warning.
        center.diagnostics.deadEventInterval = .zero
        center.dispatch(Unheard())
        #expect(log.of(.deadEvent).last?.count == 2)
    }

    @Test("an event whose only listener filters another sender is dead too; one that is received is not")
    func filteredOutIsDead() {
        let center = EventCenter()
        let log = WarningLog()
        log.attach(to: center)
        center.diagnostics.deadEventInterval = .zero
        let expected = Screen()
        let filtered = center.listen(to: Unheard.self, from: expected) { _ in }
        let heard = center.listen(to: Heard.self) { _ in }
        center.dispatch(Unheard(), from: Screen())
        center.dispatch(Heard())
        #expect(log.of(.deadEvent).map(\.event) == ["Unheard"])
        withExtendedLifetime((filtered, heard, expected)) {}
    }

    @Test("a handler slower than the threshold is warned about, with its call site; a quick one is not")
    func slowListeners() {
        let center = EventCenter()
        let log = WarningLog()
        log.attach(to: center)
        center.diagnostics.slowListenerThreshold = .milliseconds(20)
        center.diagnostics.slowListenerScope = .everyContext
        let quick = center.listen(to: Heard.self) { _ in }
        let line = #line + 1
        let slow = center.listen(to: Heard.self) { _ in Thread.sleep(forTimeInterval: 0.05) }
        center.dispatch(Heard())
        let warnings = log.of(.slowListener)
        #expect(warnings.count == 1)
        #expect(warnings.first?.callSite?.line == line)
        #expect((warnings.first?.duration ?? .zero) >= .milliseconds(20))
        withExtendedLifetime((quick, slow)) {}
    }

    @Test("by default only main-actor handlers are timed: a slow handler on another thread gives no warning")
    func slowListenerScopeDefaultsToMainActor() async {
        let center = EventCenter()
        let log = WarningLog()
        log.attach(to: center)
        center.diagnostics.slowListenerThreshold = .milliseconds(1)
        let slow = center.listen(to: Heard.self) { _ in Thread.sleep(forTimeInterval: 0.01) }
        await runOnThreads(1) { _ in center.dispatch(Heard()) }
        #expect(log.of(.slowListener).isEmpty)
        withExtendedLifetime(slow) {}
    }

    @Test("a slow queued handler is warned about from its context")
    func slowQueuedListener() async {
        let center = EventCenter()
        let log = WarningLog()
        log.attach(to: center)
        center.diagnostics.slowListenerThreshold = .milliseconds(5)
        center.diagnostics.slowListenerScope = .everyContext
        let slow = center.listen(to: Heard.self, on: .background) { _ in Thread.sleep(forTimeInterval: 0.02) }
        center.dispatch(Heard())
        #expect(await eventually { log.of(.slowListener).count == 1 })
        withExtendedLifetime(slow) {}
    }

    @Test("listeners piling up from one call site are a likely leak, warned past the threshold and again at double")
    func leaksFromOneCallSite() {
        let center = EventCenter()
        let log = WarningLog()
        log.attach(to: center)
        center.diagnostics.leakThreshold = 3
        var subscriptions: [Subscription] = []
        for _ in 0..<3 { subscriptions.append(center.listen(to: Heard.self) { _ in }) }
        #expect(log.of(.likelyLeak).isEmpty)
        subscriptions.append(center.listen(to: Heard.self) { _ in })  // these share one call site
        #expect(log.of(.likelyLeak).count == 0, "four listeners, each from its own line, are no leak")

        // One call site, as a view that registers each time it appears.
        func appear() { subscriptions.append(center.listen(to: Tick.self) { _ in }) }
        for _ in 0..<6 { appear() }
        let leaks = log.of(.likelyLeak)
        #expect(leaks.map(\.count) == [4], "\(leaks)")
        #expect(leaks.first?.event == "Tick")
        for _ in 0..<4 { appear() }
        #expect(log.of(.likelyLeak).map(\.count) == [4, 8])
        withExtendedLifetime(subscriptions) {}
    }

    @Test(
        "the likely-leak warning fires past the threshold, then each time that count doubles",
        arguments: [(3, [4, 8, 16, 32]), (10, [11, 22, 44, 88])])
    func leakWarningsDoubleFromTheFirstWarnedCount(threshold: Int, expected: [Int]) {
        let center = EventCenter()
        let log = WarningLog()
        log.attach(to: center)
        center.diagnostics.leakThreshold = threshold
        var subscriptions: [Subscription] = []
        // One call site, so that every registration counts towards one source.
        for _ in 0..<(expected.last! * 2 - 1) { subscriptions.append(center.listen(to: Tick.self) { _ in }) }
        #expect(log.of(.likelyLeak).map(\.count) == expected)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("listeners piling up from owners of one type are a likely leak too")
    func leaksByOwnerType() {
        let center = EventCenter()
        let log = WarningLog()
        log.attach(to: center)
        center.diagnostics.leakThreshold = 2
        let screens = (0..<3).map { _ in Screen() }
        center.listen(to: Heard.self, owner: screens[0]) { _, _ in }
        center.listen(to: Heard.self, owner: screens[1]) { _, _ in }
        center.listen(to: Heard.self, owner: screens[2]) { _, _ in }
        let leak = log.of(.likelyLeak).first { $0.ownerType != nil }
        #expect(leak?.ownerType == "Screen" && leak?.count == 3, "\(log.all)")
        withExtendedLifetime(screens) {}
    }

    @Test("a dispatch nested deeper than the threshold is warned about with its depth")
    func deepNesting() {
        let center = EventCenter()
        let log = WarningLog()
        log.attach(to: center)
        center.diagnostics.nestingThreshold = 2
        let chain = center.listen(to: Tick.self) { tick in
            if tick.n < 4 { center.dispatch(Tick(n: tick.n + 1)) }
        }
        center.dispatch(Tick(n: 0))
        #expect(log.of(.deepNesting).map(\.count) == [3, 4])
        withExtendedLifetime(chain) {}
    }

    @Test("with every check off, nothing is observed, and turning them off again restores the plain path")
    func offIsOff() {
        let center = EventCenter()
        #expect(!center.isObserved)
        center.diagnostics = .development
        #expect(center.isObserved)
        center.diagnostics = .off
        #expect(!center.isObserved)
        center.tracer = TimelineTracer { _ in }
        #expect(center.isObserved)
        center.tracer = nil
        #expect(!center.isObserved)
    }

    @Test("the default handler writes one line per warning; the message names event and code")
    func warningMessagesReadWell() {
        let site = CallSite(fileID: "App/Feed.swift", line: 12)
        let leak = EventWarning(.likelyLeak, event: "PostWritten", callSite: site, count: 11)
        #expect(
            leak.description
                == "11 listeners to PostWritten registered at App/Feed.swift:12: a likely leak (listeners added again and again, never removed)"
        )
        let slow = EventWarning(
            .slowListener, event: "PostWritten", callSite: site, ownerType: "FeedModel", duration: .milliseconds(42))
        #expect(
            slow.description == "a listener of FeedModel to PostWritten, registered at App/Feed.swift:12, took 42.0 ms")
    }
}
