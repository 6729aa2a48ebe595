import Dispatch
import Foundation
import Testing

@testable import Events

@Suite("Recording the topology")
struct TopologyRecordingTests {
    struct OrderPlaced: Event {}
    struct StockReserved: Event {}
    final class Checkout: Sendable {}
    final class Warehouse: Sendable {}
    final class Mailer: Sendable {}

    @Test("dispatchers, events and listeners become nodes; edges carry the observed counts")
    func recordsTheFlow() throws {
        let center = EventCenter()
        center.diagnostics.recordsTopology = true
        let checkout = Checkout()
        let warehouse = Warehouse()
        let mailer = Mailer()
        center.listen(to: OrderPlaced.self, owner: warehouse) { _, _ in center.dispatch(StockReserved()) }
        center.listen(to: OrderPlaced.self, owner: mailer) { _, _ in }
        let audit = center.listen(to: StockReserved.self) { _ in }
        center.dispatch(OrderPlaced(), from: checkout)
        center.dispatch(OrderPlaced(), from: checkout)

        let topology = center.topology()
        func node(_ label: String) throws -> EventTopology.Node {
            try #require(topology.nodes.first { $0.label == label }, "\(topology.nodes)")
        }
        func count(_ from: String, _ to: String) throws -> Int? {
            let (a, b) = (try node(from).id, try node(to).id)
            return topology.edges.first { $0.from == a && $0.to == b }?.count
        }
        #expect(try node("Checkout").kind == .dispatcher)
        #expect(try node("OrderPlaced").kind == .event)
        #expect(try node("Warehouse").kind == .listener)
        #expect(try count("Checkout", "OrderPlaced") == 2)
        #expect(try count("OrderPlaced", "Warehouse") == 2)
        #expect(try count("OrderPlaced", "Mailer") == 2)
        // The warehouse's handler dispatches: the chain shows as listener -> event.
        #expect(try count("Warehouse", "StockReserved") == 2)
        let auditSite = audit.callSite.description
        #expect(try count("StockReserved", auditSite) == 2)
        withExtendedLifetime((checkout, warehouse, mailer, audit)) {}
    }

    @Test("a dispatch without a sender is drawn from its call site; registrations show with no deliveries yet")
    func callSitesAndRegistrations() throws {
        let center = EventCenter()
        center.diagnostics.recordsTopology = true
        let waiting = center.listen(to: StockReserved.self) { _ in }
        let line = #line + 1
        center.dispatch(OrderPlaced())
        let topology = center.topology()
        let dispatcher = try #require(topology.nodes.first { $0.kind == .dispatcher })
        #expect(dispatcher.label == "EventsTests/TopologyRecordingTests.swift:\(line)")
        let listener = try #require(topology.nodes.first { $0.kind == .listener })
        #expect(listener.label == waiting.callSite.description)
        let edge = try #require(topology.edges.first { $0.to == listener.id })
        #expect(edge.count == 0)
        withExtendedLifetime(waiting) {}
    }

    @Test("listeners that ended keep the deliveries they had; resetting forgets recorded ones")
    func endedListenersAndReset() throws {
        let center = EventCenter()
        center.diagnostics.recordsTopology = true
        let owner = Mailer()
        center.listen(to: OrderPlaced.self, owner: owner) { _, _ in }
        center.dispatch(OrderPlaced())
        center.remove(owner)
        let ended = try #require(center.topology().nodes.first { $0.label == "Mailer" })
        #expect(ended.detail == "ended")
        center.resetRecordedTopology()
        #expect(center.topology().nodes.isEmpty)
    }
}
