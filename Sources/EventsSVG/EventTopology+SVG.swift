public import Events

extension EventTopology {
    /// The topology drawn as a standalone SVG picture, laid out by the package itself (no Graphviz
    /// needed).
    ///
    /// Use it to look at an app's event flow in a browser, or to put a picture of it in a README
    /// or a bug report: the document is SVG 1.1 with a white background, so it reads the same in
    /// a browser, in GitHub's Markdown and in image tools such as `rsvg-convert`.
    ///
    /// ```swift
    /// import Events
    /// import EventsSVG
    ///
    /// let topology = EventTopology(
    ///     nodes: [
    ///         .init(id: "cart", kind: .dispatcher, label: "CartModel"),
    ///         .init(id: "added", kind: .event, label: "ItemAdded"),
    ///         .init(id: "badge", kind: .listener, label: "BadgeView"),
    ///     ],
    ///     edges: [.init(from: "cart", to: "added", count: 3), .init(from: "added", to: "badge", count: 3)])
    /// let picture = topology.svg(title: "Checkout")
    /// ```
    ///
    /// How it is drawn:
    /// - Columns read from left to right: dispatchers, the events they dispatch, the listeners of
    ///   those events, then the events those listeners dispatch, and so on. The order inside each
    ///   column is chosen to keep arrows from crossing.
    /// - Each kind of node has its color (a legend at the top says which); events are pill-shaped.
    ///   A node's `detail` is a second, smaller line. Text too long for a box is shortened
    ///   in the middle with an ellipsis; hovering a box in a browser shows the full text.
    /// - Each arrow carries its `count`. Several edges with the same ends are drawn as one
    ///   arrow with their counts added. An arrow that closes a cycle (a listener dispatching an
    ///   event that leads back to it) is dashed and points backwards, against the columns.
    /// - Every piece of text is escaped for XML; control characters are replaced, so no label can
    ///   break the document. An empty topology gives a small picture saying there is nothing to
    ///   show.
    ///
    /// The output depends only on the topology and the title: the same value gives the same
    /// document, byte for byte.
    ///
    /// `Events` alone offers a deprecated `svg(title:)` of the same shape that draws a plain
    /// listing; in a file that imports `EventsSVG`, this one is called.
    ///
    /// - Parameter title: A heading drawn above the picture (shortened with an ellipsis when it
    ///   is very long), and the document's title; nil for none (the document is then titled
    ///   "Event flow").
    /// - Returns: The SVG document, starting with an XML declaration.
    public func svg(title: String? = nil) -> String {
        TopologySVG(graph: TopologyGraph(self), title: title).document()
    }
}

/// Writes the SVG document for ``EventTopology/svg(title:)``: a heading, a legend, then the
/// layout's edges, count labels and boxes, all with presentation attributes (no style sheet), so
/// that viewers without CSS support draw it the same.
struct TopologySVG {
    static let margin = 24.0
    /// A longer heading is shortened (the document's `<title>` keeps all of it).
    static let maximumTitleWidth = 960.0
    static let fontFamily = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif"

    struct Palette {
        let fill: String
        let stroke: String
        let text: String
    }

    /// The colors of each kind: the same as in `Events`' DOT and Mermaid text (a test compares
    /// them), so that a topology looks the same in each rendering.
    static func palette(_ kind: EventTopology.Node.Kind) -> Palette {
        switch kind {
        case .dispatcher: Palette(fill: "#dbeafe", stroke: "#2563eb", text: "#1e3a8a")
        case .event: Palette(fill: "#fef3c7", stroke: "#d97706", text: "#78350f")
        case .listener: Palette(fill: "#dcfce7", stroke: "#16a34a", text: "#14532d")
        }
    }

    static let edgeColor = "#64748b"
    static let backEdgeColor = "#e11d48"
    static let mutedText = "#475569"

    let graph: TopologyGraph
    let title: String?

    func document() -> String {
        let heading = title.map {
            TopologyText.fitted(TopologyGraph.singleLine($0), maxWidth: Self.maximumTitleWidth, size: 17, bold: true)
        }
        var top = Self.margin
        var header = ""
        var width = 0.0
        if let heading {
            header += "<text x=\"\(Self.number(Self.margin))\" y=\"\(Self.number(top + 16))\" font-size=\"17\" "
            header += "font-weight=\"700\" fill=\"#0f172a\">\(Self.escaped(heading))</text>\n"
            width = TopologyText.width(heading, size: 17, bold: true)
            top += 30
        }
        guard !graph.nodes.isEmpty else {
            let message = "Nothing to show: no dispatchers, events or listeners were recorded."
            header += "<text x=\"\(Self.number(Self.margin))\" y=\"\(Self.number(top + 14))\" font-size=\"13\" "
            header += "fill=\"\(Self.mutedText)\">\(Self.escaped(message))</text>\n"
            width = max(width, TopologyText.width(message, size: 13))
            return wrap(header, width: width + 2 * Self.margin, height: top + 14 + Self.margin)
        }
        let layout = TopologyLayout(graph, origin: TopologyLayout.Point(x: Self.margin, y: top + 22 + 20))
        let hasBackEdges = layout.routes.contains(where: \.reversed)
        let (legend, legendWidth) = Self.legend(at: top, backEdges: hasBackEdges)
        width = max(width, legendWidth, layout.size.width - Self.margin)
        var body = header + legend
        body += "<g fill=\"none\">\n"
        for route in layout.routes { body += edge(route) }
        body += "</g>\n<g>\n"
        for box in layout.boxes { body += node(box) }
        body += "</g>\n<g font-size=\"11\" text-anchor=\"middle\">\n"
        for route in layout.routes where !route.labelText.isEmpty { body += countLabel(route) }
        body += "</g>\n"
        return wrap(body, width: width + 2 * Self.margin, height: layout.size.height + Self.margin)
    }

    private func wrap(_ body: String, width: Double, height: Double) -> String {
        let (w, h) = (Self.number(width.rounded(.up)), Self.number(height.rounded(.up)))
        let counts = Dictionary(grouping: graph.nodes, by: \.kind).mapValues(\.count)
        let summary =
            "\(counts[.dispatcher] ?? 0) dispatchers, \(counts[.event] ?? 0) events, "
            + "\(counts[.listener] ?? 0) listeners, \(graph.links.count) edges"
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(w)\" height=\"\(h)\" "
        text += "viewBox=\"0 0 \(w) \(h)\" font-family=\"\(Self.escaped(Self.fontFamily))\">\n"
        text += "<title>\(Self.escaped(title.map { TopologyGraph.singleLine($0) } ?? "Event flow"))</title>\n"
        text += "<desc>\(summary)</desc>\n<defs>\n"
        for (id, color) in [("arrow", Self.edgeColor), ("arrow-back", Self.backEdgeColor)] {
            text += "<marker id=\"\(id)\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"9\" "
            text += "markerHeight=\"9\" markerUnits=\"userSpaceOnUse\" orient=\"auto\">"
            text += "<path d=\"M0,1 L10,5 L0,9 z\" fill=\"\(color)\"/></marker>\n"
        }
        text += "</defs>\n<rect width=\"\(w)\" height=\"\(h)\" fill=\"#ffffff\"/>\n"
        return text + body + "</svg>\n"
    }

    /// The three kinds, an arrow with a count, and (when there is one) a back edge.
    static func legend(at top: Double, backEdges: Bool) -> (String, Double) {
        var text = "<g font-size=\"12\" fill=\"#334155\">\n"
        var x = margin
        let baseline = number(top + 15)
        for kind in EventTopology.Node.Kind.allCases {
            let colors = palette(kind)
            let name = kind.rawValue.prefix(1).uppercased() + kind.rawValue.dropFirst()
            let radius = kind == .event ? 7 : 4
            text += "<rect x=\"\(number(x))\" y=\"\(number(top + 4))\" width=\"26\" height=\"14\" rx=\"\(radius)\" "
            text += "fill=\"\(colors.fill)\" stroke=\"\(colors.stroke)\" stroke-width=\"1.5\"/>"
            text += "<text x=\"\(number(x + 32))\" y=\"\(baseline)\">\(name)</text>\n"
            x += 32 + TopologyText.width(name, size: 12) + 20
        }
        var samples = [("arrow", edgeColor, "", "dispatches or deliveries, counted")]
        if backEdges {
            samples.append(("arrow-back", backEdgeColor, " stroke-dasharray=\"6 4\"", "back edge of a cycle"))
        }
        for (marker, color, dash, caption) in samples {
            text += "<path d=\"M\(number(x)),\(number(top + 11)) L\(number(x + 30)),\(number(top + 11))\" "
            text += "stroke=\"\(color)\" stroke-width=\"1.6\" fill=\"none\"\(dash) marker-end=\"url(#\(marker))\"/>"
            text += "<text x=\"\(number(x + 38))\" y=\"\(baseline)\">\(caption)</text>\n"
            x += 38 + TopologyText.width(caption, size: 12) + 20
        }
        return (text + "</g>\n", x - 20 - margin)
    }

    private func edge(_ route: TopologyLayout.Route) -> String {
        guard let first = route.curve.first else { return "" }
        var path = "M\(Self.number(first.x)),\(Self.number(first.y))"
        for piece in stride(from: 1, to: route.curve.count - 2, by: 3) {
            let (a, b, c) = (route.curve[piece], route.curve[piece + 1], route.curve[piece + 2])
            path += " C\(Self.number(a.x)),\(Self.number(a.y)) \(Self.number(b.x)),\(Self.number(b.y))"
            path += " \(Self.number(c.x)),\(Self.number(c.y))"
        }
        // Thicker with every power of ten, so that busy paths stand out.
        var digits = 0
        var rest = route.count
        while rest > 0 && digits < 5 {
            digits += 1
            rest /= 10
        }
        let width = 1.25 + 0.35 * Double(digits)
        let color = route.reversed ? Self.backEdgeColor : Self.edgeColor
        var text = "<path d=\"\(path)\" stroke=\"\(color)\" stroke-width=\"\(Self.number(width))\""
        if route.reversed { text += " stroke-dasharray=\"6 4\"" }
        if route.count <= 0 { text += " stroke-opacity=\"0.55\"" }
        text += " marker-end=\"url(#\(route.reversed ? "arrow-back" : "arrow"))\">"
        let names = "\(graph.nodes[route.from].label) \u{2192} \(graph.nodes[route.to].label): \(route.count)"
        return text + "<title>\(Self.escaped(TopologyGraph.singleLine(names)))</title></path>\n"
    }

    private func node(_ box: TopologyLayout.Box) -> String {
        let node = graph.nodes[box.node]
        let colors = Self.palette(node.kind)
        let frame = box.frame
        let middle = Self.number(frame.x + frame.width / 2)
        let center = frame.y + frame.height / 2
        let tooltip = ([node.label] + (node.detail.map { [$0] } ?? []) + [node.kind.rawValue])
            .map { Self.escaped(TopologyGraph.singleLine($0)) }.joined(separator: "\n")
        var text = "<g><title>\(tooltip)</title>"
        text +=
            "<rect x=\"\(Self.number(frame.x))\" y=\"\(Self.number(frame.y))\" width=\"\(Self.number(frame.width))\" "
        text +=
            "height=\"\(Self.number(frame.height))\" rx=\"\(Self.number(box.cornerRadius))\" fill=\"\(colors.fill)\" "
        text += "stroke=\"\(colors.stroke)\" stroke-width=\"1.5\"/>"
        let labelBaseline = box.detail == nil ? center + 4.5 : center - 2
        text += "<text x=\"\(middle)\" y=\"\(Self.number(labelBaseline))\" text-anchor=\"middle\" font-size=\"13\" "
        text += "font-weight=\"600\" fill=\"\(colors.text)\">\(Self.escaped(box.label))</text>"
        if let detail = box.detail {
            text += "<text x=\"\(middle)\" y=\"\(Self.number(center + 13))\" text-anchor=\"middle\" font-size=\"11\" "
            text += "fill=\"\(Self.mutedText)\">\(Self.escaped(detail))</text>"
        }
        return text + "</g>\n"
    }

    private func countLabel(_ route: TopologyLayout.Route) -> String {
        let width = TopologyText.width(route.labelText, size: 11) + 8
        let height = TopologyLayout.countLabelHeight
        let (x, y) = (route.labelCenter.x - width / 2, route.labelCenter.y - height / 2)
        var text = "<rect x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(width))\" "
        text += "height=\"\(Self.number(height))\" rx=\"3\" fill=\"#ffffff\" fill-opacity=\"0.92\" stroke=\"#cbd5e1\" "
        text += "stroke-width=\"0.75\"/>"
        let color = route.reversed ? Self.backEdgeColor : "#334155"
        text += "<text x=\"\(Self.number(route.labelCenter.x))\" y=\"\(Self.number(route.labelCenter.y + 4))\" "
        return text + "fill=\"\(color)\">\(Self.escaped(route.labelText))</text>\n"
    }

    /// `text` safe inside an XML element or a quoted attribute: the five markup characters as
    /// entities, and any character XML 1.0 does not allow replaced by U+FFFD.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default:
                switch scalar.value {
                case 0x00...0x1F, 0xFFFE, 0xFFFF: result += "\u{FFFD}"
                default: result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// A coordinate with at most one decimal, written the same on every platform.
    static func number(_ value: Double) -> String {
        // Coordinates stay far below this; the guard keeps `Int(_:)` from trapping on nonsense.
        guard value.isFinite, value.magnitude < 1e15 else { return "0" }
        let tenths = Int((value * 10).rounded())
        let whole = tenths.magnitude / 10
        let fraction = tenths.magnitude % 10
        let sign = tenths < 0 ? "-" : ""
        return fraction == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction)"
    }
}
