/// Edge curves and the places of their count labels.
extension TopologyLayout {
    static let countLabelHeight = 15.0

    /// Curves for every route and a place for every count label; then the size of the drawing.
    mutating func drawRoutes() {
        var outgoing = [[Int]](repeating: [], count: vertices.count)
        var incoming = [[Int]](repeating: [], count: vertices.count)
        var segmentsOfChain = [[Int]](repeating: [], count: chains.count)
        for (index, segment) in segments.enumerated() {
            outgoing[segment.upper].append(index)
            incoming[segment.lower].append(index)
            segmentsOfChain[segment.chain].append(index)
        }
        // Where each segment leaves its upper vertex and meets its lower one: the arrows at one
        // box are spread along its side in the order of their other ends, so they do not cross
        // at the box.
        var start = [Double](repeating: 0, count: segments.count)
        var end = [Double](repeating: 0, count: segments.count)
        for index in vertices.indices {
            let vertex = vertices[index]
            let byLower = outgoing[index].sorted {
                (vertices[segments[$0].lower].y, $0) < (vertices[segments[$1].lower].y, $1)
            }
            let byUpper = incoming[index].sorted {
                (vertices[segments[$0].upper].y, $0) < (vertices[segments[$1].upper].y, $1)
            }
            for (slot, segment) in byLower.enumerated() {
                start[segment] = portY(vertex, slot: slot, of: byLower.count, spacing: Metrics.outgoingPortSpacing)
            }
            for (slot, segment) in byUpper.enumerated() {
                end[segment] = portY(vertex, slot: slot, of: byUpper.count, spacing: Metrics.incomingPortSpacing)
            }
        }
        for (chainIndex, chain) in chains.enumerated() {
            let chainSegments = segmentsOfChain[chainIndex]
            let first = boxes[chain.vertices[0]].frame
            let last = boxes[chain.vertices[chain.vertices.count - 1]].frame
            var points = [Point(x: first.maxX, y: start[chainSegments[0]])]
            for virtual in chain.vertices.dropFirst().dropLast() {
                let column = columns[vertices[virtual].layer]
                points.append(Point(x: column.x, y: vertices[virtual].y))
                points.append(Point(x: column.x + column.width, y: vertices[virtual].y))
            }
            points.append(Point(x: last.x, y: end[chainSegments[chainSegments.count - 1]]))
            var curve = [points[0]]
            for (from, to) in zip(points, points.dropFirst()) {
                if from.y == to.y {
                    curve.append(Point(x: from.x + (to.x - from.x) / 3, y: from.y))
                    curve.append(Point(x: from.x + (to.x - from.x) * 2 / 3, y: to.y))
                } else {
                    // Horizontal at both ends: the pieces join smoothly and arrive head-on.
                    let half = (to.x - from.x) / 2
                    curve.append(Point(x: from.x + half, y: from.y))
                    curve.append(Point(x: to.x - half, y: to.y))
                }
                curve.append(to)
            }
            routes[chain.route].curve = routes[chain.route].reversed ? curve.reversed() : curve
        }
        for index in routes.indices where routes[index].isSelfLoop {
            let frame = boxes[routes[index].from].frame
            let middle = frame.x + frame.width / 2
            let rise = Metrics.selfLoopClearance - 2
            routes[index].curve = [
                Point(x: middle + 12, y: frame.y), Point(x: middle + 34, y: frame.y - rise),
                Point(x: middle - 34, y: frame.y - rise), Point(x: middle - 12, y: frame.y),
            ]
        }
        placeCountLabels()
    }

    private func portY(_ vertex: Vertex, slot: Int, of count: Int, spacing: Double) -> Double {
        guard count > 1, vertex.node != nil else { return vertex.y }
        let step = min(spacing, (vertex.height - 8) / Double(count - 1))
        return vertex.y + (Double(slot) - Double(count - 1) / 2) * step
    }

    /// The point at `t` on the cubic piece starting at `curve[first]`.
    static func point(on curve: [Point], piece first: Int, at t: Double) -> Point {
        let (p0, p1, p2, p3) = (curve[first], curve[first + 1], curve[first + 2], curve[first + 3])
        let u = 1 - t
        let (a, b, c, d) = (u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t)
        return Point(
            x: a * p0.x + b * p1.x + c * p2.x + d * p3.x, y: a * p0.y + b * p1.y + c * p2.y + d * p3.y)
    }

    /// Each count goes to the first of a few places along its curve that is clear of every box, of
    /// the labels placed before it and of the other curves, or else to the place that overlaps
    /// least. Straight runs
    /// through virtual nodes are tried first: nothing else is drawn there.
    private mutating func placeCountLabels() {
        let obstacles = boxes.map {
            Rect(x: $0.frame.x - 2, y: $0.frame.y - 2, width: $0.frame.width + 4, height: $0.frame.height + 4)
        }
        var placed: [Rect] = []
        // Points along every curve, so that a count can keep off the other arrows too (a number
        // sitting on a crossing is hard to attribute).
        // They are kept in a grid of square cells, so that a candidate looks only at the cells it
        // covers.
        let cell = 32.0
        func cellKey(_ x: Double, _ y: Double) -> [Int] {
            [Int((x / cell).rounded(.down)), Int((y / cell).rounded(.down))]
        }
        var samples: [[Int]: [(route: Int, point: Point)]] = [:]
        for (index, route) in routes.enumerated() where route.curve.count >= 4 {
            for piece in stride(from: 0, to: route.curve.count - 3, by: 3) {
                for step in 0...12 {
                    let point = Self.point(on: route.curve, piece: piece, at: Double(step) / 12)
                    samples[cellKey(point.x, point.y), default: []].append((index, point))
                }
            }
        }
        func arrowPoints(in rect: Rect, besides route: Int) -> Int {
            let (low, high) = (cellKey(rect.x, rect.y), cellKey(rect.maxX, rect.maxY))
            var count = 0
            for x in low[0]...high[0] {
                for y in low[1]...high[1] {
                    for sample in samples[[x, y]] ?? [] where sample.route != route && rect.contains(sample.point) {
                        count += 1
                    }
                }
            }
            return count
        }
        let order = routes.indices.sorted { a, b in
            let (left, right) = (routes[a], routes[b])
            let leftStart = left.curve.first ?? Point(x: 0, y: 0)
            let rightStart = right.curve.first ?? Point(x: 0, y: 0)
            return (left.isSelfLoop ? 0 : 1, leftStart.x, leftStart.y, a) < (
                right.isSelfLoop ? 0 : 1, rightStart.x, rightStart.y, b
            )
        }
        for index in order {
            let text = TopologyGraph.countLabel(routes[index].count)
            let width = (TopologyText.width(text, size: Metrics.countSize) + 8).rounded(.up)
            let curve = routes[index].curve
            guard curve.count >= 4 else { continue }
            var candidates: [Point] = []
            let pieces = stride(from: 0, to: curve.count - 3, by: 3)
            for piece in pieces
            where curve[piece].y == curve[piece + 3].y && abs(curve[piece + 3].x - curve[piece].x) > width + 8 {
                candidates.append(Self.point(on: curve, piece: piece, at: 0.5))
            }
            for t in [0.5, 0.62, 0.38, 0.75, 0.25, 0.86, 0.14, 0.92] {
                for piece in pieces where curve[piece].y != curve[piece + 3].y || routes[index].isSelfLoop {
                    candidates.append(Self.point(on: curve, piece: piece, at: t))
                }
            }
            if candidates.isEmpty { candidates.append(Self.point(on: curve, piece: 0, at: 0.5)) }
            var best: (cost: Double, rect: Rect)?
            for center in candidates {
                let rect = Rect(
                    x: (center.x - width / 2).rounded(), y: (center.y - Self.countLabelHeight / 2).rounded(),
                    width: width, height: Self.countLabelHeight)
                let margin = Rect(x: rect.x - 3, y: rect.y - 3, width: rect.width + 6, height: rect.height + 6)
                let crossed = arrowPoints(in: margin, besides: index)
                let cost =
                    obstacles.reduce(0) { $0 + 10 * Self.overlap(rect, $1) }
                    + placed.reduce(0) { $0 + Self.overlap(rect, $1) } + 40 * Double(crossed)
                if best == nil || cost < best!.cost { best = (cost, rect) }
                if cost == 0 { break }
            }
            guard let chosen = best?.rect else { continue }
            placed.append(chosen)
            routes[index].labelText = text
            routes[index].labelCenter = Point(x: chosen.x + width / 2, y: chosen.y + Self.countLabelHeight / 2)
        }
        var maxX = columns.last.map { $0.x + $0.width } ?? origin.x
        var maxY = origin.y
        for box in boxes { maxY = max(maxY, box.frame.maxY) }
        for rect in placed {
            maxX = max(maxX, rect.maxX)
            maxY = max(maxY, rect.maxY)
        }
        size = (maxX, maxY)
    }

    static func overlap(_ a: Rect, _ b: Rect) -> Double {
        let width = min(a.maxX, b.maxX) - max(a.x, b.x)
        let height = min(a.maxY, b.maxY) - max(a.y, b.y)
        return width > 0 && height > 0 ? width * height : 0
    }
}
