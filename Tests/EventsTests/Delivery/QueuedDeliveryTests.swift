import Dispatch
import Foundation
import Testing

@testable import Events

// What waits in a listener's mailbox between the dispatch and the handler: events of every
// size and kind come out as they went in, in order, with their sender and trace context, and
// nothing that waited is kept once it has been delivered.

/// Larger than an existential's inline storage: it waits in a box of its own.
private struct Manifest: Event {
    let id: Int
    let title: String
    let lines: [String]
    let checksum: UInt64
    let origin: String
}

private protocol Parcel: Event { var weight: Int { get } }
private struct Letter: Parcel { let weight: Int }
private struct Crate: Parcel {
    let weight: Int
    let contents: [String]
    let fragile: Bool
    let route: (String, String, String)
}

/// A reference event, to see that what waited is released after its delivery.
private final class Shipment: Event {
    let id: Int
    init(id: Int) { self.id = id }
}

@Suite("What waits in a listener's mailbox", .timeLimit(.minutes(1)))
struct QueuedDeliveryTests {
    @Test("large events arrive intact and in order")
    func largeEvents() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "test.queued.large")
        let heard = Recorder<Manifest>()
        let subscription = center.listen(to: Manifest.self, on: .queue(queue)) { heard.record($0) }
        let hold = QueueGate(queue)
        let sent = (0..<300).map { n in
            Manifest(
                id: n, title: "manifest \(n)", lines: (0..<(n % 5)).map { "line \($0) of \(n)" },
                checksum: UInt64(n) &* 0x9E37_79B9_7F4A_7C15, origin: String(repeating: "o", count: n % 40))
        }
        for manifest in sent { center.dispatch(manifest) }
        hold.release()
        await center.idle()
        let got = heard.values
        #expect(got.count == sent.count)
        #expect(got.map(\.id) == sent.map(\.id))
        #expect(got.map(\.title) == sent.map(\.title))
        #expect(got.map(\.lines) == sent.map(\.lines))
        #expect(got.map(\.checksum) == sent.map(\.checksum))
        #expect(got.map(\.origin) == sent.map(\.origin))
        subscription.cancel()
    }

    @Test("a family listener on the main actor gets each member as it was dispatched, in order")
    func familyMembers() async {
        let center = EventCenter()
        let heard = Recorder<String>()
        let subscription = center.listen(to: (any Parcel).self, on: .mainOrdered) { parcel in
            switch parcel {
            case let letter as Letter: heard.record("letter \(letter.weight)")
            case let crate as Crate:
                heard.record("crate \(crate.weight) \(crate.contents.joined(separator: "+")) \(crate.route.2)")
            default: heard.record("unknown \(type(of: parcel))")
            }
        }
        let sender = DispatchQueue(label: "test.queued.family.sender")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            sender.async {
                for n in 0..<50 {
                    if n.isMultiple(of: 2) {
                        center.dispatch(Letter(weight: n))
                    } else {
                        center.dispatch(
                            Crate(weight: n, contents: ["a\(n)", "b\(n)"], fragile: n > 25, route: ("x", "y", "z\(n)")))
                    }
                }
                done.resume()
            }
        }
        await center.idle()
        let expected = (0..<50).map { n in n.isMultiple(of: 2) ? "letter \(n)" : "crate \(n) a\(n)+b\(n) z\(n)" }
        #expect(heard.values == expected)
        subscription.cancel()
    }

    @Test("each queued event keeps its own sender and trace context")
    func senderAndTrace() async throws {
        let center = EventCenter()
        let queue = DispatchQueue(label: "test.queued.context")
        let heard = Recorder<String>()
        let subscription = center.listen(to: Sent<Letter>.self, on: .queue(queue)) { sent in
            let trace = TraceContext.current.map { String($0.traceID.suffix(4)) } ?? "none"
            let from = sent.sender.map { $0.object(as: Sensor.self) != nil ? "sensor" : "other" } ?? "nobody"
            heard.record("\(sent.event.weight) \(from) \(trace)")
        }
        let sensor = Sensor()
        let hold = QueueGate(queue)
        let first = try TraceContext(traceparent: "00-0af7651916cd43dd8448eb211c80a001-b7ad6b7169203331-01")
        let second = try TraceContext(traceparent: "00-0af7651916cd43dd8448eb211c80a002-b7ad6b7169203331-01")
        TraceContext.withCurrent(first) { center.dispatch(Letter(weight: 1), from: sensor) }
        center.dispatch(Letter(weight: 2))
        TraceContext.withCurrent(second) { center.dispatch(Letter(weight: 3), from: self as AnyObject) }
        center.dispatch(Letter(weight: 4), from: sensor)
        hold.release()
        await center.idle()
        #expect(heard.values == ["1 sensor a001", "2 nobody none", "3 other a002", "4 sensor none"])
        subscription.cancel()
    }

    @Test("an event that waited is released once its listener has had it")
    func releasedAfterDelivery() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "test.queued.release")
        let heard = Recorder<Int>()
        let subscription = center.listen(to: Shipment.self, on: .queue(queue)) { heard.record($0.id) }
        let hold = QueueGate(queue)
        weak var watched: Shipment?
        do {
            let shipment = Shipment(id: 7)
            watched = shipment
            center.dispatch(shipment)
        }
        #expect(watched != nil, "the mailbox holds the event until its turn")
        hold.release()
        await center.idle()
        #expect(heard.values == [7])
        // The drain lets the event go after the handler returns, on the queue: a block behind
        // it runs after that.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
        #expect(watched == nil)
        subscription.cancel()
    }
}

private final class Sensor: Sendable {}
