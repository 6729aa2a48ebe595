/// A picture of an app's event flow: who dispatches which events, and who listens to them.
///
/// Built by ``EventCenter/topology()`` from the live registrations and from the dispatches and
/// deliveries the center observed while ``EventDiagnostics/recordsTopology`` was on. Render it
/// as text with ``dot`` or ``mermaid``, as a laid-out SVG picture with `svg(title:)` of the
/// `EventsSVG` library, or read ``nodes`` and ``edges`` yourself.
///
/// ```swift
/// import Events
/// import EventsSVG
///
/// center.diagnostics.recordsTopology = true
/// runTheApp()
/// let picture = center.topology()
/// try picture.svg().write(toFile: "event-flow.svg", atomically: true, encoding: .utf8)
/// ```
///
/// Three kinds of node: *dispatchers* (the type of the `from:` sender, or the file and line of
/// a `dispatch` call without one), *events* (a type or a name) and *listeners* (the owner's
/// type, or the file and line of the `listen` call). Edges go from a dispatcher to an event
/// (how many dispatches) and from an event to a listener (how many deliveries). A listener
/// whose handler dispatches another event also has an edge to that event, so chains of
/// events show as paths, and a graph may have cycles.
public struct EventTopology: Sendable, Hashable, Codable {
    /// One box in the picture.
    public struct Node: Sendable, Hashable, Codable, Identifiable {
        /// What a node stands for.
        public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            /// Code that dispatches: a sender's type, or a `dispatch` call site.
            case dispatcher
            /// An event type, or a named event.
            case event
            /// Code that listens: an owner's type, or a `listen` call site.
            case listener
        }

        /// A stable identifier, unique in the topology, for edges to refer to.
        public let id: String
        /// What the node stands for; it decides the node's column, shape and color in a picture.
        public let kind: Kind
        /// The main text: a type name, an event name, or a call site.
        public let label: String
        /// A second, smaller line, such as how many listeners a node stands for and where
        /// they run; nil for none.
        public let detail: String?

        /// A node for a topology of your own.
        ///
        /// - Parameters:
        ///   - id: Unique in the topology; edges refer to the node by it. Any text will do.
        ///   - kind: What the node stands for.
        ///   - label: The text shown; any text, escaped by each renderer.
        ///   - detail: An optional second, smaller line.
        public init(id: String, kind: Kind, label: String, detail: String? = nil) {
            self.id = id
            self.kind = kind
            self.label = label
            self.detail = detail
        }
    }

    /// An arrow: dispatches of an event, or deliveries of an event to a listener.
    public struct Edge: Sendable, Hashable, Codable {
        /// The ``Node/id`` the arrow starts at.
        public let from: String
        /// The ``Node/id`` the arrow points to.
        public let to: String
        /// How many dispatches or deliveries the center observed along this arrow; 0 for a
        /// registration that has not received anything yet.
        public let count: Int

        /// An edge from the node whose ``Node/id`` is `from` to the node whose id is `to`.
        public init(from: String, to: String, count: Int) {
            self.from = from
            self.to = to
            self.count = count
        }
    }

    /// Every node, dispatchers first, then events, then listeners, each group sorted by label.
    public let nodes: [Node]
    /// Every edge, sorted by its ends.
    public let edges: [Edge]

    /// A topology of your own nodes and edges, for instance to render a graph you assembled
    /// from several centers. Edges whose ends are not among `nodes` are dropped.
    public init(nodes: [Node], edges: [Edge]) {
        let order: [Node.Kind: Int] = [.dispatcher: 0, .event: 1, .listener: 2]
        self.nodes = nodes.sorted {
            (order[$0.kind]!, $0.label, $0.id) < (order[$1.kind]!, $1.label, $1.id)
        }
        let ids = Set(nodes.map(\.id))
        self.edges = edges.filter { ids.contains($0.from) && ids.contains($0.to) }
            .sorted { ($0.from, $0.to, $0.count) < ($1.from, $1.to, $1.count) }
    }
}
