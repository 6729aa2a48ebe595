import Dispatch
import Testing

@testable import Events

@Suite("Named events in every delivery context")
struct NamedDeliveryTests {
    @Test func namedListenerOnAQueueReceivesInOrderAndIsAwaited() async {
        let center = EventCenter()
        let seen = Recorder<Int>()
        let subscription = center.listen(to: "tick", on: .queue(.global())) { event in
            seen.record(try event.data(as: Int.self))
        }
        for n in 0..<100 { center.dispatch("tick", data: n) }
        let report = await center.dispatchAndWait("tick", data: 100)
        #expect(report.received == 1)
        #expect(seen.values == Array(0...100))
        withExtendedLifetime(subscription) {}
    }

    @MainActor
    @Test func mainActorNamedListenerUpdatesMainActorState() async {
        let center = EventCenter()
        let model = ScreenModel()
        center.listen(to: "post", owner: model, on: .main) { model, event in
            model.titles.append(try event.data(as: String.self))
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                center.dispatch("post", data: "from the background")
                continuation.resume()
            }
        }
        await center.dispatchAndWait("post", data: "awaited")
        #expect(model.titles == ["from the background", "awaited"])
    }

    @Test func throwingNamedHandlerIsReportedWithTheEventName() async {
        let center = EventCenter()
        let messages = Recorder<String>()
        center.errorHandler = { messages.record($0.description) }
        let line = #line + 1
        let subscription = center.listen(to: "count") { event in _ = try event.data(as: String.self) }
        let report = await center.dispatchAndWait("count", data: 3)
        #expect(report.received == 1)
        #expect(report.failures.count == 1)
        #expect(
            messages.values == [
                "a listener of named event \"count\" registered at EventsTests/NamedDeliveryTests.swift:\(line) "
                    + "threw: \(report.failures.first.map { "\($0.error)" } ?? "")"
            ])
        #expect(messages.values.first?.contains("expected String, found Int") == true)
        withExtendedLifetime(subscription) {}
    }

    @Test func actorNamedListenerRunsIsolatedToItsActor() async {
        let center = EventCenter()
        let ledger = TickLedger()
        center.listen(to: "tick", isolatedTo: ledger) { ledger, event in
            ledger.seen.append(try event.data(as: Int.self))
        }
        for n in 1...3 { center.dispatch("tick", data: n) }
        let report = await center.dispatchAndWait("tick", data: 4)
        #expect(report.received == 1)
        #expect(await ledger.values() == [1, 2, 3, 4])
    }

    @Test func namedEventsStreamInOrderAndEndingTheLoopRemovesTheListener() async throws {
        let center = EventCenter()
        let stream = center.events(named: "progress")
        center.dispatch("progress", data: 0.5)
        center.dispatch("other", data: 0.7)
        center.dispatch("progress", data: 1.0)
        var values: [Double] = []
        for await event in stream {
            values.append(try event.data(as: Double.self))
            if values.count == 2 { break }
        }
        #expect(values == [0.5, 1.0])
        #expect(center.listenerCount(for: "progress") == 0)
    }
}
