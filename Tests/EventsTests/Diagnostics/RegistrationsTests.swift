import Dispatch
import Foundation
import Testing

@testable import Events

@Suite("Registrations report and counts")
struct RegistrationsTests {
    final class FeedModel: Sendable {}
    struct Saved: Event { let id: Int }

    @Test("the report lists every live listener with its owner type, key, priority, context and call site")
    func reportListsEveryListener() {
        let center = EventCenter()
        let model = FeedModel()
        let queue = DispatchQueue(label: "com.example.db")
        let plain = center.listen(to: Saved.self, priority: .high) { _ in }
        let line = #line + 1
        center.listen(to: Saved.self, owner: model, key: "refresh", on: .queue(queue)) { _, _ in }
        let named = center.listen(to: EventName("app.ready"), once: true) { _ in }

        let report = center.registrations()
        #expect(report.count == 3)
        let saved = report.listeners(to: "Saved")
        #expect(saved.count == 2)
        #expect(saved[0].priority == "high" && saved[0].ownerType == nil && saved[0].context == "posting thread")
        let owned = saved[1]
        #expect(owned.ownerType == "FeedModel")
        #expect(owned.key == "refresh")
        #expect(owned.context == "queue com.example.db")
        #expect(owned.fileID == "EventsTests/RegistrationsTests.swift" && owned.line == line)
        let ready = report.listeners(to: "\"app.ready\"")
        #expect(ready.count == 1 && ready[0].isOnce)
        withExtendedLifetime((plain, named, model)) {}
    }

    @Test("the table aligns its columns and shows counts only while deliveries are counted")
    func tableAlignsColumns() throws {
        let center = EventCenter()
        let subscription = center.listen(to: Saved.self) { _ in }
        center.dispatch(Saved(id: 1))
        let uncounted = center.registrations()
        #expect(uncounted.listeners[0].received == nil)

        center.diagnostics.countsDeliveries = true
        center.dispatch(Saved(id: 2))
        center.dispatch(Saved(id: 3))
        let counted = center.registrations()
        #expect(counted.listeners[0].received == 2)

        let lines = counted.table.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("EVENT"))
        // Every header word starts where its column starts in the row below.
        let header = String(lines[0])
        let row = String(lines[1])
        let column = try #require(header.range(of: "REGISTERED AT"))
        #expect(row[column.lowerBound...].hasPrefix("EventsTests/"))
        withExtendedLifetime(subscription) {}
    }

    @Test("failures are counted per listener whether or not diagnostics are on")
    func failuresAreCounted() {
        struct Broken: Error {}
        let center = EventCenter()
        center.errorHandler = { _ in }
        let failing = center.listen(to: Saved.self) { _ in throw Broken() }
        let fine = center.listen(to: Saved.self) { _ in }
        center.dispatch(Saved(id: 1))
        center.dispatch(Saved(id: 2))
        let report = center.registrations()
        #expect(report.listeners.map(\.failures) == [2, 0])
        withExtendedLifetime((failing, fine)) {}
    }

    @Test("the report is Codable and comes back equal")
    func reportRoundTrips() throws {
        let center = EventCenter()
        let model = FeedModel()
        center.listen(to: Saved.self, owner: model) { _, _ in }
        let report = center.registrations()
        let decoded = try JSONDecoder().decode(EventRegistrations.self, from: JSONEncoder().encode(report))
        #expect(decoded == report)
        withExtendedLifetime(model) {}
    }

    @Test("listeners whose owner is gone are neither listed nor counted")
    func deadOwnersAreNotListed() {
        let center = EventCenter()
        var model: FeedModel? = FeedModel()
        center.listen(to: Saved.self, owner: model!) { _, _ in }
        #expect(center.listenerCount == 1)
        model = nil
        #expect(center.listenerCount == 0)
        #expect(center.registrations().count == 0)
    }

    @Test("counts: every listener, and the listeners of one owner across event types and names")
    func counts() {
        let center = EventCenter()
        let model = FeedModel()
        let other = FeedModel()
        center.listen(to: Saved.self, owner: model) { _, _ in }
        center.listen(to: Tick.self, owner: model) { _, _ in }
        center.listen(to: EventName("a"), owner: model) { _, _ in }
        center.listen(to: Saved.self, owner: other) { _, _ in }
        let plain = center.listen(to: Saved.self) { _ in }
        #expect(center.listenerCount == 5)
        #expect(center.listenerCount(ownedBy: model) == 3)
        #expect(center.listenerCount(ownedBy: other) == 1)
        #expect(center.registrations(ownedBy: model).count == 3)
        center.remove(model)
        #expect(center.listenerCount(ownedBy: model) == 0)
        #expect(center.listenerCount == 2)
        withExtendedLifetime((plain, model, other)) {}
    }
}

@Suite("Removing every listener of an event")
struct RemoveAllListenersTests {
    final class Owner: Sendable {}
    struct Saved: Event {}

    @Test("ends closure, owner-bound, once, sender-filtered and queued listeners of one type, and no other")
    func endsEveryListenerOfOneType() async {
        let center = EventCenter()
        let owner = Owner()
        let sender = Owner()
        let calls = Counter()
        let gate = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "held")
        queue.async { gate.wait() }
        let closure = center.listen(to: Saved.self) { _ in calls.increment() }
        center.listen(to: Saved.self, owner: owner) { _, _ in calls.increment() }
        let once = center.listen(to: Saved.self, once: true) { _ in calls.increment() }
        let filtered = center.listen(to: Saved.self, from: sender) { _ in calls.increment() }
        let queued = center.listen(to: Saved.self, on: .queue(queue)) { _ in calls.increment() }
        let tick = center.listen(to: Tick.self) { _ in calls.increment() }
        // One event waits in the queue's mailbox: removal must stop it too.
        #expect(center.dispatch(Saved(), from: sender) == 5)
        #expect(calls.value == 4)

        center.removeAllListeners(for: Saved.self)
        gate.signal()
        await center.idleForTests(queue)
        #expect(calls.value == 4)
        #expect(center.dispatch(Saved(), from: sender) == 0)
        #expect(center.listenerCount(for: Saved.self) == 0)
        #expect(!closure.isActive && !once.isActive && !filtered.isActive && !queued.isActive)
        #expect(center.dispatch(Tick(n: 1)) == 1)
        withExtendedLifetime((owner, sender, tick)) {}
    }

    @Test("for a name, ends that name's listeners and keeps other names and every-name listeners")
    func endsTheListenersOfOneName() {
        let center = EventCenter()
        let a = center.listen(to: EventName("a")) { _ in }
        let b = center.listen(to: EventName("b")) { _ in }
        let all = center.listen(to: NamedEvent.self) { _ in }
        center.removeAllListeners(for: EventName("a"))
        #expect(!a.isActive && b.isActive && all.isActive)
        center.removeAllListeners(for: NamedEvent.self)
        #expect(!all.isActive && b.isActive)
        center.removeAllListeners()
        #expect(!b.isActive)
        #expect(center.listenerCount == 0)
    }

    @Test("a handler may remove every listener of its own event; later listeners of that dispatch are not called")
    func removalFromInsideAHandler() {
        let center = EventCenter()
        let calls = Counter()
        let first = center.listen(to: Saved.self) { _ in
            calls.increment()
            center.removeAllListeners(for: Saved.self)
        }
        let second = center.listen(to: Saved.self) { _ in calls.increment() }
        center.dispatch(Saved())
        #expect(calls.value == 1)
        withExtendedLifetime((first, second)) {}
    }
}

extension EventCenter {
    /// Waits until `queue` has run what was queued on it so far.
    func idleForTests(_ queue: DispatchQueue) async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }
}
