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
        _ = subscription
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
        _ = subscription
    }
}
