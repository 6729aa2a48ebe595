import Dispatch
import Foundation
import Testing

@testable import Events

struct Broken: Error, CustomStringConvertible {
    let reason: String
    var description: String { "broken: \(reason)" }
}

@Suite("Throwing handlers and awaitable dispatch")
struct ErrorHandlingTests {
    @Test func throwingHandlerDoesNotStopTheOthersAndReachesTheErrorHandler() {
        let center = EventCenter()
        let failures = Recorder<String>()
        center.errorHandler = { failures.record($0.description) }
        let log = Recorder<String>()
        let line = #line + 1
        let failing = center.listen(to: Tick.self, priority: 1) { _ in throw Broken(reason: "disk full") }
        let healthy = center.listen(to: Tick.self) { _ in log.record("healthy ran") }
        #expect(center.dispatch(Tick(n: 1)) == 2)
        #expect(log.values == ["healthy ran"])
        #expect(
            failures.values == [
                "a listener of Tick registered at EventsTests/ErrorHandlingTests.swift:\(line) threw: broken: disk full"
            ])
        _ = (failing, healthy)
    }

    @Test func reportCountsEveryContextAndNamesEachFailure() async {
        let center = EventCenter()
        center.errorHandler = { _ in }
        let ledger = TickLedger()
        let queue = DispatchQueue(label: "test.report", attributes: .concurrent)
        let owner = Probe()
        var subscriptions: [Subscription] = []
        subscriptions.append(center.listen(to: Tick.self) { _ in })
        let failingLine = #line + 1
        subscriptions.append(center.listen(to: Tick.self, on: .queue(queue)) { _ in throw Broken(reason: "queue") })
        subscriptions.append(center.listen(to: Tick.self, on: .background) { _ in })
        subscriptions.append(center.listen(to: Tick.self, on: .mainOrdered) { _ in throw Broken(reason: "main") })
        center.listen(to: Tick.self, isolatedTo: ledger) { ledger, tick in ledger.seen.append(tick.n) }
        center.listen(to: Tick.self, owner: owner, on: .operationQueue(.init())) { _, _ in }

        let report = await center.dispatchAndWait(Tick(n: 9))
        #expect(report.received == 6)
        #expect(report.succeeded == 4)
        let reasons = report.failures.map { ($0.error as? Broken)?.reason }.sorted { ($0 ?? "") < ($1 ?? "") }
        #expect(reasons == ["main", "queue"])
        let queueFailure = report.failures.first { ($0.error as? Broken)?.reason == "queue" }
        #expect(queueFailure?.callSite.line == failingLine)
        #expect(queueFailure?.event == "Tick")
        #expect(await ledger.values() == [9], "the actor listener had finished when the report came back")
        withExtendedLifetime(subscriptions) {}
    }

    @Test func reportOfAnEventNobodyHearsIsEmpty() async {
        let report = await EventCenter().dispatchAndWait(Tock(n: 1))
        #expect(report.received == 0)
        #expect(report.failures.isEmpty)
    }

    @Test func defaultErrorHandlerIsInstalled() {
        let failure = ListenerFailure(
            error: Broken(reason: "x"), event: "Tick", callSite: CallSite(fileID: "App/Feed.swift", line: 12))
        #expect(failure.description == "a listener of Tick registered at App/Feed.swift:12 threw: broken: x")
        // Replacing and restoring goes through the same thread-safe box.
        let center = EventCenter()
        let seen = Counter()
        center.errorHandler = { _ in seen.increment() }
        center.errorHandler(failure)
        #expect(seen.value == 1)
    }
}
