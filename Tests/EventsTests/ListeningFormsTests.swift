import Dispatch
import Foundation
import Testing

@testable import Events

// `listen(to:)` takes what is heard as a type: an event type, a family (a protocol or a class
// that is not itself an event), `NamedEvent` for every name, or `Sent<...>` of any of these for
// the sender too. Each combination with each context is exercised here once.

private protocol Door: Event { var room: String { get } }
private struct DoorOpened: Door { let room: String }
private struct DoorClosed: Door { let room: String }
private struct LightOn: Event { let room: String }

private class Vehicle: @unchecked Sendable {
    // Why @unchecked is safe: no stored state.
    var name: String { "vehicle" }
}
private final class CarArrived: Vehicle, Event, @unchecked Sendable {
    // Why @unchecked is safe: no stored state.
    override var name: String { "car" }
}

private final class Sensor: Sendable {}

private actor RoomLog {
    var entries: [String] = []
    func append(_ entry: String) { entries.append(entry) }
}

@MainActor private final class RoomScreen {
    var shown: [String] = []
}

extension EventName {
    fileprivate static let bell: EventName = "forms.bell"
    fileprivate static let alarm: EventName = "forms.alarm"
}

@Suite("One way to listen: what is heard follows from the type")
struct ListeningFormsTests {
    // MARK: Families through listen(to:)

    @Test("a protocol given to listen(to:) hears every event type that conforms, and nothing else")
    func protocolFamily() {
        let center = EventCenter()
        let heard = Recorder<String>()
        let doors = center.listen(to: (any Door).self) { door in heard.record("\(type(of: door)) \(door.room)") }
        center.dispatch(DoorOpened(room: "hall"))
        center.dispatch(LightOn(room: "hall"))
        center.dispatch(DoorClosed(room: "attic"))
        #expect(heard.values == ["DoorOpened hall", "DoorClosed attic"])
        #expect(center.listenerCount(for: (any Door).self) == 1)
        doors.cancel()
        #expect(center.listenerCount(for: (any Door).self) == 0)
    }

    @Test("(any Event).self hears typed and named events alike")
    func everyEvent() {
        let center = EventCenter()
        let heard = Recorder<String>()
        let everything = center.listen(to: (any Event).self) { event in
            heard.record(String(describing: type(of: event)))
        }
        center.dispatch(LightOn(room: "hall"))
        center.dispatch(.bell)
        #expect(heard.values == ["LightOn", "NamedEvent"])
        withExtendedLifetime(everything) {}
    }

    @Test("a base class that is not an event hears its event subclasses; an event class is heard alone")
    func classes() {
        let center = EventCenter()
        let heard = Recorder<String>()
        let vehicles = center.listen(to: Vehicle.self) { vehicle in heard.record("vehicle: \(vehicle.name)") }
        let cars = center.listen(to: CarArrived.self) { car in heard.record("car: \(car.name)") }
        center.dispatch(CarArrived())
        #expect(heard.values == ["car: car", "vehicle: car"])
        withExtendedLifetime((vehicles, cars)) {}
    }

    @Test("a family listener takes owner, key, main actor, actor, once, current values and coalescing")
    func familyOptions() async {
        let center = EventCenter()
        let heard = Recorder<String>()
        let sensor = Sensor()
        center.listen(to: (any Door).self, owner: sensor, key: "doors") { _, door in heard.record("owner \(door.room)")
        }
        // A repeated keyed registration is ignored, as for event types.
        center.listen(to: (any Door).self, owner: sensor, key: "doors") { _, door in heard.record("twice \(door.room)")
        }
        let once = center.listen(to: (any Door).self, once: true) { door in heard.record("once \(door.room)") }
        let log = RoomLog()
        center.listen(to: (any Door).self, isolatedTo: log) { log, door in log.append(door.room) }
        let screen = RoomScreen()
        let main = center.listen(to: (any Door).self, on: .main) { door in screen.shown.append(door.room) }
        let coalesced = center.listen(to: (any Door).self, on: .background, coalescing: .latest) { door in
            heard.record("latest \(door.room)")
        }
        center.dispatch(DoorOpened(room: "hall"))
        center.dispatch(DoorClosed(room: "attic"))
        await center.idle()
        #expect(heard.values.filter { $0.hasPrefix("owner") } == ["owner hall", "owner attic"])
        #expect(!heard.values.contains { $0.hasPrefix("twice") })
        #expect(heard.values.filter { $0.hasPrefix("once") } == ["once hall"])
        #expect(heard.values.last { $0.hasPrefix("latest") } == "latest attic")
        #expect(await log.entries == ["hall", "attic"])
        #expect(await screen.shown == ["hall", "attic"])
        center.remove(sensor, for: (any Door).self)
        center.dispatch(DoorOpened(room: "cellar"))
        await center.idle()
        #expect(!heard.values.contains("owner cellar"))
        withExtendedLifetime((once, main, coalesced)) {}
    }

    @Test("a family listener that asks for current values receives those of every member type")
    func familyReceivingCurrent() {
        let center = EventCenter()
        center.dispatch(DoorOpened(room: "hall"), keepingCurrent: .perType)
        center.dispatch(LightOn(room: "hall"), keepingCurrent: .perType)
        center.dispatch(DoorClosed(room: "attic"), keepingCurrent: .perType)
        let heard = Recorder<String>()
        let doors = center.listen(to: (any Door).self, receivingCurrent: true) { door in heard.record(door.room) }
        #expect(heard.values == ["hall", "attic"])
        withExtendedLifetime(doors) {}
    }

    // MARK: Every name as NamedEvent

    @Test("NamedEvent.self hears every name, in every context, and is removed and counted as such")
    func everyName() async {
        let center = EventCenter()
        let heard = Recorder<String>()
        let sensor = Sensor()
        let plain = center.listen(to: NamedEvent.self) { event in heard.record("plain \(event.name)") }
        center.listen(to: NamedEvent.self, owner: sensor) { _, event in heard.record("owner \(event.name)") }
        let log = RoomLog()
        center.listen(to: NamedEvent.self, isolatedTo: log) { log, event in log.append(event.name.rawValue) }
        let screen = RoomScreen()
        let main = center.listen(to: NamedEvent.self, on: .mainOrdered) { event in
            screen.shown.append(event.name.rawValue)
        }
        #expect(center.listenerCount(for: NamedEvent.self) == 4)
        #expect(center.dispatch(.bell) == 4)
        await center.idle()
        #expect(heard.values == ["plain forms.bell", "owner forms.bell"])
        #expect(await log.entries == ["forms.bell"])
        #expect(await screen.shown == ["forms.bell"])
        center.remove(sensor, for: NamedEvent.self)
        #expect(center.listenerCount(for: NamedEvent.self) == 3)
        center.removeAllListeners(for: NamedEvent.self)
        #expect(center.dispatch(.alarm) == 0)
        withExtendedLifetime((plain, main)) {}
    }

    // MARK: Sent

    @Test("Sent<E> hands each event over with its sender, and nil without one")
    func sentHasTheSender() {
        let center = EventCenter()
        let sensor = Sensor()
        let heard = Recorder<String>()
        let subscription = center.listen(to: Sent<LightOn>.self) { sent in
            heard.record("\(sent.event.room) \(sent.sender === sensor) \(sent.sender == nil)")
        }
        center.dispatch(LightOn(room: "hall"), from: sensor)
        center.dispatch(LightOn(room: "attic"))
        #expect(heard.values == ["hall true false", "attic false true"])
        #expect(center.listenerCount(for: LightOn.self) == 1)
        #expect(center.listenerCount(for: Sent<LightOn>.self) == 1)
        withExtendedLifetime(subscription) {}
    }

    @Test("Sent works with an owner, from:, the main actor, an actor, a queue, a family and coalescing")
    func sentEverywhere() async {
        let center = EventCenter()
        let sensor = Sensor()
        let other = Sensor()
        let heard = Recorder<String>()
        center.listen(to: Sent<LightOn>.self, owner: sensor, from: sensor) { owner, sent in
            heard.record("owner \(sent.event.room) \(sent.sender === owner)")
        }
        let screen = RoomScreen()
        let main = center.listen(to: Sent<LightOn>.self, on: .main) { sent in
            screen.shown.append("\(sent.event.room) \(sent.sender === sensor)")
        }
        let log = RoomLog()
        center.listen(to: Sent<LightOn>.self, isolatedTo: log) { log, sent in
            log.append("\(sent.event.room) \(sent.sender === sensor)")
        }
        let queue = DispatchQueue(label: "forms.sent")
        let queued = center.listen(to: Sent<LightOn>.self, on: .queue(queue)) { sent in
            heard.record("queue \(sent.sender === sensor)")
        }
        let family = center.listen(to: Sent<any Door>.self) { sent in
            heard.record("family \(sent.event.room) \(sent.sender === other)")
        }
        let coalesced = center.listen(to: Sent<LightOn>.self, on: .background, coalescing: .latest) { sent in
            heard.record("latest \(sent.event.room) \(sent.sender === other)")
        }
        center.dispatch(LightOn(room: "hall"), from: sensor)
        center.dispatch(DoorOpened(room: "porch"), from: other)
        center.dispatch(LightOn(room: "attic"), from: other)
        await center.idle()
        #expect(heard.values.filter { $0.hasPrefix("owner") } == ["owner hall true"])
        #expect(heard.values.contains("queue true"))
        #expect(heard.values.contains("family porch true"))
        #expect(heard.values.last { $0.hasPrefix("latest") } == "latest attic true")
        #expect(await screen.shown == ["hall true", "attic false"])
        #expect(await log.entries == ["hall true", "attic false"])
        withExtendedLifetime((main, queued, family, coalesced)) {}
    }

    @Test("Sent<NamedEvent> hears every name with its sender")
    func sentNames() {
        let center = EventCenter()
        let sensor = Sensor()
        let heard = Recorder<String>()
        let all = center.listen(to: Sent<NamedEvent>.self) { sent in
            heard.record("\(sent.event.name) \(sent.sender === sensor)")
        }
        center.dispatch(.bell, from: sensor)
        #expect(heard.values == ["forms.bell true"])
        withExtendedLifetime(all) {}
    }

    // MARK: Interceptors

    @Test("intercept stops the listeners after it, for a type, an owner, a name, a family and Sent")
    func interceptors() {
        let center = EventCenter()
        let sensor = Sensor()
        let heard = Recorder<String>()
        let guardLight = center.intercept(LightOn.self, priority: .high) { light in
            light.room == "vault" ? .stop : .continue
        }
        let lights = center.listen(to: LightOn.self) { light in heard.record("light \(light.room)") }
        center.intercept(DoorOpened.self, owner: sensor, priority: .high) { _, door in
            door.room == "vault" ? .stop : .continue
        }
        let guardDoors = center.intercept((any Door).self, priority: .high) { door in
            door.room == "safe" ? .stop : .continue
        }
        let doors = center.listen(to: (any Door).self) { door in heard.record("door \(door.room)") }
        let guardBell = center.intercept(.bell, priority: .high) { _ in .stop }
        let bells = center.listen(to: .bell) { _ in heard.record("bell") }
        let guardSent = center.intercept(Sent<LightOn>.self, priority: Priority(2_000)) { sent in
            sent.sender === sensor ? .stop : .continue
        }

        #expect(center.dispatchWithResult(LightOn(room: "vault")).isStopped)
        #expect(center.dispatchWithResult(LightOn(room: "hall"), from: sensor).isStopped)
        center.dispatch(LightOn(room: "hall"))
        #expect(center.dispatchWithResult(DoorOpened(room: "vault")).isStopped)
        #expect(center.dispatchWithResult(DoorClosed(room: "safe")).isStopped)
        center.dispatch(DoorClosed(room: "hall"))
        #expect(center.dispatchWithResult(.bell).isStopped)
        #expect(heard.values == ["light hall", "door hall"])
        withExtendedLifetime((guardLight, lights, guardDoors, doors, guardBell, bells, guardSent)) {}
    }

    // MARK: Misuse

    @Test("a main-actor closure that answers with a Propagation stops the program at registration")
    func stoppingOnTheMainActorIsRefused() async {
        await #expect(processExitsWith: .failure) {
            let center = EventCenter()
            _ = center.listen(to: LightOn.self, on: .main) { _ in Propagation.stop }
        }
    }

    @Test("keeping an event as the current value and holding it until heard cannot be asked at once")
    func keepOrHold() async {
        await #expect(processExitsWith: .failure) {
            let center = EventCenter()
            center.dispatch(LightOn(room: "hall"), keepingCurrent: .perType, holdingIfUnheard: .for(.seconds(1)))
        }
    }
}
