import EventsTesting
import Testing

@testable import Events

// Every registration form of named events, each called once with every parameter given, in
// the order of the typed forms. It exists to fail to compile when a form loses a parameter or
// reorders them; the checks only make sure each call registered what it says.

private actor Archive {}

@MainActor
private final class Console {}

private final class Model: Sendable {}

@Suite("Every named registration form, with every parameter")
struct NamedFormsSpellingTests {
    @Test("Each named form compiles with every parameter given and registers one listener")
    @MainActor
    func everyFormWithEveryParameter() async throws {
        let center = EventCenter()
        let sender = Probe()
        let model = Model()
        let console = Console()
        let archive = Archive()
        var subscriptions: [Subscription] = []

        // A name, in a `Delivery`.
        subscriptions.append(
            center.listen(
                to: "n", on: .background, from: sender, priority: .high, once: true, receivingCurrent: false,
                coalescing: nil, file: #fileID, line: #line
            ) { _ in })
        center.listen(
            to: "n", owner: model, key: "delivery", on: .postingThread, from: sender, priority: .low, once: false,
            receivingCurrent: false, coalescing: nil,
            file: #fileID, line: #line
        ) { _, _ in }
        // A name, on the main actor.
        subscriptions.append(
            center.listen(
                to: "n", on: MainActorDelivery.main, from: sender, priority: .default, once: true,
                receivingCurrent: false, coalescing: nil, file: #fileID,
                line: #line
            ) { _ in })
        center.listen(
            to: "n", owner: console, key: "main", on: .mainOrdered, from: sender, priority: .high, once: true,
            receivingCurrent: false, coalescing: nil,
            file: #fileID, line: #line
        ) { _, _ in }
        // A name, on an actor.
        center.listen(
            to: "n", isolatedTo: archive, key: "actor", from: sender, priority: .low, once: true,
            receivingCurrent: false, coalescing: nil, file: #fileID,
            line: #line
        ) { _, _ in }
        #expect(center.listenerCount(for: "n") == 5)

        // Every name, in a `Delivery`.
        subscriptions.append(
            center.listen(
                to: NamedEvent.self,
                on: .background, from: sender, priority: .high, once: true, receivingCurrent: false, coalescing: nil,
                file: #fileID, line: #line
            ) { _ in })
        center.listen(
            to: NamedEvent.self,
            owner: model, key: "delivery", on: .postingThread, from: sender, priority: .low, once: false,
            receivingCurrent: false, coalescing: nil,
            file: #fileID, line: #line
        ) { _, _ in }
        // Every name, on the main actor.
        subscriptions.append(
            center.listen(
                to: NamedEvent.self,
                on: MainActorDelivery.main, from: sender, priority: .default, once: true, receivingCurrent: false,
                coalescing: nil, file: #fileID, line: #line
            ) { _ in })
        center.listen(
            to: NamedEvent.self,
            owner: console, key: "main", on: .mainOrdered, from: sender, priority: .high, once: true,
            receivingCurrent: false, coalescing: nil,
            file: #fileID, line: #line
        ) { _, _ in }
        // Every name, on an actor.
        center.listen(
            to: NamedEvent.self,
            isolatedTo: archive, key: "actor", from: sender, priority: .low, once: true, receivingCurrent: false,
            coalescing: nil, file: #fileID, line: #line
        ) { _, _ in }
        #expect(center.listenerCount(for: NamedEvent.self) == 5)

        // A stream and both waits.
        let stream = center.events(
            named: "n", from: sender, bufferingPolicy: .dropOldest(capacity: 1), file: #fileID, line: #line)
        let clock = TestClock()
        // A timeout on the real clock that never comes in a test run, however loaded the machine.
        let waiting = Task {
            try await center.next(
                named: "n", from: sender, where: { _ in true }, timeout: .seconds(3_600), isolation: #isolation,
                file: #fileID, line: #line)
        }
        let waitingOnAClock = Task {
            try await center.next(
                named: "n", from: sender, where: { _ in true }, timeout: .seconds(1), clock: clock,
                isolation: #isolation, file: #fileID, line: #line)
        }
        #expect(await eventually { @Sendable in center.listenerCount(for: "n") == 5 + 5 + 3 })
        center.dispatch("n", from: sender)
        #expect(try await waiting.value.name == "n")
        #expect(try await waitingOnAClock.value.name == "n")
        withExtendedLifetime((subscriptions, stream)) {}
    }
}
