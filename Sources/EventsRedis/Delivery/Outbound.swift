import Events
import Foundation
import Synchronization

/// The publishing half of a bridge, as the local listeners see it: turns a locally dispatched
/// event into a CloudEvent and queues it for its publish loop. Runs on the dispatching thread,
/// so it encodes and enqueues, nothing more.
final class Outbound: Sendable {
    let source: String
    let subject: @Sendable (Sender) -> String?
    let pubSubQueue: PublishQueue
    let streamQueue: PublishQueue
    let counters: BridgeCounters
    let report: @Sendable (RedisBridgeError) -> Void
    /// Event ids are this random prefix (new for every bridge instance, so ids never repeat
    /// across restarts) and a counter: unique within the source, and far cheaper than a UUID
    /// per event (`UUID().uuidString` on Linux was most of a publish).
    let idPrefix: String
    private let nextID = Atomic<UInt64>(0)
    /// Where accepted events are written before `publish` returns; nil without an outbox (or
    /// when it could not be opened, in which case nothing is carried).
    let outbox: DurableOutbox?

    init(
        configuration: RedisBridge.Configuration, counters: BridgeCounters, outbox: DurableOutbox? = nil,
        report: @escaping @Sendable (RedisBridgeError) -> Void
    ) {
        self.outbox = outbox
        source = configuration.source
        subject = configuration.subject
        // A capacity below 1 fails `Configuration.validated()`, so nothing is ever queued with
        // it; the queues still need room for one to be made at all.
        pubSubQueue = PublishQueue(capacity: max(configuration.publishBufferCapacity, 1))
        streamQueue = PublishQueue(capacity: max(configuration.publishBufferCapacity, 1))
        self.counters = counters
        self.report = report
        var generator = SystemRandomNumberGenerator()
        idPrefix = String(generator.next() as UInt64, radix: 16) + "-"
    }

    /// How this bridge writes the CloudEvents of the carried type `type`.
    func envelope(type: String) -> OutboundEnvelope {
        OutboundEnvelope(type: type, source: source, idPrefix: idPrefix)
    }

    /// Where the messages of the carried type `type` go: made once per carried event, by the
    /// queue of `mode`, which keeps it.
    func route(type: String, mode: RedisBridge.Mode, key: String) -> OutboundRoute {
        queue(mode).route(type: type, key: key, idPrefix: idPrefix)
    }

    /// Queues what an earlier run left in the outbox, in the order it was written, ahead of
    /// everything dispatched from now on: each keeps its own id (receivers suppress the copy
    /// Redis may already have), whatever the buffer's capacity.
    func queueAgain(_ entries: [OutboxRecord.Entry]) {
        for entry in entries {
            let queue = queue(entry.mode)
            let route = queue.route(type: entry.type, key: entry.key, idPrefix: entry.idPrefix)
            _ = queue.enqueue(
                OutboundMessage(
                    route: route, idNumber: entry.idNumber, payload: entry.payload, outboxSequence: entry.sequence),
                ignoringCapacity: true)
        }
    }

    /// The publish queue of `mode`.
    func queue(_ mode: RedisBridge.Mode) -> PublishQueue {
        mode == .pubSub ? pubSubQueue : streamQueue
    }

    /// Publishes one locally dispatched event along `route` (from `route(type:mode:key:)` with
    /// the same `mode`): `appendData` appends its `data` member (see `OutboundEnvelope.message`).
    /// `trace`, the trace context current at the dispatch, goes on the wire with it.
    func publish(
        _ envelope: OutboundEnvelope, route: OutboundRoute, mode: RedisBridge.Mode, sender: Sender?,
        trace: TraceContext? = nil, appendData: (inout [UInt8]) throws -> Void
    ) {
        let sequence = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let payload: [UInt8]
        do {
            // CloudEvents forbids an empty subject (every receiver would reject the event): none
            // is written instead.
            let subject = sender.flatMap(subject).flatMap { $0.isEmpty ? nil : $0 }
            payload = try envelope.message(
                sequence: sequence, subject: subject, time: Date(), trace: trace, appendData: appendData)
        } catch let failure as CarriedEvent.CodingFailure {
            report(.cannotEncode(type: envelope.type, reason: failure.reason))
            return
        } catch {
            report(.cannotEncode(type: envelope.type, reason: String(describing: error)))
            return
        }
        var outboxSequence: UInt64 = 0
        var ticket: UInt64?
        if let outbox, mode == .stream || outbox.settings.includesPubSub {
            switch outbox.append(
                mode: mode, type: envelope.type, key: route.key, idPrefix: idPrefix, idNumber: sequence,
                payload: payload)
            {
            case .written(let entry, let written):
                outboxSequence = entry
                if outbox.syncsEveryEvent { ticket = written }
            case .full:
                counters.rejectedOutboxFull.increment()
                report(
                    .outboxFull(
                        type: envelope.type, id: idPrefix + String(sequence), capacity: outbox.settings.maximumBytes))
                return
            case .failed(let error):
                report(error)
            case .closed:
                break
            }
        }
        let message = OutboundMessage(
            route: route, idNumber: sequence, payload: payload, outboxSequence: outboxSequence)
        let queue = queue(mode)
        // Queued before the wait for the disk, so that the publisher sends it meanwhile; a
        // confirmation that comes first finds the entry already written.
        let accepted = queue.enqueue(message)
        if let ticket, let outbox { outbox.waitUntilDurable(ticket) }
        if !accepted {
            // Refused (the buffer full, or the bridge stopping): reported as not published, so
            // the file must not publish it later either.
            if outboxSequence != 0, let outbox { outbox.confirm([outboxSequence]) }
            if queue.isClosed {
                // Heard while the bridge stopped, after its buffer was given up.
                counters.unpublishedAtStop.increment()
                report(.stoppedWithUnpublishedEvents(1))
            } else {
                counters.rejectedBufferFull.increment()
                report(.publishBufferFull(type: envelope.type, id: message.id, capacity: queue.capacity))
            }
        }
    }
}
