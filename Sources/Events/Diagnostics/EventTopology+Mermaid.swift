extension EventTopology {
    /// The topology as a Mermaid `flowchart LR`, for Markdown that renders Mermaid (GitHub, GitLab,
    /// many documentation sites).
    ///
    /// Use it to put a living diagram in an issue, a pull request or a wiki page: paste it in a
    /// fenced block marked `mermaid`. For a picture that needs no renderer, use
    /// `svg(title:)` of the `EventsSVG` library.
    ///
    /// ```swift
    /// let topology = EventTopology(
    ///     nodes: [
    ///         .init(id: "cart", kind: .dispatcher, label: "CartModel"),
    ///         .init(id: "added", kind: .event, label: "ItemAdded"),
    ///     ],
    ///     edges: [.init(from: "cart", to: "added", count: 3)])
    /// print(topology.mermaid)
    /// // flowchart LR
    /// //     n0["CartModel"]:::dispatcher
    /// //     n1(["ItemAdded"]):::event
    /// //     n0 -->|"3"| n1
    /// //     ...
    /// ```
    ///
    /// Rules:
    /// - Nodes are named `n0`, `n1`, ... in the order of ``nodes`` (Mermaid ids cannot hold
    ///   arbitrary text, and some words such as `end` are reserved); the ``Node/label`` is the
    ///   text shown, with ``Node/detail`` on a second, smaller line. Events are stadium-shaped;
    ///   each kind has a `classDef` (`dispatcher`, `event`, `listener`) you can restyle.
    /// - Each edge is written with its ``Edge/count`` as its label, in the order of ``edges``.
    ///   Edges whose ends are not among ``nodes`` are left out; when several nodes share an id,
    ///   the first one counts.
    /// - Labels are quoted, and every character Mermaid or its HTML labels could read as syntax
    ///   (`"`, `#`, `&`, `<`, `>`, `;`, backticks) is written as a Mermaid entity code such as
    ///   `#quot;`, so a label such as `<script>` or `A --> B]` shows as text. Line breaks in a
    ///   label become `<br/>`; other control characters become U+FFFD.
    /// - The output depends only on the value: the same topology gives the same text.
    public var mermaid: String {
        let graph = TopologyGraph(self)
        var text = "flowchart LR\n"
        if graph.nodes.isEmpty { text += "    %% no dispatchers, events or listeners were recorded\n" }
        for (index, node) in graph.nodes.enumerated() {
            var label = Self.mermaidEscaped(node.label)
            if let detail = node.detail { label += "<br/><small>" + Self.mermaidEscaped(detail) + "</small>" }
            let shaped = node.kind == .event ? "([\"\(label)\"])" : "[\"\(label)\"]"
            text += "    n\(index)\(shaped):::\(node.kind.rawValue)\n"
        }
        for link in graph.links {
            text += "    n\(link.from) -->|\"\(link.count)\"| n\(link.to)\n"
        }
        for kind in Node.Kind.allCases {
            let colors = TopologyPalette.colors(kind)
            text += "    classDef \(kind.rawValue) fill:\(colors.fill),stroke:\(colors.stroke),color:\(colors.text)\n"
        }
        return text
    }

    /// `text` safe inside a quoted Mermaid label: syntax characters as entity codes (Mermaid
    /// turns `#name;` and `#number;` into HTML entities), line breaks as `<br/>`.
    static func mermaidEscaped(_ text: String) -> String {
        var result = ""
        var previousWasReturn = false
        for scalar in text.unicodeScalars {
            defer { previousWasReturn = scalar == "\r" }
            switch scalar {
            case "\"": result += "#quot;"
            case "#": result += "#35;"
            case "&": result += "#amp;"
            case "<": result += "#lt;"
            case ">": result += "#gt;"
            case ";": result += "#59;"
            case "`": result += "#96;"
            case "\r": result += "<br/>"
            case "\n":
                if !previousWasReturn { result += "<br/>" }
            default: result += TopologyGraph.singleLine(String(scalar))
            }
        }
        return result
    }
}
