import Events

/// The part of a topology the picture draws: each node once, and only the edges between nodes that
/// exist.
///
/// `EventTopology.init` drops dangling edges but keeps repeated node ids, and a decoded value
/// skips the initializer altogether, so the layout starts from this cleaned view instead of
/// trusting the stored arrays. It reads only the public `nodes` and `edges`, and follows the rules
/// `Events` keeps for DOT and Mermaid (its own internal `TopologyGraph`), so that every rendering
/// of a value shows the same nodes and edges. The first node with an id wins; the order of nodes and edges is the
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

    /// The position of a kind in the picture's reading order: dispatchers, events, listeners.
    static func rank(of kind: EventTopology.Node.Kind) -> Int {
        switch kind {
        case .dispatcher: 0
        case .event: 1
        case .listener: 2
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

    /// A count as a short label: exact below ten thousand, then in thousands or millions with
    /// one decimal below a hundred of them, rounded down (`12.3k`, `450k`, `1.2M`).
    static func countLabel(_ count: Int) -> String {
        func scaled(_ unit: Int, _ suffix: String) -> String {
            let tenths = count / (unit / 10)
            return tenths % 10 == 0 || tenths >= 1000
                ? "\(tenths / 10)\(suffix)" : "\(tenths / 10).\(tenths % 10)\(suffix)"
        }
        switch count {
        case ..<10_000: return "\(count)"
        case ..<1_000_000: return scaled(1000, "k")
        default: return scaled(1_000_000, "M")
        }
    }
}
