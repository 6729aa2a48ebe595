import Events
import Foundation

// Heap allocations per synchronous dispatch of a struct event, counted (not estimated) by the
// allocator replacement in EventsBenchSupport: every malloc, calloc, realloc, posix_memalign,
// aligned_alloc and memalign call the measuring thread makes between "begin" and "end",
// including those of the Swift runtime, Foundation and Dispatch. Each figure is the count over
// `countedDispatches` dispatches (after an uncounted warm-up), divided by that number.

@MainActor
func allocationsScenario(effort: Effort) async -> ScenarioReport {
    let count = effort.countedDispatches
    let tally = Tally()
    var rows: [Row] = []

    func row(_ name: String, _ role: Role, _ allocations: Double?) -> Row {
        Row(name: name, role: role, value: allocations, status: allocations == nil ? notOnThisPlatform : Row.measured)
    }

    do {
        let center = EventCenter()
        let subscription = center.listen(to: Ping.self, makeHandler(tally))
        rows.append(
            row(
                "EventCenter.dispatch, 1 listener", .subject,
                allocationsPerOperation(count: count) { dispatchPings(center, $0) }))
        subscription.cancel()
    }
    do {
        let center = EventCenter()
        let subscriptions = (0..<100).map { _ in center.listen(to: Ping.self, makeHandler(tally)) }
        rows.append(
            row(
                "EventCenter.dispatch, 100 listeners", .subject,
                allocationsPerOperation(count: count) { dispatchPings(center, $0) }))
        subscriptions.forEach { $0.cancel() }
    }
    do {
        // The other handler shapes: one that takes the sender, and a named event's listener.
        let center = EventCenter()
        let subscription = center.listen(to: Ping.self) { ping, sender in
            if sender == nil { tally.add(ping.value) }
        }
        rows.append(
            row(
                "EventCenter.dispatch, listener taking the sender", .subject,
                allocationsPerOperation(count: count) { dispatchPings(center, $0) }))
        subscription.cancel()
    }
    do {
        // The heavier path: a sender, a `from:` filter and an owner-bound listener (weak loads).
        let center = EventCenter()
        let owner = Owner()
        let editor = Editor()
        center.listen(to: Ping.self, owner: owner, from: editor, makeOwnerHandler(tally))
        let allocations = allocationsPerOperation(count: count) { iterations in
            var delivered = 0
            for _ in 0..<iterations { delivered &+= center.dispatch(Ping(value: 1), from: editor) }
            consume(delivered)
        }
        rows.append(row("EventCenter.dispatch(from:), owner-bound listener", .subject, allocations))
        center.remove(owner)
    }
    do {
        let closures = [makeClosure(tally)]
        rows.append(
            row(
                "closure array, 1 closure", .closureBaseline,
                allocationsPerOperation(count: count) { callClosures(closures, $0) }))
    }
    do {
        let center = NotificationCenter()
        let observer = addPingObserver(to: center, tally)
        rows.append(
            row(
                "NotificationCenter block + userInfo, 1 observer", .foundationBaseline,
                allocationsPerOperation(count: count) { postPings(center, $0) }))
        center.removeObserver(observer)
    }
    rows.append(mainActorMessageAllocations(count: count, tally: tally))

    var report = ScenarioReport(
        id: "allocations-per-dispatch", title: "heap allocations per dispatch", unit: .allocationsPerOperation,
        operation: "allocation calls per synchronous dispatch (counted over \(count.formatted()) dispatches)",
        rows: rows)
    let worst = rows.filter { $0.role == .subject }.compactMap(\.value).max()
    report.target = Target(
        goal: "0 allocations per synchronous dispatch (worst EventCenter row)", figure: worst, kind: .allocations,
        limit: 0, atMost: true)
    report.finish(quick: effort.isQuick)
    return report
}

@MainActor
private func mainActorMessageAllocations(count: Int, tally: Tally) -> Row {
    let name = "NotificationCenter.MainActorMessage, 1 observer"
    #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            let center = NotificationCenter()
            let token = center.addObserver(for: PingMessage.self, using: makeMessageHandler(tally))
            let allocations = allocationsPerOperation(count: count) { postPingMessages(center, $0) }
            center.removeObserver(token)
            return Row(
                name: name, role: .baseline, value: allocations,
                status: allocations == nil ? notOnThisPlatform : Row.measured)
        }
    #endif
    return Row(name: name, role: .baseline, value: nil, status: notOnThisPlatform)
}
