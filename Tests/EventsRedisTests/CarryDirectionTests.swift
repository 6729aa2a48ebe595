import Events
import Testing

@testable import EventsRedis

/// `carry` takes its direction as a defaulted parameter: every spelling, with and without
/// `direction:`, still compiles and means what it meant. Nothing here needs Redis: an event
/// that is published is heard from the moment it is carried, so the center's listener count
/// shows whether the bridge publishes it.
@Suite("Carry direction")
struct CarryDirectionTests {
    func bridge(_ center: EventCenter) -> RedisBridge {
        RedisBridge(center: center, configuration: RedisBridge.Configuration(source: "test/carry"))
    }

    @Test("Without a direction every carry publishes and receives, as with direction: .both")
    func defaultIsBoth() throws {
        let center = EventCenter()
        let bridge = bridge(center)
        try bridge.carry(Sequenced.self, mode: .stream)
        try bridge.carry("cacheCleared", mode: .pubSub)
        try bridge.carry("userSignedIn", data: Int.self, mode: .stream)
        #expect(center.listenerCount(for: Sequenced.self) == 1)
        #expect(center.listenerCount(for: "cacheCleared") == 1)
        #expect(center.listenerCount(for: "userSignedIn") == 1)

        let explicit = EventCenter()
        let both = self.bridge(explicit)
        try both.carry(Sequenced.self, mode: .stream, direction: .both)
        try both.carry("cacheCleared", mode: .pubSub, direction: .both)
        try both.carry("userSignedIn", data: Int.self, mode: .stream, direction: .both)
        #expect(explicit.listenerCount(for: Sequenced.self) == 1)
        #expect(explicit.listenerCount(for: "cacheCleared") == 1)
        #expect(explicit.listenerCount(for: "userSignedIn") == 1)
    }

    @Test("An incoming-only carry does not listen locally; an outgoing one does, in every spelling")
    func explicitDirections() throws {
        let center = EventCenter()
        let bridge = bridge(center)
        try bridge.carry(Sequenced.self, mode: .stream, direction: .incoming)
        try bridge.carry("cacheCleared", mode: .pubSub, direction: .incoming)
        try bridge.carry("userSignedIn", data: Int.self, mode: .stream, direction: .incoming)
        #expect(center.listenerCount(for: Sequenced.self) == 0)
        #expect(center.listenerCount(for: "cacheCleared") == 0)
        #expect(center.listenerCount(for: "userSignedIn") == 0)

        let outgoing = EventCenter()
        let publisher = self.bridge(outgoing)
        try publisher.carry(Sequenced.self, mode: .pubSub, direction: .outgoing)
        try publisher.carry("cacheCleared", mode: .pubSub, direction: .outgoing)
        try publisher.carry("userSignedIn", data: Int.self, mode: .pubSub, direction: .outgoing)
        #expect(outgoing.listenerCount(for: Sequenced.self) == 1)
        #expect(outgoing.listenerCount(for: "cacheCleared") == 1)
        #expect(outgoing.listenerCount(for: "userSignedIn") == 1)
    }

    @Test("A wire name carried once, in any direction, is refused the second time")
    func duplicateAcrossDirections() throws {
        let bridge = bridge(EventCenter())
        try bridge.carry(Sequenced.self, mode: .stream, direction: .incoming)
        #expect(throws: RedisBridgeError.duplicateWireName(Sequenced.wireName)) {
            try bridge.carry(Sequenced.self, mode: .stream)
        }
    }
}
