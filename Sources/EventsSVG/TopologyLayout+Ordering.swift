/// Crossing reduction: the order of the vertices inside each layer.
extension TopologyLayout {
    /// How many sweep rounds (one down, one up) the barycenter heuristic gets at most from each
    /// starting order; it stops earlier once a few rounds in a row find no better order.
    static let sweepRounds = 24
    /// How many times sifting gets to move vertices the barycenter rounds left in place.
    static let siftingPhases = 3

    /// Orders every layer. Three starting orders are tried (each layer by the barycenter of the
    /// one before it, and the order a depth-first walk meets the vertices in, from the nodes in
    /// reading order and in reverse; a walk keeps chains together, and which end it starts from
    /// decides which chains it keeps together); from each, rounds of down and up barycenter sweeps, each followed
    /// by adjacent swaps, and the order with the fewest crossings seen wins.
    mutating func orderLayers() {
        let layerCount = (vertices.map(\.layer).max() ?? -1) + 1
        let (upperNeighbors, lowerNeighbors) = neighbors()
        var byKey = [[Int]](repeating: [], count: layerCount)
        for index in vertices.indices { byKey[vertices[index].layer].append(index) }
        for layer in byKey.indices { byKey[layer].sort { (vertices[$0].key, $0) < (vertices[$1].key, $1) } }
        let starts = [
            barycentricStart(byKey, upper: upperNeighbors),
            depthFirstStart(layerCount, lower: lowerNeighbors, rootsReversed: false),
            depthFirstStart(layerCount, lower: lowerNeighbors, rootsReversed: true),
        ]
        var best: (layers: [[Int]], crossings: Int)?
        for start in starts {
            layers = start
            let crossings = sweep(upper: upperNeighbors, lower: lowerNeighbors)
            if best == nil || crossings < best!.crossings { best = (layers, crossings) }
        }
        layers = best?.layers ?? byKey
    }

    /// Each vertex's neighbors in the layer above and in the layer below.
    func neighbors() -> (upper: [[Int]], lower: [[Int]]) {
        var upper = [[Int]](repeating: [], count: vertices.count)
        var lower = [[Int]](repeating: [], count: vertices.count)
        for segment in segments {
            lower[segment.upper].append(segment.lower)
            upper[segment.lower].append(segment.upper)
        }
        return (upper, lower)
    }

    /// Sweeps from the current order of `layers`, keeping the best order found; the crossings
    /// left.
    mutating func reduceCrossings() -> Int {
        let (upper, lower) = neighbors()
        return sweep(upper: upper, lower: lower)
    }

    /// The first layer in key order, every later one by the barycenter of its neighbors above.
    private mutating func barycentricStart(_ byKey: [[Int]], upper: [[Int]]) -> [[Int]] {
        layers = byKey
        guard !layers.isEmpty else { return layers }
        var position = [Double](repeating: 0, count: vertices.count)
        renumber(0, &position)
        for layer in layers.indices.dropFirst() {
            sortByBarycenter(layer, neighbors: upper, position: &position, fallbackToKey: true)
            renumber(layer, &position)
        }
        return layers
    }

    /// The order in which a depth-first walk along the edges, from every node in reading order,
    /// first meets each vertex.
    private func depthFirstStart(_ layerCount: Int, lower: [[Int]], rootsReversed: Bool) -> [[Int]] {
        var result = [[Int]](repeating: [], count: layerCount)
        var seen = [Bool](repeating: false, count: vertices.count)
        let roots = Self.readingOrder(graph)
        for root in rootsReversed ? roots.reversed() : roots where !seen[root] {
            var stack = [root]
            while let vertex = stack.popLast() {
                guard !seen[vertex] else { continue }
                seen[vertex] = true
                result[vertices[vertex].layer].append(vertex)
                let next = lower[vertex].sorted { (vertices[$0].key, $0) > (vertices[$1].key, $1) }
                stack.append(contentsOf: next)
            }
        }
        return result
    }

    /// Sweeps from the current order; leaves the best order seen in `layers` and returns its
    /// crossings. Barycenter rounds run until they stop gaining; then sifting (costlier: it
    /// weighs every place in a layer for every vertex) moves what the rounds could not, and the
    /// rounds resume from there, twice at most.
    private mutating func sweep(upper: [[Int]], lower: [[Int]]) -> Int {
        var position = [Double](repeating: 0, count: vertices.count)
        for layer in layers.indices { renumber(layer, &position) }
        swapAdjacent(upper: upper, lower: lower, position: &position)
        var best = layers
        var fewest = crossingCount()
        for phase in 0...Self.siftingPhases {
            if phase > 0 {
                guard fewest > 0 else { break }
                layers = best
                for layer in layers.indices { renumber(layer, &position) }
                sift(upper: upper, lower: lower, position: &position)
                swapAdjacent(upper: upper, lower: lower, position: &position)
                let crossings = crossingCount()
                guard crossings < fewest else { break }
                fewest = crossings
                best = layers
            }
            var round = 0
            var roundsWithoutGain = 0
            while round < Self.sweepRounds && fewest > 0 && roundsWithoutGain < 4 {
                round += 1
                for layer in layers.indices.dropFirst() {
                    sortByBarycenter(layer, neighbors: upper, position: &position, fallbackToKey: false)
                    renumber(layer, &position)
                }
                for layer in layers.indices.reversed().dropFirst() {
                    sortByBarycenter(layer, neighbors: lower, position: &position, fallbackToKey: false)
                    renumber(layer, &position)
                }
                swapAdjacent(upper: upper, lower: lower, position: &position)
                let crossings = crossingCount()
                if crossings < fewest {
                    fewest = crossings
                    best = layers
                    roundsWithoutGain = 0
                } else {
                    roundsWithoutGain += 1
                }
            }
        }
        layers = best
        return fewest
    }

    /// Positions as fractions of the layer's height, so that layers of different sizes compare.
    private func renumber(_ layer: Int, _ position: inout [Double]) {
        let count = Double(layers[layer].count)
        for (index, vertex) in layers[layer].enumerated() { position[vertex] = (Double(index) + 0.5) / count }
    }

    /// Sorts one layer by the mean position of each vertex's neighbors in the adjacent layer. A
    /// vertex without such neighbors keeps its place (or, on the first placement, goes after the
    /// others); ties go by key.
    private mutating func sortByBarycenter(
        _ layer: Int, neighbors: [[Int]], position: inout [Double], fallbackToKey: Bool
    ) {
        var barycenter: [Int: Double] = [:]
        for vertex in layers[layer] {
            let around = neighbors[vertex]
            if around.isEmpty {
                barycenter[vertex] = fallbackToKey ? 2 : position[vertex]
            } else {
                barycenter[vertex] = around.reduce(0) { $0 + position[$1] } / Double(around.count)
            }
        }
        let vertices = self.vertices
        layers[layer].sort {
            (barycenter[$0]!, vertices[$0].key, $0) < (barycenter[$1]!, vertices[$1].key, $1)
        }
    }

    /// The positions of each vertex's neighbors in one layer, above and below, sorted: while that
    /// layer is reordered its neighbors stay put, so this is computed once per layer.
    private func neighborPositions(
        _ layer: Int, upper: [[Int]], lower: [[Int]], position: [Double]
    ) -> [Int: (upper: [Double], lower: [Double])] {
        var result: [Int: (upper: [Double], lower: [Double])] = [:]
        for vertex in layers[layer] {
            result[vertex] = (upper[vertex].map { position[$0] }.sorted(), lower[vertex].map { position[$0] }.sorted())
        }
        return result
    }

    /// How many pairs of edges cross when a vertex with neighbors at `a` is drawn above one with
    /// neighbors at `b` (both sorted): the pairs where `a`'s neighbor is below `b`'s.
    private static func crossings(_ a: [Double], above b: [Double]) -> Int {
        var total = 0
        var below = 0
        for x in a {
            while below < b.count && b[below] < x { below += 1 }
            total += below
        }
        return total
    }

    private static func crossings(
        _ a: (upper: [Double], lower: [Double]), above b: (upper: [Double], lower: [Double])
    ) -> Int {
        crossings(a.upper, above: b.upper) + crossings(a.lower, above: b.lower)
    }

    /// Moves each vertex, one at a time, to the place in its layer where its edges cross the
    /// fewest others (sifting). Where barycenters settle in a local optimum (a node pulled to the
    /// top by one long edge), this finds the move that pays.
    private mutating func sift(upper: [[Int]], lower: [[Int]], position: inout [Double]) {
        for layer in layers.indices where layers[layer].count > 1 {
            let around = neighborPositions(layer, upper: upper, lower: lower, position: position)
            for vertex in layers[layer].sorted(by: { (vertices[$0].key, $0) < (vertices[$1].key, $1) }) {
                var others = layers[layer]
                let current = others.firstIndex(of: vertex)!
                others.remove(at: current)
                let mine = around[vertex]!
                // Crossings with `vertex` at slot 0 (above all others), then the change from
                // moving it below each one in turn.
                var total = others.reduce(0) { $0 + Self.crossings(mine, above: around[$1]!) }
                var bestSlot = 0
                var fewest = total
                var currentTotal = total
                for (slot, other) in others.enumerated() {
                    let theirs = around[other]!
                    total += Self.crossings(theirs, above: mine) - Self.crossings(mine, above: theirs)
                    if total < fewest {
                        fewest = total
                        bestSlot = slot + 1
                    }
                    if slot + 1 == current { currentTotal = total }
                }
                guard fewest < currentTotal else { continue }
                others.insert(vertex, at: bestSlot)
                layers[layer] = others
                renumber(layer, &position)
            }
        }
    }

    /// Swaps neighbors in a layer while that lowers the crossings with both adjacent layers.
    private mutating func swapAdjacent(upper: [[Int]], lower: [[Int]], position: inout [Double]) {
        var improved = true
        var passes = 0
        while improved && passes < 8 {
            improved = false
            passes += 1
            for layer in layers.indices where layers[layer].count > 1 {
                let around = neighborPositions(layer, upper: upper, lower: lower, position: position)
                for slot in 0..<(layers[layer].count - 1) {
                    let a = layers[layer][slot]
                    let b = layers[layer][slot + 1]
                    if Self.crossings(around[b]!, above: around[a]!) < Self.crossings(around[a]!, above: around[b]!) {
                        layers[layer].swapAt(slot, slot + 1)
                        position.swapAt(a, b)
                        improved = true
                    }
                }
            }
        }
    }

    /// The number of pairs of segments that cross between adjacent layers, in the current order.
    ///
    /// Two segments cross when their upper ends and their lower ends are in opposite orders, so
    /// with the segments sorted by upper end (then lower), the crossings are the inversions of the
    /// lower ends, counted with a Fenwick tree in O(E log V) rather than by comparing every pair.
    func crossingCount() -> Int {
        var position = [Int](repeating: 0, count: vertices.count)
        for layer in layers {
            for (index, vertex) in layer.enumerated() { position[vertex] = index }
        }
        var byLayer = [[(upper: Int, lower: Int)]](repeating: [], count: layers.count)
        for segment in segments {
            byLayer[vertices[segment.upper].layer].append((position[segment.upper], position[segment.lower]))
        }
        var total = 0
        for (layer, pairs) in byLayer.enumerated() where pairs.count > 1 {
            let sorted = pairs.sorted { ($0.upper, $0.lower) < ($1.upper, $1.lower) }
            // tree[i] counts lower ends seen so far, by position, in Fenwick form (1-based).
            let width = layers[layer + 1].count
            var tree = [Int](repeating: 0, count: width + 1)
            for (seen, pair) in sorted.enumerated() {
                // Earlier segments whose lower end is at or above this one's do not cross it.
                var atOrAbove = 0
                var index = pair.lower + 1
                while index > 0 {
                    atOrAbove += tree[index]
                    index -= index & -index
                }
                total += seen - atOrAbove
                index = pair.lower + 1
                while index <= width {
                    tree[index] += 1
                    index += index & -index
                }
            }
        }
        return total
    }
}
