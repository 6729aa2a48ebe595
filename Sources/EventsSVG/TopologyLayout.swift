import Events

/// Where every box, arrow and count of a topology picture goes: a layered (Sugiyama-style)
/// drawing, read from left to right.
///
/// The steps:
/// 1. cycles are broken: a depth-first search finds them, and in each the edge that returns
///    toward the sources is reversed (it is drawn pointing backwards, dashed)
///    (`TopologyLayout+Cycles.swift`);
/// 2. nodes get layers (columns) by longest path, each kind no earlier than its place in the
///    reading order, so dispatchers come first, then events, then listeners;
/// 3. an edge spanning several layers gets a virtual node in each layer it crosses;
/// 4. the order inside each layer comes from barycenter sweeps, adjacent swaps and sifting
///    that reduce crossings, from a few starting orders (`TopologyLayout+Ordering.swift`);
/// 5. boxes get sizes from their text and positions from an isotonic fit that keeps them apart
///    (`TopologyLayout+Coordinates.swift`); edges become curves through their virtual nodes,
///    with count labels placed clear of boxes and of each other (`TopologyLayout+Routes.swift`).
///
/// Everything is deterministic: ties are broken by label, then id, then input order.
struct TopologyLayout {
    struct Point: Equatable {
        var x: Double
        var y: Double
    }

    struct Rect: Equatable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double

        var maxX: Double { x + width }
        var maxY: Double { y + height }

        func contains(_ point: Point) -> Bool {
            point.x >= x && point.x <= maxX && point.y >= y && point.y <= maxY
        }

        func intersects(_ other: Rect) -> Bool {
            x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
        }
    }

    /// One drawn node.
    struct Box {
        /// The index of the node in ``TopologyGraph/nodes``.
        let node: Int
        let layer: Int
        var frame: Rect
        /// The label as drawn: on one line, shortened with an ellipsis when it is too long.
        var label: String
        var detail: String?
        var cornerRadius: Double
    }

    /// One drawn edge (parallel edges of the graph are merged into one, their counts added).
    struct Route {
        let from: Int
        let to: Int
        let count: Int
        /// True for an edge the cycle breaking reversed: it is drawn from `from` back to `to`
        /// against the reading direction.
        let reversed: Bool
        let isSelfLoop: Bool
        /// The curve, in drawing order (from `from` to `to`): a start point, then groups of three
        /// points (two controls and an end) as in an SVG path's `C` command.
        var curve: [Point] = []
        /// Where the count label is centered.
        var labelCenter = Point(x: 0, y: 0)
        var labelText = ""
    }

    /// A vertex of the layered graph: a node, or a virtual node carrying an edge across a layer.
    struct Vertex {
        let node: Int?
        var layer: Int
        /// Breaks ties in the crossing reduction.
        let key: String
        var width = 0.0
        var height = 0.0
        /// Room kept free above the vertex (for a self-loop).
        var clearanceAbove = 0.0
        var y = 0.0
    }

    /// An edge of the layered graph, from a lower layer to the next one.
    struct Segment {
        let upper: Int
        let lower: Int
        /// The index in `chains` of the edge this segment is part of.
        let chain: Int
    }

    /// A merged edge after cycle breaking, pointing to a later layer, with its vertices.
    struct Chain {
        let route: Int
        var vertices: [Int]
    }

    let graph: TopologyGraph
    var vertices: [Vertex] = []
    var segments: [Segment] = []
    var chains: [Chain] = []
    /// The vertices of each layer, in drawing order (top to bottom).
    var layers: [[Int]] = []
    var boxes: [Box] = []
    var routes: [Route] = []
    /// The left edge and width of each layer's column.
    var columns: [(x: Double, width: Double)] = []
    /// The right and bottom edges of everything drawn, in the same coordinates as the boxes
    /// (the drawing starts at `origin`, so a caller adds its margin to these).
    var size = (width: 0.0, height: 0.0)
    let origin: Point

    init(_ graph: TopologyGraph, origin: Point = Point(x: 0, y: 0)) {
        self.graph = graph
        self.origin = origin
        guard !graph.nodes.isEmpty else { return }
        let merged = Self.mergedLinks(graph)
        let reversed = Self.backEdges(count: graph.nodes.count, links: merged, graph: graph)
        for (index, link) in merged.enumerated() {
            routes.append(
                Route(
                    from: link.from, to: link.to, count: link.count, reversed: reversed.contains(index),
                    isSelfLoop: link.from == link.to))
        }
        assignLayers()
        insertVirtualNodes()
        orderLayers()
        sizeVertices()
        assignCoordinates()
        drawRoutes()
    }

    /// Parallel edges merged, counts added (saturating), in first-seen order.
    static func mergedLinks(_ graph: TopologyGraph) -> [TopologyGraph.Link] {
        var position: [[Int]: Int] = [:]
        var result: [TopologyGraph.Link] = []
        for link in graph.links {
            if let index = position[[link.from, link.to]] {
                let (sum, overflow) = result[index].count.addingReportingOverflow(link.count)
                result[index] = TopologyGraph.Link(
                    from: link.from, to: link.to, count: overflow ? (link.count > 0 ? .max : .min) : sum)
            } else {
                position[[link.from, link.to]] = result.count
                result.append(link)
            }
        }
        return result
    }

    /// The nodes in reading order: kind, then label, then id, then input order.
    static func readingOrder(_ graph: TopologyGraph) -> [Int] {
        graph.nodes.indices.sorted { a, b in
            let left = graph.nodes[a]
            let right = graph.nodes[b]
            return (TopologyGraph.rank(of: left.kind), left.label, left.id, a)
                < (TopologyGraph.rank(of: right.kind), right.label, right.id, b)
        }
    }

    /// Longest-path layers over the edges as reversed, each kind no earlier than the first layer
    /// its place in the reading order allows (an event nobody dispatched still sits in the events'
    /// column, not beside the dispatchers).
    mutating func assignLayers() {
        let count = graph.nodes.count
        let kinds = Set(graph.nodes.map(\.kind))
        var floorOfKind: [EventTopology.Node.Kind: Int] = [:]
        var next = 0
        for kind in EventTopology.Node.Kind.allCases {
            floorOfKind[kind] = next
            if kinds.contains(kind) { next += 1 }
        }
        var successors = [[Int]](repeating: [], count: count)
        var indegree = [Int](repeating: 0, count: count)
        for route in routes where !route.isSelfLoop {
            let (upper, lower) = route.reversed ? (route.to, route.from) : (route.from, route.to)
            successors[upper].append(lower)
            indegree[lower] += 1
        }
        var layer = graph.nodes.map { floorOfKind[$0.kind] ?? 0 }
        // Kahn's order; the reversed edges leave no cycle, so every node is reached.
        var ready = Self.readingOrder(graph).filter { indegree[$0] == 0 }
        var cursor = 0
        while cursor < ready.count {
            let node = ready[cursor]
            cursor += 1
            for successor in successors[node] {
                layer[successor] = max(layer[successor], layer[node] + 1)
                indegree[successor] -= 1
                if indegree[successor] == 0 { ready.append(successor) }
            }
        }
        vertices = graph.nodes.enumerated().map { index, node in
            Vertex(node: index, layer: layer[index], key: node.label + "\u{0}" + node.id)
        }
    }

    /// Turns every edge into a chain of segments between adjacent layers.
    mutating func insertVirtualNodes() {
        for (index, route) in routes.enumerated() where !route.isSelfLoop {
            let (upper, lower) = route.reversed ? (route.to, route.from) : (route.from, route.to)
            var chain = [upper]
            let key = vertices[upper].key + "\u{1}" + vertices[lower].key
            var layer = vertices[upper].layer + 1
            while layer < vertices[lower].layer {
                chain.append(vertices.count)
                vertices.append(Vertex(node: nil, layer: layer, key: key))
                layer += 1
            }
            chain.append(lower)
            for step in 1..<chain.count {
                segments.append(Segment(upper: chain[step - 1], lower: chain[step], chain: chains.count))
            }
            chains.append(Chain(route: index, vertices: chain))
        }
    }
}
