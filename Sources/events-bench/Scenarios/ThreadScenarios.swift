import Events
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Two threads dispatching at once versus one: does the center let dispatches on different
// threads run in parallel? Each thread dispatches `n` events to the same single listener; the
// listener bumps a counter of its own thread's (`Lanes`), so its work never contends. The
// figure is the throughput ratio: events per second with two threads over events per second
// with one. 2.00x is perfect scaling; the closure baseline shows what the machine allows.

/// The threads of one timed batch wait here until every one of them is running, so that the
/// clock starts when all of them can go.
private final class StartLine: Sendable {
    let ready = Atomic<Int>(0)
    let go = Atomic<Bool>(false)
}

/// What one thread of a batch runs: made on that thread by `prepare(lane)` (so that whatever it
/// allocates comes from that thread's malloc arena), then called with the iteration count.
typealias ThreadBody = (_ iterations: Int) -> Void

/// Runs a batch on `threads` new threads, lanes 0..<threads: each thread prepares its body, waits
/// until all are ready, and then they run at once. Returns the time from the start signal until
/// the last thread has finished.
func runOnThreads(_ threads: Int, iterations: Int, _ prepare: @escaping @Sendable (_ lane: Int) -> ThreadBody)
    -> Duration
{
    let line = StartLine()
    let finished = DispatchSemaphore(value: 0)
    for lane in 0..<threads {
        let thread = Thread {
            let body = prepare(lane)
            line.ready.add(1, ordering: .releasing)
            while !line.go.load(ordering: .acquiring) { sched_yield() }
            body(iterations)
            finished.signal()
        }
        thread.start()
    }
    while line.ready.load(ordering: .acquiring) < threads { sched_yield() }
    let clock = ContinuousClock()
    let start = clock.now
    line.go.store(true, ordering: .releasing)
    for _ in 0..<threads { finished.wait() }
    return clock.now - start
}

/// A workload that runs a batch on `threads` threads at once, each doing the iteration count.
private func threaded(_ threads: Int, _ prepare: @escaping @Sendable (_ lane: Int) -> ThreadBody) -> Workload {
    Workload { iterations in runOnThreads(threads, iterations: iterations, prepare) }
}

@MainActor
func twoThreadsScenario(effort: Effort) async -> ScenarioReport {
    let lanes = Lanes(count: 2)

    let center = EventCenter()
    let subscription = center.listen(to: LanePing.self) { ping in lanes.bump(ping.lane) }
    let dispatch: @Sendable (Int) -> ThreadBody = { lane in
        { count in
            var delivered = 0
            for _ in 0..<count { delivered &+= center.dispatch(LanePing(lane: lane)) }
            consume(delivered)
        }
    }

    // The limit: each thread calls a closure array of its own, whose closure captures an object of
    // its own, all made on that thread, so that nothing at all is shared between the threads.
    let callClosures: @Sendable (Int) -> ThreadBody = { _ in
        let closures = [makeClosure(Tally())]
        return { count in
            for _ in 0..<count {
                for closure in closures { closure() }
            }
        }
    }

    let notifications = NotificationCenter()
    let observer = notifications.addObserver(forName: pingName, object: nil, queue: nil) { notification in
        lanes.bump((notification.userInfo?[payloadKey] as? Int) ?? 0)
    }
    let post: @Sendable (Int) -> ThreadBody = { lane in
        { count in
            for _ in 0..<count { notifications.post(name: pingName, object: nil, userInfo: [payloadKey: lane]) }
        }
    }

    let implementations: [(name: String, role: Role, prepare: @Sendable (Int) -> ThreadBody)] = [
        ("EventCenter.dispatch", .subject, dispatch),
        ("closure array", .closureBaseline, callClosures),
        ("NotificationCenter block + userInfo", .foundationBaseline, post),
    ]
    var contenders: [Contender] = []
    for implementation in implementations {
        contenders.append(
            Contender(
                name: implementation.name + ", 1 thread", role: .baseline, workload: threaded(1, implementation.prepare)
            ))
        contenders.append(
            Contender(
                name: implementation.name + ", 2 threads", role: .baseline,
                workload: threaded(2, implementation.prepare)))
    }
    let timings = await measure(contenders, effort: effort)
    subscription.cancel()
    notifications.removeObserver(observer)
    consume(lanes.total)

    var rows: [Row] = []
    for (index, implementation) in implementations.enumerated() {
        // Medians of ns per dispatch on one thread, and per dispatch of one of the two threads.
        let one = timings[2 * index].value
        let two = timings[2 * index + 1].value
        // Throughput ratio = (2 n / T2) / (n / T1) = (T1 / n) / ((T2 / n) / 2).
        let scaling = ratio(one, two.map { $0 / 2 })
        rows.append(
            Row(
                name: implementation.name, role: implementation.role, value: scaling,
                status: scaling == nil ? "not measured" : Row.measured,
                detail: one.flatMap { one in
                    two.map { "1 thread \(formatFigure(one)) ns/op, 2 threads \(formatFigure($0 / 2)) ns/op overall" }
                }))
    }
    rows.append(
        Row(
            name: "NotificationCenter.MainActorMessage", role: .baseline, value: nil,
            status: "n/a: posts only on the main actor, so there is no second thread"))

    // The closure baseline shares nothing, so it shows how much parallelism the machine gave.
    var note = "needs two idle cores (\(ProcessInfo.processInfo.activeProcessorCount) here)"
    if let limit = rows[1].value, limit < 1.5 {
        note +=
            "; the closure baseline itself reached only \(formatRatio(limit)), so other work held a core: "
            + "read the EventCenter figure against it"
    }
    var report = ScenarioReport(
        id: "two-threads", title: "two threads dispatching at once", unit: .throughputRatio,
        operation: "dispatches per second on two threads over dispatches per second on one (1 listener)",
        rows: rows, note: note)
    report.target = Target(
        goal: "two threads at least 1.5x the throughput of one", figure: rows[0].value, kind: .ratio, limit: 1.5,
        atMost: false)
    report.finish(quick: effort.isQuick)
    return report
}
