import Events
import Foundation

// What it costs to start and stop listening: the time of a listen + cancel pair while other
// listeners are attached, and the heap bytes one registration keeps alive.

// MARK: Listen + cancel

@inline(never)
func listenAndCancel(_ center: EventCenter, _ tally: Tally, _ count: Int) {
    for _ in 0..<count {
        let subscription = center.listen(to: Ping.self, makeHandler(tally))
        subscription.cancel()
    }
}

/// The limit: append a closure to an array and remove it again (`removeLast`, the cheapest
/// removal there is).
@inline(never)
func appendAndRemove(_ closures: inout [() -> Void], _ tally: Tally, _ count: Int) {
    for _ in 0..<count {
        closures.append(makeClosure(tally))
        closures.removeLast()
    }
}

@inline(never)
func observeAndRemove(_ center: NotificationCenter, _ tally: Tally, _ count: Int) {
    for _ in 0..<count {
        let observer = addPingObserver(to: center, tally)
        center.removeObserver(observer)
    }
}

@MainActor
func listenCancelScenario(effort: Effort) async -> ScenarioReport {
    let others = 100
    let tally = Tally()

    let center = EventCenter()
    let subscriptions = (0..<others).map { _ in center.listen(to: Ping.self, makeHandler(tally)) }
    var closures = (0..<others).map { _ in makeClosure(tally) }
    let notifications = NotificationCenter()
    let observers = (0..<others).map { _ in addPingObserver(to: notifications, tally) }

    var contenders = [
        Contender(
            name: "EventCenter listen + Subscription.cancel", role: .subject,
            workload: .timing { listenAndCancel(center, tally, $0) }),
        Contender(
            name: "closure array append + removeLast", role: .closureBaseline,
            workload: .timing { appendAndRemove(&closures, tally, $0) }),
        Contender(
            name: "NotificationCenter addObserver + removeObserver", role: .foundationBaseline,
            workload: .timing { observeAndRemove(notifications, tally, $0) }),
    ]
    var messageTokens: [Any] = []
    contenders += typedMessageListenCancelContenders(others: others, tally: tally, keepAlive: &messageTokens)

    let rows = await measure(contenders, effort: effort)
    withExtendedLifetime((subscriptions, messageTokens)) {}
    for observer in observers { notifications.removeObserver(observer) }

    var report = ScenarioReport(
        id: "listen-cancel", title: "listen + cancel", unit: .nanosecondsPerOperation,
        operation: "register one listener and end it again, with \(others) other listeners attached", rows: rows)
    report.target = Target(
        goal: "within 4x of array append + remove", figure: ratio(rows[0].value, rows[1].value), kind: .ratio,
        limit: 4, atMost: true)
    report.finish(quick: effort.isQuick)
    return report
}

@MainActor
private func typedMessageListenCancelContenders(others: Int, tally: Tally, keepAlive: inout [Any]) -> [Contender] {
    let mainActorName = "MainActorMessage addObserver + removeObserver"
    let asyncName = "AsyncMessage addObserver + removeObserver"
    #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            let center = NotificationCenter()
            keepAlive.append(
                (0..<others).map { _ in center.addObserver(for: PingMessage.self, using: makeMessageHandler(tally)) })
            let asyncCenter = NotificationCenter()
            // Nothing is ever posted to these observers: the handlers never run.
            keepAlive.append(
                (0..<others).map { _ in
                    asyncCenter.addObserver(for: PingAsyncMessage.self, using: makeAsyncMessageHandler(tally))
                })
            return [
                Contender(
                    name: mainActorName, role: .baseline,
                    workload: .timing { count in
                        for _ in 0..<count {
                            let token = center.addObserver(for: PingMessage.self, using: makeMessageHandler(tally))
                            center.removeObserver(token)
                        }
                    }),
                Contender(
                    name: asyncName, role: .baseline,
                    workload: .timing { count in
                        for _ in 0..<count {
                            let token = asyncCenter.addObserver(
                                for: PingAsyncMessage.self, using: makeAsyncMessageHandler(tally))
                            asyncCenter.removeObserver(token)
                        }
                    }),
            ]
        }
    #endif
    return [
        Contender(name: mainActorName, role: .baseline, workload: nil),
        Contender(name: asyncName, role: .baseline, workload: nil),
    ]
}

// MARK: Bytes per registration

/// Heap bytes each registration keeps alive, read with `mallinfo2()` around `count`
/// registrations. Everything a registration returns (a `Subscription`, an observer token) is kept
/// in an array reserved beforehand, so the array is not counted; the token itself is, because
/// the caller has to keep it. What the handler closure captures is measured on its own, by
/// making the same closures without registering them, and subtracted: the net figure is what
/// the implementation adds.
@MainActor
func bytesPerRegistrationScenario(effort: Effort) async -> ScenarioReport {
    let count = effort.registrations
    let tally = Tally()
    var rows: [Row] = []

    func row(_ name: String, _ role: Role, gross: Double?, captured: Double?) -> Row {
        guard let gross, let captured else { return Row(name: name, role: role, value: nil, status: notOnThisPlatform) }
        return Row(
            name: name, role: role, value: gross - captured, status: Row.measured,
            detail: "gross \(formatFigure(gross)), handler captures \(formatFigure(captured))")
    }

    // swift-events, closure form.
    do {
        var handlers: [@Sendable (Ping) -> Void] = []
        handlers.reserveCapacity(count)
        let captured = heapGrowth(per: count) { for _ in 0..<count { handlers.append(makeHandler(tally)) } }
        handlers = []
        var center: EventCenter? = EventCenter()
        var subscriptions: [Subscription] = []
        subscriptions.reserveCapacity(count)
        let gross = heapGrowth(per: count) {
            for _ in 0..<count { subscriptions.append(center!.listen(to: Ping.self, makeHandler(tally))) }
        }
        // Tear down center first: cancelling 100,000 subscriptions one by one would purge the
        // listener list once per cancel (quadratic); without a center, a cancel has nothing to purge.
        center = nil
        subscriptions = []
        rows.append(row("EventCenter listen(to:)", .subject, gross: gross, captured: captured))
    }

    // swift-events, owner-bound form (one owner for all: registrations without a key are distinct).
    do {
        var handlers: [@Sendable (Owner, Ping) -> Void] = []
        handlers.reserveCapacity(count)
        let captured = heapGrowth(per: count) { for _ in 0..<count { handlers.append(makeOwnerHandler(tally)) } }
        handlers = []
        let center = EventCenter()
        let owner = Owner()
        var subscriptions: [Subscription] = []
        subscriptions.reserveCapacity(count)
        let gross = heapGrowth(per: count) {
            for _ in 0..<count {
                subscriptions.append(center.listen(to: Ping.self, owner: owner, makeOwnerHandler(tally)))
            }
        }
        center.remove(owner)
        rows.append(row("EventCenter listen(to:owner:)", .subject, gross: gross, captured: captured))
    }

    // The limit: closures appended to a growing array.
    do {
        var made: [() -> Void] = []
        made.reserveCapacity(count)
        let captured = heapGrowth(per: count) { for _ in 0..<count { made.append(makeClosure(tally)) } }
        made = []
        var closures: [() -> Void] = []
        let gross = heapGrowth(per: count) { for _ in 0..<count { closures.append(makeClosure(tally)) } }
        closures = []
        rows.append(row("closure array append", .closureBaseline, gross: gross, captured: captured))
    }

    // Foundation, block API.
    do {
        var handlers: [@Sendable (Notification) -> Void] = []
        handlers.reserveCapacity(count)
        let captured = heapGrowth(per: count) { for _ in 0..<count { handlers.append(makeNotificationHandler(tally)) } }
        handlers = []
        let center = NotificationCenter()
        var observers: [any NSObjectProtocol] = []
        observers.reserveCapacity(count)
        let gross = heapGrowth(per: count) {
            for _ in 0..<count { observers.append(addPingObserver(to: center, tally)) }
        }
        for observer in observers { center.removeObserver(observer) }
        rows.append(
            row("NotificationCenter addObserver(forName:)", .foundationBaseline, gross: gross, captured: captured))
    }

    rows += typedMessageRegistrationRows(count: count, tally: tally, row: row)

    var report = ScenarioReport(
        id: "bytes-per-registration", title: "bytes per registration", unit: .bytesPerRegistration,
        operation: "heap bytes kept alive per registration (of \(count.formatted())), net of the handler's captures",
        rows: rows)
    report.target = Target(
        goal: "at most 128 bytes per registration beyond the handler's captures", figure: rows[0].value, kind: .bytes,
        limit: 128, atMost: true)
    report.finish(quick: effort.isQuick)
    return report
}

@MainActor
private func typedMessageRegistrationRows(
    count: Int, tally: Tally, row: (String, Role, Double?, Double?) -> Row
) -> [Row] {
    let mainActorName = "MainActorMessage addObserver"
    let asyncName = "AsyncMessage addObserver"
    #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            var rows: [Row] = []
            do {
                var handlers: [@MainActor (PingMessage) -> Void] = []
                handlers.reserveCapacity(count)
                let captured = heapGrowth(per: count) {
                    for _ in 0..<count { handlers.append(makeMessageHandler(tally)) }
                }
                handlers = []
                let center = NotificationCenter()
                var tokens: [NotificationCenter.ObservationToken] = []
                tokens.reserveCapacity(count)
                let gross = heapGrowth(per: count) {
                    for _ in 0..<count {
                        tokens.append(center.addObserver(for: PingMessage.self, using: makeMessageHandler(tally)))
                    }
                }
                for token in tokens { center.removeObserver(token) }
                rows.append(row(mainActorName, .baseline, gross, captured))
            }
            do {
                var handlers: [@Sendable (PingAsyncMessage) async -> Void] = []
                handlers.reserveCapacity(count)
                let captured = heapGrowth(per: count) {
                    for _ in 0..<count { handlers.append(makeAsyncMessageHandler(tally)) }
                }
                handlers = []
                let center = NotificationCenter()
                var tokens: [NotificationCenter.ObservationToken] = []
                tokens.reserveCapacity(count)
                let gross = heapGrowth(per: count) {
                    for _ in 0..<count {
                        tokens.append(
                            center.addObserver(for: PingAsyncMessage.self, using: makeAsyncMessageHandler(tally)))
                    }
                }
                for token in tokens { center.removeObserver(token) }
                rows.append(row(asyncName, .baseline, gross, captured))
            }
            return rows
        }
    #endif
    return [
        Row(name: mainActorName, role: .baseline, value: nil, status: notOnThisPlatform),
        Row(name: asyncName, role: .baseline, value: nil, status: notOnThisPlatform),
    ]
}
