/// The part of a topology the text renderers (DOT, Mermaid) and the plain SVG listing draw: each
/// node once, and only the edges between nodes that exist. (EventsSVG keeps a copy of its own,
/// built from the public `nodes` and `edges`, with the same rules.)
///
/// `EventTopology.init` drops dangling edges but keeps repeated node ids, and a decoded value
/// skips the initializer altogether, so every renderer starts from this cleaned view instead of
/// trusting the stored arrays. The first node with an id wins; the order of nodes and edges is the
/// stored order, which keeps every rendering deterministic.
struct TopologyGraph {
    struct Link: Equatable {
        let from: Int
        let to: Int
        let count: Int
    }

    private(set) var nodes: [EventTopology.Node] = []
    private(set) var links: [Link] = []

    init(_ topology: EventTopology) {
        var indexOfID: [String: Int] = [:]
        for node in topology.nodes where indexOfID[node.id] == nil {
            indexOfID[node.id] = nodes.count
            nodes.append(node)
        }
        for edge in topology.edges {
            guard let from = indexOfID[edge.from], let to = indexOfID[edge.to] else { continue }
            links.append(Link(from: from, to: to, count: edge.count))
        }
    }

    /// `text` on one line with nothing a renderer could choke on: line breaks and tabs become
    /// spaces, other control characters and the two Unicode noncharacters XML forbids become
    /// U+FFFD. Everything else, non-ASCII included, is kept.
    static func singleLine(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09...0x0D, 0x85, 0x2028, 0x2029:
                result.append(" ")
            case 0x00...0x1F, 0x7F...0x9F, 0xFFFE, 0xFFFF:
                result.append("\u{FFFD}")
            default:
                result.append(scalar)
            }
        }
        return String(result)
    }
}

/// The colors each kind of node has in every rendering: DOT, Mermaid and the plain SVG listing
/// here, and the laid-out picture of EventsSVG, which uses the same three (its tests compare
/// them with the DOT output), so that a topology looks the same in each.
enum TopologyPalette {
    struct Colors {
        let fill: String
        let stroke: String
        let text: String
    }

    static func colors(_ kind: EventTopology.Node.Kind) -> Colors {
        switch kind {
        case .dispatcher: Colors(fill: "#dbeafe", stroke: "#2563eb", text: "#1e3a8a")
        case .event: Colors(fill: "#fef3c7", stroke: "#d97706", text: "#78350f")
        case .listener: Colors(fill: "#dcfce7", stroke: "#16a34a", text: "#14532d")
        }
    }
}
