extension EventCenter {
    /// A picture of this center's event flow: dispatchers -> events -> listeners, with counts.
    ///
    /// ```swift
    /// center.diagnostics.recordsTopology = true
    /// // ... run the app or a test ...
    /// print(center.topology().mermaid)
    /// ```
    ///
    /// Listeners come from the live registrations; dispatchers, and deliveries to listeners
    /// that have ended since, come from what the center observed while
    /// ``EventDiagnostics/recordsTopology`` was on. Edge counts are observed dispatches and
    /// deliveries (or, without a recording, the deliveries counted by
    /// ``EventDiagnostics/countsDeliveries``; else 0).
    public func topology() -> EventTopology {
        var builder = TopologyBuilder()
        let counting = diagnosticsState.diagnostics.countsDeliveries
        for (_, records) in registry.snapshotAll() {
            for record in records where record.checkLiveness() {
                builder.addRegistration(
                    event: EventIdentity(of: record).description, listener: TopologyLog.Listener(record),
                    context: record.context.description, delivered: counting ? record.deliveryCount : 0)
            }
        }
        builder.add(diagnosticsState.recordedTopology)
        return builder.topology
    }

    /// Forgets the dispatches and deliveries recorded for ``topology()`` so far (the live
    /// registrations stay in it), for instance to draw one phase of an app on its own.
    public func resetRecordedTopology() {
        diagnosticsState.clearRecordedTopology()
    }
}

/// Assembles an ``EventTopology`` from registrations and a ``TopologyLog``.
private struct TopologyBuilder {
    private struct ListenerSummary {
        var registrations = 0
        var contexts: [String] = []
    }

    private var dispatchers: Set<TopologyLog.Dispatcher> = []
    private var events: [String: Int] = [:]  // dispatches observed
    private var listeners: [TopologyLog.Listener: ListenerSummary] = [:]
    private var edges: [EventTopology.Edge] = []
    private var registeredDeliveries: [EdgeKey: Int] = [:]
    private var observedDeliveries: [EdgeKey: Int] = [:]

    private struct EdgeKey: Hashable {
        let event: String
        let listener: TopologyLog.Listener
    }

    mutating func addRegistration(event: String, listener: TopologyLog.Listener, context: String, delivered: Int) {
        events[event, default: 0] += 0
        var summary = listeners[listener] ?? ListenerSummary()
        summary.registrations += 1
        if !summary.contexts.contains(context) { summary.contexts.append(context) }
        listeners[listener] = summary
        registeredDeliveries[EdgeKey(event: event, listener: listener), default: 0] += delivered
    }

    mutating func add(_ log: TopologyLog) {
        for (dispatcher, counts) in log.dispatches {
            if case .listener(let listener) = dispatcher {
                if listeners[listener] == nil { listeners[listener] = ListenerSummary() }
            } else {
                dispatchers.insert(dispatcher)
            }
            for (identity, count) in counts {
                let event = identity.description
                events[event, default: 0] += count
                edges.append(
                    EventTopology.Edge(from: Self.id(of: dispatcher), to: Self.id(ofEvent: event), count: count))
            }
        }
        for (identity, receivers) in log.deliveries {
            let event = identity.description
            events[event, default: 0] += 0
            for (listener, count) in receivers {
                if listeners[listener] == nil { listeners[listener] = ListenerSummary() }
                observedDeliveries[EdgeKey(event: event, listener: listener), default: 0] += count
            }
        }
    }

    var topology: EventTopology {
        var nodes: [EventTopology.Node] = []
        for dispatcher in dispatchers {
            nodes.append(
                EventTopology.Node(
                    id: Self.id(of: dispatcher), kind: .dispatcher, label: Self.label(of: dispatcher),
                    detail: Self.detail(of: dispatcher)))
        }
        for (event, dispatches) in events {
            let detail = dispatches == 0 ? nil : dispatches == 1 ? "1 dispatch" : "\(dispatches) dispatches"
            nodes.append(EventTopology.Node(id: Self.id(ofEvent: event), kind: .event, label: event, detail: detail))
        }
        for (listener, summary) in listeners {
            let detail: String
            switch summary.registrations {
            case 0: detail = "ended"
            case 1: detail = summary.contexts.joined(separator: ", ")
            default: detail = "\(summary.registrations) listeners, " + summary.contexts.joined(separator: ", ")
            }
            nodes.append(
                EventTopology.Node(
                    id: Self.id(of: listener), kind: .listener, label: Self.label(of: listener), detail: detail))
        }
        var all = edges
        for key in Set(registeredDeliveries.keys).union(observedDeliveries.keys) {
            let count = observedDeliveries[key] ?? registeredDeliveries[key] ?? 0
            all.append(
                EventTopology.Edge(from: Self.id(ofEvent: key.event), to: Self.id(of: key.listener), count: count))
        }
        return EventTopology(nodes: nodes, edges: all)
    }

    private static func id(ofEvent event: String) -> String { "event:" + event }

    private static func id(of listener: TopologyLog.Listener) -> String { "listener:" + label(of: listener) }

    private static func id(of dispatcher: TopologyLog.Dispatcher) -> String {
        if case .listener(let listener) = dispatcher { return id(of: listener) }
        return "dispatcher:" + label(of: dispatcher)
    }

    private static func label(of listener: TopologyLog.Listener) -> String {
        switch listener {
        case .owner(let type): type.description
        case .callSite(let site): site.description
        }
    }

    private static func label(of dispatcher: TopologyLog.Dispatcher) -> String {
        switch dispatcher {
        case .sender(let type): type.description
        case .listener(let listener): label(of: listener)
        case .callSite(let site): site.description
        case .unknown: "unknown dispatcher"
        }
    }

    private static func detail(of dispatcher: TopologyLog.Dispatcher) -> String? {
        switch dispatcher {
        case .sender: "sender"
        case .callSite: "dispatch call"
        case .listener, .unknown: nil
        }
    }
}
