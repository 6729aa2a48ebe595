extension EventTopology {
    /// Deprecated: the topology as a plain SVG listing; the laid-out picture is in `EventsSVG`.
    ///
    /// The picture with a layout (columns ordered to keep arrows from crossing, curved arrows,
    /// count labels placed clear of boxes, a legend) moved to the `EventsSVG` library, so that
    /// apps that never draw one do not link the layout engine. Add the `EventsSVG` product and
    /// `import EventsSVG` beside `import Events`: the same call, `svg(title:)`, then draws that
    /// picture, without a deprecation warning.
    ///
    /// Without `EventsSVG`, this spelling still compiles and returns a well-formed SVG 1.1
    /// document: dispatchers, events and listeners as boxes in three columns, in the order of
    /// ``nodes``, with a straight line for each edge and its ``Edge/count`` at its middle. Text
    /// is escaped for XML, as in the laid-out picture, and the output depends only on the value
    /// and the title.
    ///
    /// - Parameter title: A heading above the listing and the document's title; nil for none
    ///   (the document is then titled "Event flow").
    /// - Returns: The SVG document, starting with an XML declaration.
    // Disfavored: EventsSVG declares the same signature, and with both modules imported a call
    // would otherwise be ambiguous; this way it picks EventsSVG's picture.
    @_disfavoredOverload
    @available(*, deprecated, message: "import EventsSVG for the laid-out picture")
    public func svg(title: String? = nil) -> String {
        PlainTopologySVG(graph: TopologyGraph(self), title: title).document()
    }
}

/// The plain listing behind the deprecated ``EventTopology/svg(title:)`` of `Events`: no layout
/// engine, only boxes stacked in a column per kind and straight lines between them. Coordinates
/// are whole numbers, so that every platform writes the same text.
struct PlainTopologySVG {
    static let margin = 24
    static let boxHeight = 28
    static let detailedBoxHeight = 42
    static let rowGap = 10
    static let columnGap = 96
    static let fontSize = 13

    let graph: TopologyGraph
    let title: String?

    func document() -> String {
        var body = ""
        var top = Self.margin
        var width = 0
        if let title {
            let heading = TopologyGraph.singleLine(title)
            body += "<text x=\"\(Self.margin)\" y=\"\(top + 16)\" font-size=\"17\" font-weight=\"700\" "
            body += "fill=\"#0f172a\">\(Self.escaped(heading))</text>\n"
            width = Self.estimatedWidth(heading, size: 17)
            top += 30
        }
        let note = "A plain listing: import EventsSVG for the laid-out picture."
        body += "<text x=\"\(Self.margin)\" y=\"\(top + 12)\" font-size=\"12\" fill=\"#475569\">\(note)</text>\n"
        width = max(width, Self.estimatedWidth(note, size: 12))
        top += 28

        // Each kind's nodes in one column, in the order of the graph (the order of `nodes`).
        var frames = [(x: Int, y: Int, width: Int, height: Int)](repeating: (0, 0, 0, 0), count: graph.nodes.count)
        var x = Self.margin
        var bottom = top
        for kind in EventTopology.Node.Kind.allCases {
            let members = graph.nodes.indices.filter { graph.nodes[$0].kind == kind }
            guard !members.isEmpty else { continue }
            let columnWidth = members.map { index in
                let node = graph.nodes[index]
                let lines = [node.label] + (node.detail.map { [$0] } ?? [])
                return lines.map { Self.estimatedWidth(TopologyGraph.singleLine($0), size: Self.fontSize) }.max()! + 24
            }.max()!
            var y = top
            for index in members {
                let height = graph.nodes[index].detail == nil ? Self.boxHeight : Self.detailedBoxHeight
                frames[index] = (x, y, max(columnWidth, 96), height)
                y += height + Self.rowGap
            }
            bottom = max(bottom, y - Self.rowGap)
            x += max(columnWidth, 96) + Self.columnGap
        }
        width = max(width, x - Self.columnGap - Self.margin)

        body += "<g stroke=\"#64748b\" stroke-width=\"1.5\">\n"
        for link in graph.links { body += line(link, frames) }
        body += "</g>\n<g>\n"
        for (index, node) in graph.nodes.enumerated() { body += box(node, frames[index]) }
        body += "</g>\n"
        if graph.nodes.isEmpty {
            let message = "Nothing to show: no dispatchers, events or listeners were recorded."
            body += "<text x=\"\(Self.margin)\" y=\"\(top + 14)\" font-size=\"13\" fill=\"#475569\">\(message)</text>\n"
            width = max(width, Self.estimatedWidth(message, size: 13))
            bottom = top + 14
        }
        return wrap(body, width: width + 2 * Self.margin, height: bottom + Self.margin)
    }

    private func wrap(_ body: String, width: Int, height: Int) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(width)\" height=\"\(height)\" "
        text += "viewBox=\"0 0 \(width) \(height)\" font-family=\"Helvetica, Arial, sans-serif\">\n"
        text += "<title>\(Self.escaped(title.map { TopologyGraph.singleLine($0) } ?? "Event flow"))</title>\n"
        text += "<rect width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>\n"
        return text + body + "</svg>\n"
    }

    /// A straight line between two boxes: from the right side of `from` to the left side of `to`
    /// when `to` is in a later column, else between their left and right sides the other way.
    private func line(_ link: TopologyGraph.Link, _ frames: [(x: Int, y: Int, width: Int, height: Int)]) -> String {
        let (from, to) = (frames[link.from], frames[link.to])
        let forward = to.x > from.x
        let (x1, y1) = (forward ? from.x + from.width : from.x, from.y + from.height / 2)
        let (x2, y2) = (forward ? to.x : to.x + to.width, to.y + to.height / 2)
        let names =
            "\(graph.nodes[link.from].label) \u{2192} \(graph.nodes[link.to].label): \(link.count)"
        var text = "<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y2)\">"
        text += "<title>\(Self.escaped(TopologyGraph.singleLine(names)))</title></line>"
        text += "<text x=\"\((x1 + x2) / 2)\" y=\"\((y1 + y2) / 2 - 4)\" font-size=\"11\" text-anchor=\"middle\" "
        return text + "stroke=\"none\" fill=\"#334155\">\(link.count)</text>\n"
    }

    private func box(_ node: EventTopology.Node, _ frame: (x: Int, y: Int, width: Int, height: Int)) -> String {
        let colors = TopologyPalette.colors(node.kind)
        let middle = frame.x + frame.width / 2
        let label = TopologyGraph.singleLine(node.label)
        var text = "<g><title>\(Self.escaped(label)) (\(node.kind.rawValue))</title>"
        text += "<rect x=\"\(frame.x)\" y=\"\(frame.y)\" width=\"\(frame.width)\" height=\"\(frame.height)\" "
        text += "rx=\"\(node.kind == .event ? frame.height / 2 : 4)\" fill=\"\(colors.fill)\" "
        text += "stroke=\"\(colors.stroke)\" stroke-width=\"1.5\"/>"
        text += "<text x=\"\(middle)\" y=\"\(frame.y + 19)\" text-anchor=\"middle\" font-size=\"\(Self.fontSize)\" "
        text += "fill=\"\(colors.text)\">\(Self.escaped(label))</text>"
        if let detail = node.detail {
            text += "<text x=\"\(middle)\" y=\"\(frame.y + 34)\" text-anchor=\"middle\" font-size=\"11\" "
            text += "fill=\"#475569\">\(Self.escaped(TopologyGraph.singleLine(detail)))</text>"
        }
        return text + "</g>\n"
    }

    /// A generous guess at the width of `text`, in whole points: no font is at hand, and a box a
    /// little wide is better than text spilling out of it.
    static func estimatedWidth(_ text: String, size: Int) -> Int {
        (text.count * size * 2 + 2) / 3
    }

    /// `text` safe inside an XML element or a quoted attribute (it is already on one line, with
    /// control characters and the noncharacters XML forbids replaced).
    static func escaped(_ text: String) -> String {
        var result = ""
        // By scalar: a markup character followed by a combining mark is one `Character`.
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
