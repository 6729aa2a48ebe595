/// Cycle breaking: which edges are drawn reversed so that the columns can read left to right.
extension TopologyLayout {
    /// The indices (into `links`) of the edges to reverse so that the graph has no cycle.
    ///
    /// Only edges inside a cycle are candidates: a depth-first search (Tarjan's) finds the
    /// strongly connected components, and edges between components are kept. Inside a component,
    /// nodes are ordered by their distance from the graph's sources (nodes nothing points to, the
    /// dispatchers in an app's graph), and an edge pointing from a farther node to a nearer one is
    /// reversed: it is the edge that closes the loop. (Taking the back edges of a single search
    /// instead depends on where the search starts: one starting at the first dispatcher can walk
    /// around a loop the long way and reverse the edge into an event another dispatcher posts,
    /// pushing that event to the last column.)
    static func backEdges(count: Int, links: [TopologyGraph.Link], graph: TopologyGraph) -> Set<Int> {
        let order = readingOrder(graph)
        var position = [Int](repeating: 0, count: count)
        for (index, node) in order.enumerated() { position[node] = index }
        var successors = [[Int]](repeating: [], count: count)
        var hasIncoming = [Bool](repeating: false, count: count)
        for link in links where link.from != link.to {
            successors[link.from].append(link.to)
            hasIncoming[link.to] = true
        }
        let component = stronglyConnectedComponents(successors, order: order)
        // Breadth-first distances from all sources at once; whatever they do not reach (a loop
        // nothing leads into) starts a wave of its own from its first node in reading order.
        var depth = [Int](repeating: -1, count: count)
        var queue: [Int] = []
        var cursor = 0
        func spread() {
            while cursor < queue.count {
                let node = queue[cursor]
                cursor += 1
                for next in successors[node] where depth[next] < 0 {
                    depth[next] = depth[node] + 1
                    queue.append(next)
                }
            }
        }
        for source in order where !hasIncoming[source] {
            depth[source] = 0
            queue.append(source)
        }
        spread()
        for start in order where depth[start] < 0 {
            depth[start] = 0
            queue.append(start)
            spread()
        }
        var reversed: Set<Int> = []
        for (index, link) in links.enumerated() where link.from != link.to {
            guard component[link.from] == component[link.to] else { continue }
            if (depth[link.from], position[link.from]) > (depth[link.to], position[link.to]) {
                reversed.insert(index)
            }
        }
        return reversed
    }

    /// The strongly connected component of every node (Tarjan's algorithm, with an explicit stack
    /// so that no graph is too deep for it).
    static func stronglyConnectedComponents(_ successors: [[Int]], order: [Int]) -> [Int] {
        let count = successors.count
        var index = [Int](repeating: -1, count: count)
        var low = [Int](repeating: 0, count: count)
        var onStack = [Bool](repeating: false, count: count)
        var component = [Int](repeating: -1, count: count)
        var stack: [Int] = []
        var counter = 0
        var components = 0
        func visit(_ node: Int) {
            index[node] = counter
            low[node] = counter
            counter += 1
            stack.append(node)
            onStack[node] = true
        }
        for root in order where index[root] < 0 {
            visit(root)
            var work = [(node: root, next: 0)]
            while let top = work.last {
                if top.next < successors[top.node].count {
                    work[work.count - 1].next += 1
                    let target = successors[top.node][top.next]
                    if index[target] < 0 {
                        visit(target)
                        work.append((target, 0))
                    } else if onStack[target] {
                        low[top.node] = min(low[top.node], index[target])
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last { low[parent.node] = min(low[parent.node], low[top.node]) }
                guard low[top.node] == index[top.node] else { continue }
                while let member = stack.popLast() {
                    onStack[member] = false
                    component[member] = components
                    if member == top.node { break }
                }
                components += 1
            }
        }
        return component
    }
}
