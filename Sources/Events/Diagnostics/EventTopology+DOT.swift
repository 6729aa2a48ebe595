extension EventTopology {
    /// The topology as a Graphviz `digraph`, read from left to right.
    ///
    /// Use it when you have Graphviz at hand, or want to restyle the graph: render it with
    /// `dot -Tsvg flow.dot -o flow.svg`, or paste it into any DOT viewer. For a picture without
    /// Graphviz, import the `EventsSVG` library and call its `svg(title:)`.
    ///
    /// ```swift
    /// let topology = EventTopology(
    ///     nodes: [
    ///         .init(id: "cart", kind: .dispatcher, label: "CartModel"),
    ///         .init(id: "added", kind: .event, label: "ItemAdded"),
    ///     ],
    ///     edges: [.init(from: "cart", to: "added", count: 3)])
    /// print(topology.dot)
    /// // digraph "events" { ... "cart" -> "added" [label="3"]; }
    /// ```
    ///
    /// Rules:
    /// - Each node is written once, under its ``Node/id``, with its ``Node/label`` (and
    ///   ``Node/detail`` on a second line) as the label; dispatchers are blue boxes, events amber
    ///   ellipses, listeners green rounded boxes.
    /// - Each edge is written with its ``Edge/count`` as its label, in the order of ``edges``.
    ///   Edges whose ends are not among ``nodes`` are left out; when several nodes share an id,
    ///   the first one counts.
    /// - Dispatchers share the first rank, as in the picture `EventsSVG` draws.
    /// - Ids and labels are quoted, with quotes and backslashes escaped, so no text can end a
    ///   string early or reach Graphviz's `\N`-style label escapes; in labels `&` is written as
    ///   `&amp;`, so no text reads as an HTML entity. In an id, line breaks and other control
    ///   characters are written as escapes (`\n`, `\x01`), so distinct ids stay distinct; a
    ///   label is one line, with line breaks as spaces and other control characters replaced
    ///   with U+FFFD. Non-ASCII text is kept as it is (DOT files are UTF-8).
    /// - The output depends only on the value: the same topology gives the same text.
    public var dot: String {
        let graph = TopologyGraph(self)
        var text = "digraph \"events\" {\n"
        text += "    rankdir=LR;\n"
        text += "    graph [fontname=\"Helvetica\", nodesep=0.3, ranksep=0.8];\n"
        text += "    node [fontname=\"Helvetica\", fontsize=12, style=\"filled\", penwidth=1.5];\n"
        text += "    edge [fontname=\"Helvetica\", fontsize=10, color=\"#64748b\", fontcolor=\"#334155\"];\n"
        for node in graph.nodes {
            let colors = TopologyPalette.colors(node.kind)
            let shape: String
            switch node.kind {
            case .dispatcher: shape = "shape=box"
            case .event: shape = "shape=ellipse"
            case .listener: shape = "shape=box, style=\"rounded,filled\""
            }
            var label = Self.dotEscaped(node.label, as: .label)
            if let detail = node.detail { label += "\\n" + Self.dotEscaped(detail, as: .label) }
            text += "    \"\(Self.dotEscaped(node.id, as: .id))\" [label=\"\(label)\", \(shape), "
            text += "fillcolor=\"\(colors.fill)\", color=\"\(colors.stroke)\", fontcolor=\"\(colors.text)\"];\n"
        }
        // Dispatchers share the first column, as in EventsSVG's picture; Graphviz would otherwise
        // place a dispatcher of a late event next to that event.
        let dispatchers = graph.nodes.filter { $0.kind == .dispatcher }
        if !dispatchers.isEmpty {
            text += "    { rank=min; "
            text += dispatchers.map { "\"\(Self.dotEscaped($0.id, as: .id))\"; " }.joined() + "}\n"
        }
        for link in graph.links {
            let from = Self.dotEscaped(graph.nodes[link.from].id, as: .id)
            let to = Self.dotEscaped(graph.nodes[link.to].id, as: .id)
            text += "    \"\(from)\" -> \"\(to)\" [label=\"\(link.count)\"];\n"
        }
        return text + "}\n"
    }

    enum DOTText {
        /// A node id: written so that distinct ids stay distinct. Line breaks become `\n` and
        /// `\r`, other control characters `\xHH` (or `\uFFFE`, `\uFFFF`); Graphviz keeps an id's
        /// backslashes as they are, and every such sequence starts with a backslash that no
        /// doubled backslash can imitate.
        case id
        /// A label: one line (line breaks and tabs become spaces, other control characters
        /// U+FFFD); the detail is the second line.
        case label
    }

    /// `text` safe between the quotes of a DOT string: a backslash is doubled and a quote escaped
    /// (inside a label, Graphviz reads `\\` as one backslash, so `\N`, `\G` and the like stay
    /// text), and control characters are handled as `kind` asks. In a label, `&` is written
    /// `&amp;`: Graphviz decodes HTML entities in labels, so `&lt;` would otherwise show as `<`.
    static func dotEscaped(_ text: String, as kind: DOTText) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "&" where kind == .label: result += "&amp;"
            default:
                let shown = TopologyGraph.singleLine(String(scalar))
                guard kind == .id, shown.unicodeScalars.first != scalar else {
                    result += shown
                    continue
                }
                switch scalar.value {
                case 0x0A: result += "\\n"
                case 0x0D: result += "\\r"
                case 0x00...0xFF: result += "\\x" + hex(scalar.value, digits: 2)
                default: result += "\\u" + hex(scalar.value, digits: 4)
                }
            }
        }
        return result
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
