import Events
import EventsSVG
import Foundation
import Synchronization

/// The event flow of the demo's run: each scene's center records who dispatched what and who
/// received it, and the end of the run draws them all in one SVG picture (EventsSVG lays it out).
enum EventFlow {
    private static let centers = Mutex<[(scene: String, center: EventCenter)]>([])

    /// A new center for `scene`, recording its topology.
    static func center(for scene: String) -> EventCenter {
        let center = EventCenter()
        center.diagnostics.recordsTopology = true
        centers.withLock { $0.append((scene, center)) }
        return center
    }

    /// Every scene's topology in one, each node's id qualified by its scene so that scenes never
    /// share a box.
    static var topology: EventTopology {
        let recorded = centers.withLock { $0 }
        var nodes: [EventTopology.Node] = []
        var edges: [EventTopology.Edge] = []
        for (scene, center) in recorded {
            let flow = center.topology()
            nodes += flow.nodes.map {
                EventTopology.Node(id: "\(scene)/\($0.id)", kind: $0.kind, label: $0.label, detail: $0.detail)
            }
            edges += flow.edges.map {
                EventTopology.Edge(from: "\(scene)/\($0.from)", to: "\(scene)/\($0.to)", count: $0.count)
            }
        }
        return EventTopology(nodes: nodes, edges: edges)
    }

    /// Writes the picture of the run to `path` and says where it is.
    static func write(to path: String) {
        let flow = topology
        guard !flow.nodes.isEmpty else { return }
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try flow.svg(title: "The event flow of this demo run").write(to: url, atomically: true, encoding: .utf8)
            let count = { (kind: EventTopology.Node.Kind) in flow.nodes.count { $0.kind == kind } }
            print(
                "\nThe event flow of this run (\(count(.dispatcher)) dispatchers, \(count(.event)) events,"
                    + " \(count(.listener)) listeners) is drawn in \(path)")
        } catch {
            print("\ncould not write the event flow to \(path): \(error)")
        }
    }
}
