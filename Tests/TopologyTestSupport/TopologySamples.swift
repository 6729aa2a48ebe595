package import Events

/// Topologies for the rendering tests: a hand-written app of about thirty nodes, and generated
/// graphs of any size.
package enum TopologySamples {
    package typealias Node = EventTopology.Node
    package typealias Edge = EventTopology.Edge

    /// A shop app: views and services dispatch, events fan out to listeners, some listeners
    /// dispatch further events, and a sync loop closes a cycle.
    package static var shop: EventTopology {
        let dispatchers = [
            "CartModel", "CheckoutViewController", "SyncService", "AppDelegate", "SettingsView.swift:88",
            "PushHandler",
        ]
        let events = [
            "ItemAdded", "ItemRemoved", "CheckoutStarted", "PaymentSucceeded", "PaymentFailed", "SyncRequested",
            "SyncFinished", "ThemeChanged", "app.didBecomeActive", "OrderShipped",
        ]
        let listeners = [
            ("BadgeView", "2 listeners, main actor"), ("CartTotalsView", nil), ("AnalyticsTracker", "6 listeners"),
            ("PaymentProcessor", "queue payments"), ("ReceiptMailer", nil), ("OrderHistoryStore", nil),
            ("CheckoutViewController", "main actor"), ("SyncEngine", "actor"), ("ThemeManager", nil),
            ("NotificationPresenter", nil), ("ShippingTrackerViewController+Observers.swift:214", nil),
            ("OfflineQueue", nil), ("PriceFormatter", nil), ("WidgetTimelineReloader", nil),
        ]
        var nodes = dispatchers.map { Node(id: "d:" + $0, kind: .dispatcher, label: $0) }
        nodes += events.map { Node(id: "e:" + $0, kind: .event, label: $0) }
        nodes += listeners.map { Node(id: "l:" + $0.0, kind: .listener, label: $0.0, detail: $0.1) }
        let pairs: [(String, String, Int)] = [
            ("d:CartModel", "e:ItemAdded", 42), ("d:CartModel", "e:ItemRemoved", 7),
            ("d:CheckoutViewController", "e:CheckoutStarted", 3), ("d:SyncService", "e:SyncRequested", 12),
            ("d:AppDelegate", "e:app.didBecomeActive", 2), ("d:SettingsView.swift:88", "e:ThemeChanged", 1),
            ("d:PushHandler", "e:OrderShipped", 4), ("d:PushHandler", "e:SyncRequested", 5),
            ("e:ItemAdded", "l:BadgeView", 42), ("e:ItemAdded", "l:CartTotalsView", 42),
            ("e:ItemAdded", "l:AnalyticsTracker", 42), ("e:ItemRemoved", "l:BadgeView", 7),
            ("e:ItemRemoved", "l:CartTotalsView", 7), ("e:ItemRemoved", "l:AnalyticsTracker", 7),
            ("e:CheckoutStarted", "l:PaymentProcessor", 3), ("e:CheckoutStarted", "l:AnalyticsTracker", 3),
            ("l:PaymentProcessor", "e:PaymentSucceeded", 2), ("l:PaymentProcessor", "e:PaymentFailed", 1),
            ("e:PaymentSucceeded", "l:ReceiptMailer", 2), ("e:PaymentSucceeded", "l:OrderHistoryStore", 2),
            ("e:PaymentSucceeded", "l:CheckoutViewController", 2), ("e:PaymentFailed", "l:CheckoutViewController", 1),
            ("e:PaymentSucceeded", "l:AnalyticsTracker", 2), ("e:SyncRequested", "l:SyncEngine", 17),
            ("l:SyncEngine", "e:SyncFinished", 17), ("e:SyncFinished", "l:OfflineQueue", 17),
            ("l:OfflineQueue", "e:SyncRequested", 3), ("e:app.didBecomeActive", "l:SyncEngine", 2),
            ("e:app.didBecomeActive", "l:WidgetTimelineReloader", 2), ("e:ThemeChanged", "l:ThemeManager", 1),
            ("e:ThemeChanged", "l:PriceFormatter", 0), ("e:OrderShipped", "l:NotificationPresenter", 4),
            ("e:OrderShipped", "l:ShippingTrackerViewController+Observers.swift:214", 4),
            ("e:OrderShipped", "l:OrderHistoryStore", 4), ("e:SyncFinished", "l:WidgetTimelineReloader", 17),
        ]
        return EventTopology(nodes: nodes, edges: pairs.map { Edge(from: $0.0, to: $0.1, count: $0.2) })
    }

    /// A random but reproducible topology of `size` nodes: a sixth dispatchers, a third events,
    /// the rest listeners; every event has listeners, some listeners dispatch again, and a few of
    /// those dispatches lead back to earlier events.
    package static func generated(size: Int, seed: UInt64 = 0x5EED) -> EventTopology {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
        let dispatcherCount = max(1, size / 6)
        let eventCount = max(1, size / 3)
        let listenerCount = max(1, size - dispatcherCount - eventCount)
        var nodes: [Node] = []
        for index in 0..<dispatcherCount {
            nodes.append(Node(id: "d\(index)", kind: .dispatcher, label: "Dispatcher\(index)Model"))
        }
        for index in 0..<eventCount {
            nodes.append(Node(id: "e\(index)", kind: .event, label: "Event\(index)Happened"))
        }
        for index in 0..<listenerCount {
            let detail = index % 3 == 0 ? "\(1 + index % 4) listeners" : nil
            nodes.append(Node(id: "l\(index)", kind: .listener, label: "Listener\(index)View", detail: detail))
        }
        var edges: [Edge] = []
        var linked: Set<[String]> = []
        func link(_ from: String, _ to: String, count: Int) {
            if linked.insert([from, to]).inserted { edges.append(Edge(from: from, to: to, count: count)) }
        }
        // Every listener listens to something; then more listeners per event, at random.
        for listener in 0..<listenerCount {
            link("e\(next(eventCount))", "l\(listener)", count: next(40))
        }
        for event in 0..<eventCount {
            link("d\(next(dispatcherCount))", "e\(event)", count: 1 + next(50))
            for _ in 0..<next(2) {
                link("e\(event)", "l\(next(listenerCount))", count: next(40))
            }
        }
        for listener in 0..<listenerCount where next(4) == 0 {
            link("l\(listener)", "e\(next(eventCount))", count: 1 + next(9))
        }
        return EventTopology(nodes: nodes, edges: edges)
    }
}
