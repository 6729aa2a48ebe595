import Events
import Foundation
import Synchronization

// Asynchronous delivery through an async sequence, with 1 and 100 consumers: swift-events'
// `EventCenter.events(of:)` beside a hand-rolled fan-out over `AsyncStream` continuations (one
// stream per consumer, the producer yields every event into each) and Foundation's
// `AsyncMessage` through `NotificationCenter.messages(of:for:bufferSize:)`. All are built the
// same way: consumers iterate on the concurrency pool, the producer starts the clock once every
// consumer is iterating, and the clock stops when every consumer has received every event. One
// operation is one event delivered to all consumers.

/// Counts consumers that are ready to receive.
private final class Readiness: Sendable {
    let ready = Atomic<Int>(0)
}

/// Waits, without blocking the main actor, until `count` consumers are ready.
@MainActor
private func waitUntilReady(_ readiness: Readiness, _ count: Int) async {
    while readiness.ready.load(ordering: .acquiring) < count { await Task.yield() }
}

/// `events` pings through one AsyncStream per consumer.
@MainActor
private func asyncStreamDelivery(consumers: Int, events: Int) async -> Duration {
    let pairs = (0..<consumers).map { _ in AsyncStream.makeStream(of: Ping.self, bufferingPolicy: .unbounded) }
    let readiness = Readiness()
    return await withTaskGroup(of: Int.self) { group in
        for (stream, _) in pairs {
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                readiness.ready.add(1, ordering: .releasing)
                var sum = 0
                while let ping = await iterator.next() { sum &+= ping.value }
                return sum
            }
        }
        await waitUntilReady(readiness, consumers)
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<events {
            for (_, continuation) in pairs { continuation.yield(Ping(value: 1)) }
        }
        for (_, continuation) in pairs { continuation.finish() }
        var received = 0
        for await sum in group { received &+= sum }
        let elapsed = clock.now - start
        consume(received)
        return elapsed
    }
}

/// `events` pings dispatched to `consumers` streams from `EventCenter.events(of:)`.
@MainActor
private func eventStreamDelivery(consumers: Int, events: Int) async -> Duration {
    let center = EventCenter()
    let streams = (0..<consumers).map { _ in center.events(of: Ping.self) }
    let readiness = Readiness()
    return await withTaskGroup(of: Int.self) { group in
        for stream in streams {
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                readiness.ready.add(1, ordering: .releasing)
                var sum = 0
                var received = 0
                while received < events, let ping = await iterator.next() {
                    sum &+= ping.value
                    received += 1
                }
                return sum
            }
        }
        await waitUntilReady(readiness, consumers)
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<events { center.dispatch(Ping(value: 1)) }
        var received = 0
        for await sum in group { received &+= sum }
        let elapsed = clock.now - start
        consume(received)
        return elapsed
    }
}

#if compiler(>=6.2)
    /// `events` messages posted to `consumers` sequences from `messages(of:for:bufferSize:)`. The
    /// buffer holds every event, so none is dropped.
    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    @MainActor
    private func asyncMessageDelivery(consumers: Int, events: Int) async -> Duration {
        let center = NotificationCenter()
        let readiness = Readiness()
        return await withTaskGroup(of: Int.self) { group in
            for _ in 0..<consumers {
                let messages = center.messages(of: nil, for: PingAsyncMessage.self, bufferSize: events)
                group.addTask {
                    // Observation starts when the iterator is made.
                    var iterator = messages.makeAsyncIterator()
                    readiness.ready.add(1, ordering: .releasing)
                    var sum = 0
                    var received = 0
                    while received < events, let message = await iterator.next(isolation: nil) {
                        sum &+= message.value
                        received += 1
                    }
                    return sum
                }
            }
            await waitUntilReady(readiness, consumers)
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<events { center.post(PingAsyncMessage(value: 1)) }
            var received = 0
            for await sum in group { received &+= sum }
            let elapsed = clock.now - start
            consume(received)
            return elapsed
        }
    }
#endif

@MainActor
private func asyncMessageWorkload(consumers: Int) -> Workload? {
    #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return Workload { await asyncMessageDelivery(consumers: consumers, events: $0) }
        }
    #endif
    return nil
}

@MainActor
func asyncDeliveryScenario(effort: Effort) async -> ScenarioReport {
    var contenders: [Contender] = []
    for consumers in [1, 100] {
        let suffix = consumers == 1 ? "1 consumer" : "\(consumers) consumers"
        contenders.append(
            Contender(
                name: "EventCenter.events(of:), " + suffix, role: .subject,
                workload: Workload { await eventStreamDelivery(consumers: consumers, events: $0) }))
        contenders.append(
            Contender(
                name: "AsyncStream continuations, " + suffix, role: .baseline,
                workload: Workload { await asyncStreamDelivery(consumers: consumers, events: $0) }))
        contenders.append(
            Contender(
                name: "AsyncMessage messages(of:for:), " + suffix, role: .baseline,
                workload: asyncMessageWorkload(consumers: consumers)))
    }
    var report = ScenarioReport(
        id: "async-delivery", title: "async sequence delivery", unit: .nanosecondsPerOperation,
        operation: "one event delivered to every consumer of an async sequence",
        rows: await measure(contenders, effort: effort))
    let subject = report.rows.first { $0.name == "EventCenter.events(of:), 1 consumer" }?.value
    let stream = report.rows.first { $0.name == "AsyncStream continuations, 1 consumer" }?.value
    let message = report.rows.first { $0.name == "AsyncMessage messages(of:for:), 1 consumer" }?.value
    report.target = Target(
        goal: "1 consumer within 1.2x of a hand-rolled AsyncStream continuation", figure: ratio(subject, stream),
        kind: .ratio, limit: 1.2, atMost: true)
    if let speedup = ratio(message, subject) {
        let verdict = effort.isQuick ? "not judged (--quick)" : (speedup >= 5 ? "met" : "not met")
        report.note =
            String(format: "1 consumer is %.2fx faster than AsyncMessage (target: at least 5x): ", speedup)
            + verdict
    }
    report.finish(quick: effort.isQuick)
    return report
}
