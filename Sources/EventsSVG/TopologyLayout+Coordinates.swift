import Events

/// Box sizes and positions: columns from left to right, rows inside each column.
extension TopologyLayout {
    enum Metrics {
        static let labelSize = 13.0
        static let detailSize = 11.0
        static let countSize = 11.0
        static let boxPadding = 12.0
        static let minimumBoxWidth = 84.0
        /// Text wider than this is shortened with an ellipsis.
        static let maximumTextWidth = 232.0
        static let boxHeight = 34.0
        static let boxHeightWithDetail = 48.0
        /// Vertical room each arrow needs where it meets a box (arrowheads must not overlap).
        static let incomingPortSpacing = 10.0
        static let outgoingPortSpacing = 7.0
        /// Vertical gap between two boxes of a column, and beside an edge passing through it.
        static let boxGap = 18.0
        static let passingGap = 10.0
        static let columnGap = 96.0
        static let selfLoopClearance = 32.0
        static let fitRounds = 10
    }

    /// Text, width and height of every vertex; room above the nodes that have a self-loop.
    mutating func sizeVertices() {
        var incoming = [Int](repeating: 0, count: vertices.count)
        var outgoing = [Int](repeating: 0, count: vertices.count)
        for segment in segments {
            outgoing[segment.upper] += 1
            incoming[segment.lower] += 1
        }
        for route in routes where route.isSelfLoop {
            vertices[route.from].clearanceAbove = Metrics.selfLoopClearance
        }
        boxes = []
        for index in vertices.indices {
            guard let node = vertices[index].node else {
                vertices[index].height = 2
                continue
            }
            let label = TopologyText.fitted(
                TopologyGraph.singleLine(graph.nodes[node].label),
                maxWidth: Metrics.maximumTextWidth, size: Metrics.labelSize, bold: true)
            let detail = graph.nodes[node].detail.map {
                TopologyText.fitted(
                    TopologyGraph.singleLine($0), maxWidth: Metrics.maximumTextWidth, size: Metrics.detailSize)
            }
            let textWidth = max(
                TopologyText.width(label, size: Metrics.labelSize, bold: true),
                detail.map { TopologyText.width($0, size: Metrics.detailSize) } ?? 0)
            let width = max(Metrics.minimumBoxWidth, (textWidth + 2 * Metrics.boxPadding).rounded(.up))
            let base = detail == nil ? Metrics.boxHeight : Metrics.boxHeightWithDetail
            let ports =
                max(
                    Double(incoming[index]) * Metrics.incomingPortSpacing,
                    Double(outgoing[index]) * Metrics.outgoingPortSpacing) + 8
            vertices[index].width = width
            vertices[index].height = max(base, (ports / 2).rounded(.up) * 2)
            let isEvent = graph.nodes[node].kind == .event
            boxes.append(
                Box(
                    node: node, layer: vertices[index].layer, frame: Rect(x: 0, y: 0, width: width, height: 0),
                    label: label, detail: detail, cornerRadius: isEvent ? base / 2 : 8))
        }
    }

    /// Places columns left to right and fits the rows of each column to its neighbors.
    mutating func assignCoordinates() {
        var segmentsAfter = [Int](repeating: 0, count: layers.count)
        for segment in segments { segmentsAfter[vertices[segment.upper].layer] += 1 }
        var x = origin.x
        columns = []
        for (layer, members) in layers.enumerated() {
            let width = max(24, members.map { vertices[$0].width }.max() ?? 0)
            columns.append((x, width))
            // Busier gaps get more room, so the curves between them spread out.
            x += width + Metrics.columnGap + Double(min(64, 2 * segmentsAfter[layer]))
        }
        var upper = [[(vertex: Int, weight: Double)]](repeating: [], count: vertices.count)
        var lower = [[(vertex: Int, weight: Double)]](repeating: [], count: vertices.count)
        for segment in segments {
            // Long edges pull harder, so that they run straight through their virtual nodes.
            let virtualEnds = [segment.upper, segment.lower].filter { vertices[$0].node == nil }.count
            let weight = [1.0, 2, 8][virtualEnds]
            lower[segment.upper].append((segment.lower, weight))
            upper[segment.lower].append((segment.upper, weight))
        }
        for layer in layers.indices { stack(layer) }
        for _ in 0..<Metrics.fitRounds {
            for layer in layers.indices.dropFirst() { fit(layer, toward: upper) }
            for layer in layers.indices.reversed().dropFirst() { fit(layer, toward: lower) }
        }
        let both = zip(upper, lower).map { $0 + $1 }
        for layer in layers.indices { fit(layer, toward: both) }
        let top = vertices.map { $0.y - $0.height / 2 - $0.clearanceAbove }.min() ?? 0
        for index in vertices.indices { vertices[index].y += origin.y - top }
        var boxIndex = 0
        for vertex in vertices where vertex.node != nil {
            let column = columns[vertex.layer]
            boxes[boxIndex].frame = Rect(
                x: column.x + ((column.width - vertex.width) / 2).rounded(), y: vertex.y - vertex.height / 2,
                width: vertex.width, height: vertex.height)
            boxIndex += 1
        }
    }

    /// The least distance between the centers of `above` and `below` when they are neighbors in
    /// a column.
    func separation(_ above: Int, _ below: Int) -> Double {
        let bothNodes = vertices[above].node != nil && vertices[below].node != nil
        return (vertices[above].height + vertices[below].height) / 2 + vertices[below].clearanceAbove
            + (bothNodes ? Metrics.boxGap : Metrics.passingGap)
    }

    /// The vertices of a layer packed tightly, centered on zero.
    private mutating func stack(_ layer: Int) {
        let members = layers[layer]
        guard let first = members.first else { return }
        var y = 0.0
        vertices[first].y = 0
        for (above, below) in zip(members, members.dropFirst()) {
            y += separation(above, below)
            vertices[below].y = y
        }
        for vertex in members { vertices[vertex].y -= y / 2 }
    }

    /// Moves the vertices of a layer as close as their order and separations allow to the
    /// weighted mean of their neighbors: an isotonic regression (pool adjacent violators) on the
    /// positions with the separations taken out, which is the least-squares optimum.
    private mutating func fit(_ layer: Int, toward neighbors: [[(vertex: Int, weight: Double)]]) {
        let members = layers[layer]
        guard !members.isEmpty else { return }
        var offset = [0.0]
        for (above, below) in zip(members, members.dropFirst()) {
            offset.append(offset[offset.count - 1] + separation(above, below))
        }
        // Blocks of pooled vertices: total weight, weighted sum of targets, how many vertices.
        var blocks: [(weight: Double, sum: Double, count: Int)] = []
        for (slot, vertex) in members.enumerated() {
            let around = neighbors[vertex]
            let total = around.reduce(0) { $0 + $1.weight }
            let desired =
                total > 0 ? around.reduce(0) { $0 + vertices[$1.vertex].y * $1.weight } / total : vertices[vertex].y
            let weight = max(1, total)
            blocks.append((weight, (desired - offset[slot]) * weight, 1))
            while blocks.count > 1 {
                let last = blocks[blocks.count - 1]
                let previous = blocks[blocks.count - 2]
                guard previous.sum / previous.weight > last.sum / last.weight else { break }
                blocks.removeLast(2)
                blocks.append((previous.weight + last.weight, previous.sum + last.sum, previous.count + last.count))
            }
        }
        var slot = 0
        for block in blocks {
            let level = block.sum / block.weight
            for _ in 0..<block.count {
                vertices[members[slot]].y = (level + offset[slot]).rounded()
                slot += 1
            }
        }
    }
}
