import Events
import Foundation

// Synchronous delivery: one event dispatched to 1, 10, 100 or 1,000 listeners, and to one
// listener while 10,000 others wait on other event types. One operation is one dispatch (one
// post), however many listeners it reaches.

// MARK: Measured loops

@inline(never)
func dispatchPings(_ center: EventCenter, _ count: Int) {
    var delivered = 0
    for _ in 0..<count { delivered &+= center.dispatch(Ping(value: 1)) }
    consume(delivered)
}

@inline(never)
func dispatchPingsKeepingCurrent(_ center: EventCenter, _ count: Int) {
    var delivered = 0
    for _ in 0..<count { delivered &+= center.dispatch(Ping(value: 1), keepingCurrent: .perType) }
    consume(delivered)
}

@inline(never)
func callClosures(_ closures: [() -> Void], _ count: Int) {
    for _ in 0..<count {
        for closure in closures { closure() }
    }
}

@inline(never)
func postPings(_ center: NotificationCenter, _ count: Int) {
    for _ in 0..<count { center.post(name: pingName, object: nil, userInfo: [payloadKey: 1]) }
}

#if compiler(>=6.2)
    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    @MainActor
    @inline(never)
    func postPingMessages(_ center: NotificationCenter, _ count: Int) {
        for _ in 0..<count { center.post(PingMessage(value: 1)) }
    }
#endif

// MARK: Contenders

/// A tracer that looks at each trace and keeps nothing: the cost of tracing itself.
struct DiscardingTracer: EventTracer {
    func didDispatch(_ trace: DispatchTrace) { consume(trace.listeners.count) }
}

/// A family that no benchmark event belongs to: its one listener is what a center with family
/// listeners makes every other dispatch pay.
protocol UnrelatedFamily: Event {}

/// A center that uses a feature, measured next to the plain one: what the feature costs a
/// dispatch, whether or not the dispatch uses it.
struct CenterVariant {
    let label: String
    /// Turns the feature on; what it returns is kept alive until the scenario closes.
    let configure: @MainActor (EventCenter) -> Any?
    let loop: @MainActor (EventCenter, Int) -> Void

    init(
        _ label: String, loop: @escaping @MainActor (EventCenter, Int) -> Void = dispatchPings,
        configure: @escaping @MainActor (EventCenter) -> Any?
    ) {
        self.label = label
        self.configure = configure
        self.loop = loop
    }
}

/// The variants measured next to the plain center: a family listener of another family (the
/// dispatched type's membership is looked up, and found empty), the dispatch keeping its event
/// as the current value, a tracer that keeps nothing, then every diagnostic on.
let centerVariants: [CenterVariant] = [
    CenterVariant("unrelated family listener") { center in
        center.listen(to: (any UnrelatedFamily).self) { _ in }
    },
    CenterVariant("keepingCurrent: .perType", loop: dispatchPingsKeepingCurrent) { _ in nil },
    CenterVariant("tracer installed") { center in
        center.tracer = DiscardingTracer()
        return nil
    },
    CenterVariant("diagnostics .development") { center in
        center.diagnostics = .development
        center.warningHandler = { _ in }
        return nil
    },
]

/// The labels of `centerVariants` whose cost the dispatch-1 scenario judges, with the most
/// each may cost as a multiple of the plain dispatch.
let variantLimits: [(label: String, limit: Double)] = [
    ("unrelated family listener", 1.1),
    ("keepingCurrent: .perType", 4),
    ("tracer installed", 5),
]

/// The listeners of one dispatch scenario, in every implementation, kept alive until `close()`.
@MainActor
final class ListenerSetup {
    let listeners: Int
    private(set) var contenders: [Contender] = []
    /// The tally each contender's listeners bump, in the order of `contenders`.
    private var tallies: [Tally] = []
    private var keepAlive: [Any] = []
    private var cleanup: [() -> Void] = []

    /// `listeners` listeners of `Ping` in each implementation, plus `unrelated` listeners spread
    /// over `unrelatedTypes` other event types (message names, message types).
    init(listeners: Int, unrelated: Int = 0, unrelatedTypes: Int = 100) {
        self.listeners = listeners
        let perType = unrelated / unrelatedTypes
        let others = unrelated > 0 ? " + \(unrelated.formatted()) unrelated" : ""
        let perListener: ((Double) -> String)? =
            listeners > 1 ? { formatFigure($0 / Double(listeners)) + " ns/listener" } : nil

        // swift-events.
        let tally = Tally()
        let center = EventCenter()
        var subscriptions: [Subscription] = []
        for _ in 0..<listeners { subscriptions.append(center.listen(to: Ping.self, makeHandler(tally))) }
        if unrelated > 0 {
            listenToUnrelated(Ping.self, types: unrelatedTypes, perType: perType, center: center, into: &subscriptions)
        }
        keepAlive.append(subscriptions)
        tallies.append(tally)
        contenders.append(
            Contender(
                name: "EventCenter.dispatch" + others, role: .subject,
                workload: .timing { dispatchPings(center, $0) }, detail: perListener))
        // The same dispatch on centers that use a feature (see `centerVariants`): what a user
        // pays for it, next to what a plain center pays (the row above).
        if unrelated == 0 {
            for variant in centerVariants {
                let variantTally = Tally()
                let variantCenter = EventCenter()
                if let kept = variant.configure(variantCenter) { keepAlive.append(kept) }
                var variantSubscriptions: [Subscription] = []
                for _ in 0..<listeners {
                    variantSubscriptions.append(variantCenter.listen(to: Ping.self, makeHandler(variantTally)))
                }
                keepAlive.append(variantSubscriptions)
                tallies.append(variantTally)
                let loop = variant.loop
                contenders.append(
                    Contender(
                        name: "EventCenter.dispatch, " + variant.label, role: .subject,
                        workload: .timing { loop(variantCenter, $0) }, detail: perListener))
            }
        }

        // The limit: the closures themselves, in an array. Unrelated listeners would live in
        // arrays of their own and cost nothing here.
        let closureTally = Tally()
        let closures = (0..<listeners).map { _ in makeClosure(closureTally) }
        tallies.append(closureTally)
        contenders.append(
            Contender(
                name: "closure array", role: .closureBaseline, workload: .timing { callClosures(closures, $0) },
                detail: perListener))

        // Foundation, block API, payload in userInfo.
        let notificationTally = Tally()
        let notifications = NotificationCenter()
        var observers = (0..<listeners).map { _ in addPingObserver(to: notifications, notificationTally) }
        for type in 0..<(unrelated > 0 ? unrelatedTypes : 0) {
            let name = Notification.Name("events-bench.unrelated.\(type)")
            for _ in 0..<perType {
                observers.append(
                    notifications.addObserver(
                        forName: name, object: nil, queue: nil, using: makeNotificationHandler(notificationTally)))
            }
        }
        cleanup.append { for observer in observers { notifications.removeObserver(observer) } }
        tallies.append(notificationTally)
        contenders.append(
            Contender(
                name: "NotificationCenter block + userInfo" + others, role: .foundationBaseline,
                workload: .timing { postPings(notifications, $0) }, detail: perListener))

        // Foundation, typed main-actor messages.
        contenders.append(
            mainActorMessageContender(unrelated: unrelated, types: unrelatedTypes, others: others, detail: perListener))
    }

    private func mainActorMessageContender(
        unrelated: Int, types: Int, others: String, detail: ((Double) -> String)?
    ) -> Contender {
        let name = "NotificationCenter.MainActorMessage" + others
        let tally = Tally()
        tallies.append(tally)
        #if compiler(>=6.2)
            if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
                let center = NotificationCenter()
                var tokens = (0..<listeners).map { _ in
                    center.addObserver(for: PingMessage.self, using: makeMessageHandler(tally))
                }
                if unrelated > 0 {
                    observeUnrelated(
                        PingMessage.self, types: types, perType: unrelated / types, center: center, into: &tokens)
                }
                keepAlive.append(tokens)
                return Contender(
                    name: name, role: .baseline, workload: .timing { postPingMessages(center, $0) }, detail: detail)
            }
        #endif
        return Contender(name: name, role: .baseline, workload: nil)
    }

    /// Runs every workload once, for one operation, and stops the benchmark if an implementation
    /// did not deliver the event to each of its listeners exactly once: a baseline that silently
    /// does nothing would make every ratio a lie.
    func checkDelivery() async {
        for (contender, tally) in zip(contenders, tallies) {
            guard let workload = contender.workload else { continue }
            let before = tally.total
            _ = await workload.run(1)
            let delivered = tally.total - before
            if delivered != listeners {
                fatalError("\(contender.name) delivered \(delivered) times to \(listeners) listeners")
            }
        }
    }

    /// Ends every registration made by `init`.
    func close() {
        cleanup.forEach { $0() }
        cleanup = []
        keepAlive = []
    }

    /// Registers `perType` listeners on `Unrelated<E>`, then recurses into `Unrelated<Unrelated<E>>`,
    /// until `types` event types have listeners.
    private func listenToUnrelated<E: Event>(
        _ type: E.Type, types: Int, perType: Int, center: EventCenter, into subscriptions: inout [Subscription]
    ) {
        guard types > 0 else { return }
        let tally = Tally()  // never bumped: nobody dispatches these types
        for _ in 0..<perType { subscriptions.append(center.listen(to: Unrelated<E>.self) { _ in tally.add(1) }) }
        listenToUnrelated(Unrelated<E>.self, types: types - 1, perType: perType, center: center, into: &subscriptions)
    }

    #if compiler(>=6.2)
        @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
        private func observeUnrelated<M: NotificationCenter.MainActorMessage>(
            _ type: M.Type, types: Int, perType: Int, center: NotificationCenter,
            into tokens: inout [NotificationCenter.ObservationToken]
        ) {
            guard types > 0 else { return }
            let tally = Tally()  // never bumped: nobody posts these types
            for _ in 0..<perType {
                tokens.append(center.addObserver(for: UnrelatedMessage<M>.self) { _ in tally.add(1) })
            }
            observeUnrelated(
                UnrelatedMessage<M>.self, types: types - 1, perType: perType, center: center, into: &tokens)
        }
    #endif
}

// MARK: Scenarios

@MainActor
func dispatchScenario(listeners: Int, effort: Effort) async -> ScenarioReport {
    let setup = ListenerSetup(listeners: listeners)
    await setup.checkDelivery()
    let rows = await measure(setup.contenders, effort: effort)
    setup.close()
    let title = listeners == 1 ? "1 listener" : "\(listeners.formatted()) listeners"
    var report = ScenarioReport(
        id: "dispatch-\(listeners)", title: title, unit: .nanosecondsPerOperation,
        operation: "one synchronous dispatch of a struct event to \(title)", rows: rows)
    let eventCenter = report.rows[0].value
    let closure = report.value(of: "closure array")
    switch listeners {
    case 1:
        report.target = Target(
            goal: "within 3x of the closure baseline", figure: ratio(eventCenter, closure), kind: .ratio, limit: 3,
            atMost: true)
        for (label, limit) in variantLimits {
            report.additionalTargets.append(
                Target(
                    goal: "\(label) within \(formatRatio(limit)) of the plain dispatch",
                    figure: ratio(report.value(of: "EventCenter.dispatch, " + label), eventCenter), kind: .ratio,
                    limit: limit, atMost: true))
        }
    case 100:
        // Per listener, both costs are divided by the same 100, so the ratio is the same.
        report.target = Target(
            goal: "within 1.2x of the closure baseline per listener", figure: ratio(eventCenter, closure),
            kind: .ratio, limit: 1.2, atMost: true)
    default:
        break
    }
    report.finish(quick: effort.isQuick)
    return report
}

@MainActor
func unrelatedListenersScenario(effort: Effort) async -> ScenarioReport {
    let crowded = ListenerSetup(listeners: 1, unrelated: 10_000)
    await crowded.checkDelivery()
    // The same single listener on a center of its own, measured in the same round-robin.
    let alone = EventCenter()
    let subscription = alone.listen(to: Ping.self, makeHandler(Tally()))
    var contenders = crowded.contenders
    contenders.insert(
        Contender(
            name: "EventCenter.dispatch, no unrelated", role: .subject,
            workload: .timing { dispatchPings(alone, $0) }),
        at: 1)
    let rows = await measure(contenders, effort: effort)
    crowded.close()
    subscription.cancel()
    var report = ScenarioReport(
        id: "dispatch-1-among-10000", title: "1 listener among 10,000 unrelated", unit: .nanosecondsPerOperation,
        operation: "one dispatch to 1 listener while 10,000 listeners wait on 100 other event types", rows: rows)
    report.target = Target(
        goal: "within 1.1x of the same dispatch with no other listeners", figure: ratio(rows[0].value, rows[1].value),
        kind: .ratio, limit: 1.1, atMost: true)
    report.finish(quick: effort.isQuick)
    return report
}
