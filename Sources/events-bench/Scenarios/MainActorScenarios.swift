import Dispatch
import Events
import Foundation
import Synchronization

// An event dispatched on a background thread to a main-actor listener, as apps do when a
// download, a database or a socket reports to the UI. One operation is one event, from the
// dispatching call on the background thread until its handler has run on the main actor,
// against the two ways apps write this by hand: `DispatchQueue.main.async` per event, and a
// NotificationCenter observer on `OperationQueue.main`.
//
// The main queue must be served while a batch runs, and by nothing else than it would be in an
// app. The benchmark's `main` is async, so whenever the main actor is suspended the main queue is
// free: on Apple platforms the main thread's run loop drains it; on Linux the async `main` has
// called `dispatchMain()`, which puts the main thread to sleep and hands the main queue to a
// worker thread of Dispatch that drains it serially, as the main actor's executor. Each batch
// suspends the main actor until a new thread has sent all its events. All three contenders reach
// the main actor through that one main queue, so all three are served by the same drain; the
// handlers check once per burst that they run on it.
//
// Two shapes: bursts of `burstSize` events (the sending thread sends a burst, then waits until
// the last of it has been handled) and round trips (bursts of one: each event handled before the
// next is sent, so every event pays a wake-up of each thread). The sending thread waits on a
// semaphore that the handler signals; every contender pays that same wake-up.

/// Events per burst in the burst scenario.
let burstSize = 100

/// The main-thread end of a batch: the handlers of every contender land here.
final class MainArrivals: Sendable {
    /// Bumped only on the main actor (the main queue, one block at a time), by the handlers.
    let tally = Tally()
    /// Events handled so far, over every batch.
    private let arrived = Atomic<Int>(0)
    /// The count of handled events at which the sending thread wants to hear.
    private let awaited = Atomic<Int>(0)
    private let delivered = DispatchSemaphore(value: 0)

    /// The handler's work: count the event, and wake the sender when its burst is complete.
    @MainActor
    func arrive(_ value: Int) {
        tally.add(value)
        let count = arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        if count == awaited.load(ordering: .acquiring) {
            // Once per burst: every contender's handler runs on the main queue, the main actor's
            // executor (not always on the main thread: see the top of this file).
            dispatchPrecondition(condition: .onQueue(.main))
            delivered.signal()
        }
    }

    /// Sends a burst of `count` events through `send`, then waits until all are handled. Call
    /// only from the sending thread, one burst at a time.
    func sendBurst(_ count: Int, _ send: (Int) -> Void) {
        awaited.wrappingAdd(count, ordering: .acquiringAndReleasing)
        for _ in 0..<count { send(1) }
        delivered.wait()
    }
}

/// Sends `events` events through `send` from a new thread, in bursts of `burst`, while the main
/// actor waits suspended (so that the main queue is free to be served). Returns the time from
/// the first send until the sending thread has seen the last burst handled.
@MainActor
private func sendFromBackground(
    events: Int, burst: Int, _ arrivals: MainArrivals, _ send: @escaping @Sendable (Int) -> Void
) async -> Duration {
    await withCheckedContinuation { (continuation: CheckedContinuation<Duration, Never>) in
        let thread = Thread {
            let clock = ContinuousClock()
            let start = clock.now
            var sent = 0
            while sent < events {
                let count = min(burst, events - sent)
                arrivals.sendBurst(count, send)
                sent += count
            }
            continuation.resume(returning: clock.now - start)
        }
        thread.start()
    }
}

@inline(never)
func makeMainActorHandler(_ arrivals: MainArrivals) -> @MainActor @Sendable (Ping) -> Void {
    { ping in arrivals.arrive(ping.value) }
}

@inline(never)
func makeMainQueueNotificationHandler(_ arrivals: MainArrivals) -> @Sendable (Notification) -> Void {
    { notification in
        let value = (notification.userInfo?[payloadKey] as? Int) ?? 0
        // The observer runs on OperationQueue.main, whose operations run on the main queue.
        MainActor.assumeIsolated { arrivals.arrive(value) }
    }
}

@MainActor
func mainActorScenario(burst: Int, effort: Effort) async -> ScenarioReport {
    let isRoundTrip = burst == 1
    let id = isRoundTrip ? "main-actor-round-trip" : "main-actor-burst"
    let arrivals = MainArrivals()

    // swift-events: a main-actor listener, dispatched to from the sending thread.
    let center = EventCenter()
    let subscription = center.listen(to: Ping.self, on: .main, makeMainActorHandler(arrivals))
    let dispatch: @Sendable (Int) -> Void = { value in _ = center.dispatch(Ping(value: value)) }

    // By hand: the same main-actor handler, one main-queue block per event. The block runs on the
    // main queue, so the handler is called in the main actor's isolation, as the compiler checks.
    let handler = makeMainActorHandler(arrivals)
    let mainAsync: @Sendable (Int) -> Void = { value in
        let event = Ping(value: value)
        DispatchQueue.main.async { MainActor.assumeIsolated { handler(event) } }
    }

    // Foundation: an observer on the main operation queue, posted to from the sending thread.
    let notifications = NotificationCenter()
    let observer = notifications.addObserver(
        forName: pingName, object: nil, queue: .main, using: makeMainQueueNotificationHandler(arrivals))
    let post: @Sendable (Int) -> Void = { value in
        notifications.post(name: pingName, object: nil, userInfo: [payloadKey: value])
    }

    func workload(_ send: @escaping @Sendable (Int) -> Void) -> Workload {
        Workload { events in await sendFromBackground(events: events, burst: burst, arrivals, send) }
    }
    let subjectName = "EventCenter listen(on: .main)"
    let handWrittenName = "DispatchQueue.main.async per event"
    let foundationName = "NotificationCenter addObserver(queue: .main)"
    let contenders = [
        Contender(name: subjectName, role: .subject, workload: workload(dispatch)),
        Contender(name: handWrittenName, role: .baseline, workload: workload(mainAsync)),
        Contender(name: foundationName, role: .foundationBaseline, workload: workload(post)),
    ]
    var rows = await measure(contenders, effort: effort)
    subscription.cancel()
    notifications.removeObserver(observer)
    consume(arrivals.tally.total)

    let subject = rows[0].value
    let handWritten = rows[1].value
    let foundation = rows[2].value
    if let versus = ratio(subject, handWritten) {
        rows[0].detail = formatRatio(versus) + " of DispatchQueue.main.async"
    }
    rows.append(
        Row(
            name: "NotificationCenter.MainActorMessage", role: .baseline, value: nil,
            status: "n/a: posts only on the main actor, so not from a background thread"))

    let shape = isRoundTrip ? "one at a time (round trips)" : "bursts of \(burst)"
    var report = ScenarioReport(
        id: id, title: "background thread to a main-actor listener, \(shape)", unit: .nanosecondsPerOperation,
        operation: isRoundTrip
            ? "one event from the dispatch on a background thread until its handler ran on the main actor, "
                + "the next event sent only then"
            : "one event of a burst of \(burst) dispatched on a background thread, until the burst's handlers "
                + "ran on the main actor",
        rows: rows,
        note: isRoundTrip
            ? "each event pays a wake-up of the main queue's thread and one of the sending thread, whoever "
                + "delivers it"
            : "NotificationCenter's post waits until an observer on another queue has run, so its burst is "
                + "a series of round trips")
    // A burst is drained in one turn of the main queue, so it must cost no more per event than
    // a main-queue block per event; a round trip is two thread wake-ups whoever delivers it.
    let limit = isRoundTrip ? 1.1 : 1.0
    report.target = Target(
        goal: isRoundTrip
            ? "within 1.1x of DispatchQueue.main.async per event"
            : "at most 1.0x of DispatchQueue.main.async per event",
        figure: ratio(subject, handWritten), kind: .ratio, limit: limit, atMost: true)
    report.additionalTargets = [
        Target(
            goal: "at least 5x faster than NotificationCenter with queue: .main (its time over ours)",
            figure: ratio(foundation, subject), kind: .ratio, limit: 5, atMost: false)
    ]
    report.finish(quick: effort.isQuick)
    return report
}
