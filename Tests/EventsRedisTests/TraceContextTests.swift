import Events
import Foundation
import RedisServerSupport
import RedisTestSupport
import Testing

@testable import EventsRedis

struct TracedOrder: RemoteEvent, Equatable {
    static let wireName = "com.example.test.traced-order"
    let n: Int
}

struct TracedShipment: RemoteEvent, Equatable {
    static let wireName = "com.example.test.traced-shipment"
    let n: Int
}

private let trace = try! TraceContext(
    traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "rojo=00f067aa0ba902b7")

/// What a listener saw of one event: its number, the current trace context, and the origin's.
private struct Sighting: Sendable, Equatable {
    let n: Int
    let current: TraceContext?
    let onOrigin: TraceContext?
}

@Suite("Trace context on the wire")
struct TraceContextWireTests {
    @Test("a CloudEvent keeps traceparent and tracestate through its JSON, written where bridges write them")
    func cloudEventRoundTrip() throws {
        var event = CloudEvent(id: "1", source: "s", type: "t", data: Array("1".utf8))
        event.traceparent = trace.traceparent
        event.tracestate = #"quote=a"b"#
        let json = event.jsonBytes()
        #expect(
            String(decoding: json, as: UTF8.self)
                == #"{"specversion":"1.0","id":"1","source":"s","type":"t","datacontenttype":"application/json","#
                + #""traceparent":"\#(trace.traceparent)","tracestate":"quote=a\"b","data":1}"#)
        let read = try CloudEvent(json: json)
        #expect(read == event)
        #expect(read.traceContext == (try TraceContext(traceparent: trace.traceparent, tracestate: #"quote=a"b"#)))
    }

    @Test("an envelope with a trace context writes exactly what CloudEvent.jsonBytes() writes")
    func envelopeMatchesJSONBytes() throws {
        let time = Date(timeIntervalSince1970: 1_796_026_502.125)
        let envelope = OutboundEnvelope(type: "t", source: "s", idPrefix: "p-")
        for context in [trace, try TraceContext(traceparent: trace.traceparent)] {
            let written = envelope.message(sequence: 4, subject: "Checkout", time: time, trace: context) { output in
                output.append(contentsOf: #","data":{"n":1}"#.utf8)
            }
            var expected = CloudEvent(
                id: "p-4", source: "s", type: "t", subject: "Checkout", time: time, data: Array(#"{"n":1}"#.utf8))
            expected.traceparent = context.traceparent
            expected.tracestate = context.tracestate
            #expect(written == expected.jsonBytes())
            let scanned = try CloudEvent.Scanned(json: written, dataInPlace: true)
            #expect(scanned.traceparent != nil)
            #expect(try CloudEvent(json: written).traceContext == context)
        }
    }

    @Test("a message as bridges write it, trace attributes included, takes the canonical scan, which reads them")
    func canonicalLayout() throws {
        let envelope = OutboundEnvelope(type: "t", source: "s", idPrefix: "p-")
        let time = Date(timeIntervalSince1970: 0)
        let written = envelope.message(sequence: 1, subject: nil, time: time, trace: trace) { output in
            output.append(contentsOf: #","data":1"#.utf8)
        }
        let envelopeFound = written.withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes, maxDepth: 513)
            return CloudEvent.Envelope(canonical: &scanner)
        }
        let found = try #require(envelopeFound)
        guard case .string = found.traceparent, case .string = found.tracestate else {
            Issue.record("the canonical scan did not record the trace attributes")
            return
        }
        // A trace attribute that is not a string falls back to the general scan, which ignores it.
        let odd = Array(#"{"specversion":"1.0","id":"1","source":"s","type":"t","traceparent":7,"data":1}"#.utf8)
        let oddFound = odd.withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes, maxDepth: 513)
            return CloudEvent.Envelope(canonical: &scanner)
        }
        #expect(oddFound == nil)
        #expect(try CloudEvent(json: odd).traceparent == nil)
    }

    @Test("any layout is read: other member order, white space, escapes, inside a batch element")
    func generalLayout() throws {
        let message = Array(
            #"{ "tracestate" : "rojo=00f067aa0ba902b7", "type":"t", "traceparent":"\#(trace.traceparent.replacingOccurrences(of: "-", with: "\\u002d"))", "id":"1","source":"s","specversion":"1.0"}"#
                .utf8)
        let read = try CloudEvent(json: message)
        #expect(read.traceContext == trace)
        let padded = Array("[7,".utf8) + message + Array("]".utf8)
        let scanned = try CloudEvent.Scanned(json: padded, in: 3..<(3 + message.count), dataInPlace: true)
        let origin = RemoteOrigin(message: padded, scanned: scanned, key: "k", streamEntryID: nil)
        #expect(origin.traceContext == trace)
    }

    @Test("a traceparent or tracestate that is not a string is ignored, and the event is still valid")
    func nonStringAttributes() throws {
        let read = try CloudEvent(
            json: Array(
                #"{"specversion":"1.0","id":"1","source":"s","type":"t","traceparent":42,"tracestate":[1]}"#.utf8))
        #expect(read.traceparent == nil && read.tracestate == nil && read.traceContext == nil)
        #expect(throws: CloudEventError.self) {
            try CloudEvent(
                json: Array(
                    #"{"specversion":"1.0","id":"1","source":"s","type":"t","traceparent":"a","traceparent":"b"}"#.utf8)
            )
        }
    }
}

@Suite(
    "Redis bridge: trace context across processes",
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason))
)
struct TraceContextTests {
    @Test(
        "a trace context crosses two bridges: current and on the origin for the listeners of each hop",
        arguments: [RedisBridge.Mode.pubSub, .stream])
    func crossesTwoBridges(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        // Process A dispatches orders; B hears them and dispatches shipments; C hears those.
        let centerA = EventCenter()
        let centerB = EventCenter()
        let centerC = EventCenter()
        let bridgeA = RedisBridge(
            center: centerA, configuration: bridgeConfiguration(server, source: "a", errors: errors))
        let bridgeB = RedisBridge(
            center: centerB, configuration: bridgeConfiguration(server, source: "b", errors: errors))
        let bridgeC = RedisBridge(
            center: centerC, configuration: bridgeConfiguration(server, source: "c", errors: errors))
        try bridgeA.carry(TracedOrder.self, mode: mode, direction: .outgoing)
        try bridgeB.carry(TracedOrder.self, mode: mode, direction: .incoming)
        try bridgeB.carry(TracedShipment.self, mode: mode, direction: .outgoing)
        try bridgeC.carry(TracedShipment.self, mode: mode, direction: .incoming)

        let atB = Log<Sighting>()
        let queuedAtB = Log<Sighting>()
        let atC = Log<Sighting>()
        let listeners = [
            centerB.listen(to: TracedOrder.self) { order, sender in
                atB.append(
                    Sighting(
                        n: order.n, current: TraceContext.current,
                        onOrigin: sender?.object(as: RemoteOrigin.self)?.traceContext))
            },
            // A queued listener passes the trace on: the shipment it dispatches carries it.
            centerB.listen(to: TracedOrder.self, on: .background) { order, sender in
                queuedAtB.append(
                    Sighting(
                        n: order.n, current: TraceContext.current,
                        onOrigin: sender?.object(as: RemoteOrigin.self)?.traceContext))
                centerB.dispatch(TracedShipment(n: order.n))
            },
            centerC.listen(to: TracedShipment.self) { shipment, sender in
                atC.append(
                    Sighting(
                        n: shipment.n, current: TraceContext.current,
                        onOrigin: sender?.object(as: RemoteOrigin.self)?.traceContext))
            },
        ]
        // Receivers first, so that Pub/Sub has its subscribers.
        try await bridgeC.start()
        try await bridgeB.start()
        try await bridgeA.start()

        TraceContext.withCurrent(trace) { centerA.dispatch(TracedOrder(n: 1)) }
        centerA.dispatch(TracedOrder(n: 2))
        #expect(await eventually { atC.count == 2 })
        let expected = [
            Sighting(n: 1, current: trace, onOrigin: trace), Sighting(n: 2, current: nil, onOrigin: nil),
        ]
        #expect(atB.values == expected)
        #expect(queuedAtB.values == expected)
        #expect(atC.values == expected)
        #expect(atC.values.first?.current?.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(errors.all.isEmpty, "\(errors.all)")
        withExtendedLifetime(listeners) {}
        await bridgeA.stop()
        await bridgeB.stop()
        await bridgeC.stop()
    }

    @Test(
        "an event from a plain Redis client keeps its traceparent; an invalid one gives nil and the event arrives",
        arguments: [RedisBridge.Mode.pubSub, .stream])
    func plainClient(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let seen = Log<Sighting>()
        let listener = center.listen(to: TracedOrder.self) { order, sender in
            seen.append(
                Sighting(
                    n: order.n, current: TraceContext.current,
                    onOrigin: sender?.object(as: RemoteOrigin.self)?.traceContext))
        }
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "b", errors: errors))
        try bridge.carry(TracedOrder.self, mode: mode, direction: .incoming)
        try await bridge.start()

        let type = TracedOrder.wireName
        func message(_ n: Int, _ extra: String) -> String {
            #"{"specversion":"1.0","type":"\#(type)","source":"python/worker","id":"\#(n)",\#(extra)"data":{"n":\#(n)}}"#
        }
        let messages = [
            message(1, #""traceparent":"\#(trace.traceparent)","tracestate":"rojo=00f067aa0ba902b7","#),
            message(2, #""traceparent":"00-00000000000000000000000000000000-00f067aa0ba902b7-01","#),
            message(3, #""traceparent":"\#(trace.traceparent)","tracestate":"Not Valid","#),
            message(4, #""traceparent":1234,"#),
            message(5, ""),
        ]
        let key = RedisArgument("test:" + type)
        let client = RedisClient(server.configuration)
        _ = try await client.pipeline(
            messages.map { message in
                mode == .stream
                    ? ["XADD", key, "*", "event", RedisArgument(message)] : ["PUBLISH", key, RedisArgument(message)]
            })
        #expect(await eventually { seen.count == 5 })
        let withoutState = try TraceContext(traceparent: trace.traceparent)
        #expect(
            seen.values == [
                Sighting(n: 1, current: trace, onOrigin: trace), Sighting(n: 2, current: nil, onOrigin: nil),
                Sighting(n: 3, current: withoutState, onOrigin: withoutState),
                Sighting(n: 4, current: nil, onOrigin: nil), Sighting(n: 5, current: nil, onOrigin: nil),
            ])
        #expect(bridge.statistics.invalidMessages == 0)
        #expect(errors.all.isEmpty, "\(errors.all)")
        withExtendedLifetime(listener) {}
        client.close()
        await bridge.stop()
    }

    @Test(
        "the published message carries the dispatch's trace context, readable by any client",
        arguments: [RedisBridge.Mode.stream])
    func onTheWire(mode: RedisBridge.Mode) async throws {
        let server = try RedisServer()
        let errors = ErrorLog()
        let center = EventCenter()
        let bridge = RedisBridge(
            center: center, configuration: bridgeConfiguration(server, source: "a", errors: errors))
        try bridge.carry(TracedOrder.self, mode: mode, direction: .outgoing)
        try await bridge.start()
        TraceContext.withCurrent(trace) { center.dispatch(TracedOrder(n: 1)) }
        center.dispatch(TracedOrder(n: 2))
        #expect(await bridge.flush(timeout: .seconds(10)))
        let client = RedisClient(server.configuration)
        let reply = try await client.send("XRANGE", RedisArgument("test:" + TracedOrder.wireName), "-", "+")
        let entries = try #require(reply.array)
        #expect(entries.count == 2)
        let objects = try entries.map { entry in
            let json = try #require(entry.array?[1].array?.last?.bytes)
            return try #require(JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        }
        #expect(objects.first?["traceparent"] as? String == trace.traceparent)
        #expect(objects.first?["tracestate"] as? String == trace.tracestate)
        #expect(objects.last?["traceparent"] == nil && objects.last?["tracestate"] == nil)
        #expect(errors.all.isEmpty, "\(errors.all)")
        client.close()
        await bridge.stop()
    }
}
