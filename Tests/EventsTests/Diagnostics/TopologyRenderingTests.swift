import Foundation
import Testing

@testable import Events

#if canImport(FoundationXML)
    import FoundationXML
#endif

private typealias Node = EventTopology.Node
private typealias Edge = EventTopology.Edge

/// Labels that try to break out of every format: quotes, backslashes and Graphviz escapes, line
/// breaks, markup, Mermaid arrows and brackets, entity look-alikes, control characters, an XML
/// noncharacter, and non-ASCII text that must survive.
private let hostileLabels = [
    "He said \"hi\"", "back\\slash\\", "\\N and \\G", "two\nlines\r\nand\rreturns", "<script>alert(1)</script>",
    "A --> B", "end]", "x\"]:::listener", "#quot; &amp; ;", "`code`", "tab\there", "nul\u{0}esc\u{1B}del\u{7F}",
    "non\u{FFFE}char", "Ünïcödé 事件 🚀", "'single'", "{curly} |pipe|",
]

private func hostileTopology() -> EventTopology {
    var nodes = [Node(id: "source \"1\"\\", kind: .dispatcher, label: "Sender \"one\"", detail: "line\nbreak")]
    var edges: [Edge] = []
    for (index, label) in hostileLabels.enumerated() {
        let kind: Node.Kind = index % 2 == 0 ? .event : .listener
        nodes.append(Node(id: "id \(index) \(label)", kind: kind, label: label, detail: index % 3 == 0 ? label : nil))
        edges.append(Edge(from: nodes[index].id, to: "id \(index) \(label)", count: index))
    }
    return EventTopology(nodes: nodes, edges: edges)
}

/// The text content of an XML document, gathered while it is parsed.
private final class XMLCollector: NSObject, XMLParserDelegate {
    var elements: [String] = []
    var titles: [String] = []
    var texts: [String] = []
    private var stack: [(name: String, text: String)] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append(elementName)
        stack.append((elementName, ""))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if !stack.isEmpty { stack[stack.count - 1].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard let element = stack.popLast() else { return }
        if element.name == "title" { titles.append(element.text) }
        if element.name == "text" { texts.append(element.text) }
    }

    /// Parses `document`; nil when it is not well-formed XML.
    static func parse(_ document: String) -> XMLCollector? {
        let collector = XMLCollector()
        let parser = XMLParser(data: Data(document.utf8))
        parser.delegate = collector
        return parser.parse() ? collector : nil
    }
}

/// The strings between double quotes on a DOT line, unescaped as Graphviz reads a label (`\"` is
/// a quote, `\\` a backslash, `\n` a line break); nil when a string is left open.
private func dotStrings(_ line: Substring) -> [String]? {
    var strings: [String] = []
    var characters = line.makeIterator()
    while let character = characters.next() {
        guard character == "\"" else { continue }
        var text = ""
        var closed = false
        while let next = characters.next() {
            if next == "\"" {
                closed = true
                break
            }
            if next == "\\" {
                switch characters.next() {
                case "n": text += "\n"
                case "r": text += "\r"
                case let marker? where marker == "x" || marker == "u":
                    let digits = String((0..<(marker == "x" ? 2 : 4)).compactMap { _ in characters.next() })
                    guard let scalar = UInt32(digits, radix: 16).flatMap(Unicode.Scalar.init) else { return nil }
                    text.unicodeScalars.append(scalar)
                case let escaped?: text.append(escaped)
                case nil: return nil
                }
            } else {
                text.append(next)
            }
        }
        guard closed else { return nil }
        strings.append(text)
    }
    return strings
}

/// A label as Mermaid shows it: entity codes decoded and the line breaks we write put back.
private func mermaidShown(_ label: String) -> String {
    let named = ["quot": "\"", "amp": "&", "lt": "<", "gt": ">"]
    var text = ""
    var rest = Substring(label.replacingOccurrences(of: "<br/>", with: "\n"))
    while let hash = rest.firstIndex(of: "#") {
        text += rest[..<hash]
        let after = rest[rest.index(after: hash)...]
        if let semicolon = after.firstIndex(of: ";") {
            let code = String(after[..<semicolon])
            if let character = named[code] ?? UInt32(code).flatMap(Unicode.Scalar.init).map({ String($0) }) {
                text += character
                rest = after[after.index(after: semicolon)...]
                continue
            }
        }
        text += "#"
        rest = after
    }
    return text + rest
}

@Suite("Rendering an event topology")
struct TopologyRenderingTests {
    @Test("DOT names every node once with its label, every edge with its count, and ranks dispatchers first")
    func dotHasEveryNodeAndEdge() throws {
        let topology = TopologySamples.shop
        let lines = topology.dot.split(separator: "\n")
        #expect(lines.first == "digraph \"events\" {")
        #expect(lines.contains("    rankdir=LR;"))
        for node in topology.nodes {
            let declarations = lines.filter { $0.hasPrefix("    \"\(node.id)\" [") }
            try #require(declarations.count == 1, "\(node.id)")
            let strings = try #require(dotStrings(declarations[0]))
            #expect(strings[1] == node.label + (node.detail.map { "\n" + $0 } ?? ""))
        }
        for edge in topology.edges {
            #expect(lines.contains("    \"\(edge.from)\" -> \"\(edge.to)\" [label=\"\(edge.count)\"];"))
        }
        #expect(lines.filter { $0.contains(" -> ") }.count == topology.edges.count)
        let dispatchers = topology.nodes.filter { $0.kind == .dispatcher }.map { "\"\($0.id)\"; " }
        #expect(lines.contains("    { rank=min; " + dispatchers.joined() + "}"))
    }

    @Test("DOT keeps hostile ids and labels inside their quotes and reads them back unchanged")
    func dotEscapesHostileText() throws {
        let topology = hostileTopology()
        let lines = topology.dot.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 7 + topology.nodes.count + topology.edges.count + 1)
        var declared: [String: String] = [:]
        for line in lines where line.hasPrefix("    \"") {
            let strings = try #require(dotStrings(line), "an unterminated string in \(line)")
            if line.contains("\" -> \"") {
                #expect(declared[strings[0]] != nil && declared[strings[1]] != nil)
            } else {
                // Graphviz decodes HTML entities in labels; the only one written is `&amp;`.
                declared[strings[0]] = strings[1].replacingOccurrences(of: "&amp;", with: "&")
                #expect(!strings[1].replacingOccurrences(of: "&amp;", with: "").contains("&"))
            }
        }
        for node in topology.nodes {
            // An id reads back exactly as written.
            let label = try #require(declared[node.id], "\(node.id.debugDescription) is not declared")
            let expected = [node.label, node.detail].compactMap { $0 }.map(readAsOneLine).joined(separator: "\n")
            #expect(label == expected)
        }
        #expect(!topology.dot.contains("\u{0}") && !topology.dot.contains("\u{1B}"))
        #expect(topology.dot.contains("Ünïcödé 事件 🚀"))
    }

    @Test("Mermaid names nodes n0, n1, ..., shows every label and writes every edge with its count")
    func mermaidHasEveryNodeAndEdge() throws {
        let topology = TopologySamples.shop
        let lines = topology.mermaid.split(separator: "\n")
        #expect(lines.first == "flowchart LR")
        for (index, node) in topology.nodes.enumerated() {
            let open = node.kind == .event ? "([\"" : "[\""
            let close = node.kind == .event ? "\"]):::event" : "\"]:::\(node.kind.rawValue)"
            let line = try #require(lines.first { $0.hasPrefix("    n\(index)\(open)") })
            #expect(line.hasSuffix(close))
            let label = line.dropFirst("    n\(index)\(open)".count).dropLast(close.count)
            let shown = mermaidShown(String(label))
                .replacingOccurrences(of: "<small>", with: "").replacingOccurrences(of: "</small>", with: "")
            #expect(shown == node.label + (node.detail.map { "\n" + $0 } ?? ""))
        }
        let position = Dictionary(uniqueKeysWithValues: topology.nodes.enumerated().map { ($1.id, $0) })
        for edge in topology.edges {
            #expect(lines.contains("    n\(position[edge.from]!) -->|\"\(edge.count)\"| n\(position[edge.to]!)"))
        }
        for kind in Node.Kind.allCases { #expect(lines.contains { $0.hasPrefix("    classDef \(kind.rawValue) ") }) }
    }

    @Test("Mermaid labels carry no quote, markup or statement separator of their own")
    func mermaidEscapesHostileText() throws {
        let topology = hostileTopology()
        let lines = topology.mermaid.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 1 + topology.nodes.count + topology.edges.count + 3 + 1)
        for (index, node) in topology.nodes.enumerated() {
            let line = try #require(
                lines.first { $0.hasPrefix("    n\(index)[\"") || $0.hasPrefix("    n\(index)([\"") })
            let start = try #require(line.firstIndex(of: "\""))
            let end = try #require(line.lastIndex(of: "\""))
            let label = String(line[line.index(after: start)..<end])
            let withoutOwnTags = label.replacingOccurrences(of: "<br/>", with: "")
                .replacingOccurrences(of: "<small>", with: "").replacingOccurrences(of: "</small>", with: "")
            let withoutEntities = withoutOwnTags.replacingOccurrences(
                of: #"#\w+;"#, with: "", options: .regularExpression)
            let syntax = "\"<>;`&\n\r".unicodeScalars
            #expect(!withoutEntities.unicodeScalars.contains(where: syntax.contains), "\(label)")
            let shown = mermaidShown(label)
                .replacingOccurrences(of: "<small>", with: "").replacingOccurrences(of: "</small>", with: "")
            let expected = [node.label, node.detail].compactMap { $0 }.map(mermaidLines).joined(separator: "\n")
            #expect(shown == expected)
        }
    }

    @Test("The SVG parses as XML for hostile labels and names every node, in full, in a tooltip")
    func svgIsWellFormedForHostileLabels() throws {
        let topology = hostileTopology()
        let document = topology.svg(title: "Hostile <title> & \"quotes\"\u{1}")
        let parsed = try #require(XMLCollector.parse(document), "not well-formed XML")
        #expect(parsed.elements.first == "svg")
        #expect(parsed.titles.first == "Hostile <title> & \"quotes\"\u{FFFD}")
        for node in topology.nodes {
            let shown = TopologyGraph.singleLine(node.label)
            #expect(parsed.titles.contains { $0.hasPrefix(shown + "\n") }, "\(shown.debugDescription)")
        }
        #expect(parsed.texts.contains("Ünïcödé 事件 🚀"))
        #expect(parsed.texts.contains("<script>alert(1)</script>"))
        let long = String(repeating: "A very long title. ", count: 200)
        let titled = try #require(XMLCollector.parse(topology.svg(title: long)))
        #expect(titled.titles.first == long)
        #expect(titled.texts.contains { $0.hasSuffix("\u{2026}") || $0.contains("\u{2026}") })
        #expect(!titled.texts.contains(long))
    }

    @Test("The SVG shows every label of a real app, shortening only those too long for a box")
    func svgShowsEveryLabel() throws {
        let topology = TopologySamples.shop
        let parsed = try #require(XMLCollector.parse(topology.svg()))
        #expect(parsed.titles.first == "Event flow")
        for node in topology.nodes {
            if node.label.count <= 28 {
                #expect(parsed.texts.contains(node.label), "\(node.label)")
            } else {
                let shortened = try #require(
                    parsed.texts.first { $0.contains("\u{2026}") && node.label.hasPrefix($0.prefix(8)) })
                #expect(shortened.count < node.label.count)
                #expect(node.label.hasSuffix(shortened.split(separator: "\u{2026}").last!))
            }
            if let detail = node.detail { #expect(parsed.texts.contains(detail)) }
        }
        #expect(
            parsed.texts.contains("Dispatcher") && parsed.texts.contains("Event") && parsed.texts.contains("Listener"))
        for edge in topology.edges { #expect(parsed.texts.contains("\(edge.count)")) }
    }

    @Test("An empty topology renders a small valid SVG saying there is nothing to show")
    func emptyTopology() throws {
        let empty = EventTopology(nodes: [], edges: [])
        let parsed = try #require(XMLCollector.parse(empty.svg(title: "Nothing yet")))
        #expect(parsed.texts.contains { $0.hasPrefix("Nothing to show") })
        #expect(parsed.texts.contains("Nothing yet"))
        #expect(empty.dot.contains("digraph") && !empty.dot.contains("->"))
        #expect(empty.mermaid.hasPrefix("flowchart LR\n") && !empty.mermaid.contains("-->"))
    }

    @Test("Rendering depends only on the value: twice, or from shuffled input, gives the same text")
    func renderingIsDeterministic() {
        let topology = TopologySamples.generated(size: 40)
        var shuffler = SystemRandomNumberGenerator()
        let shuffled = EventTopology(
            nodes: topology.nodes.shuffled(using: &shuffler), edges: topology.edges.shuffled(using: &shuffler))
        #expect(topology.svg(title: "t") == topology.svg(title: "t"))
        #expect(topology.svg(title: "t") == shuffled.svg(title: "t"))
        #expect(topology.dot == shuffled.dot)
        #expect(topology.mermaid == shuffled.mermaid)
    }

    @Test("Repeated node ids, dangling edges of a decoded value and parallel edges render without harm")
    func irregularValues() throws {
        let json = """
            {"nodes":[{"id":"a","kind":"dispatcher","label":"A"},{"id":"b","kind":"event","label":"B"},
            {"id":"a","kind":"listener","label":"Again"}],
            "edges":[{"from":"a","to":"b","count":2},{"from":"a","to":"b","count":3},{"from":"b","to":"gone","count":1}]}
            """
        let topology = try JSONDecoder().decode(EventTopology.self, from: Data(json.utf8))
        #expect(topology.dot.components(separatedBy: " -> ").count == 3)
        #expect(!topology.dot.contains("gone") && !topology.mermaid.contains("Again"))
        let parsed = try #require(XMLCollector.parse(topology.svg()))
        #expect(parsed.texts.contains("5"), "parallel edges drawn as one arrow with their counts added")
        #expect(!parsed.texts.contains("Again"))
    }

    @Test("Counts are exact below ten thousand, then shortened")
    func countLabels() {
        #expect(TopologyGraph.countLabel(0) == "0")
        #expect(TopologyGraph.countLabel(9_999) == "9999")
        #expect(TopologyGraph.countLabel(12_345) == "12.3k")
        #expect(TopologyGraph.countLabel(99_999) == "99.9k")
        #expect(TopologyGraph.countLabel(999_949) == "999k")
        #expect(TopologyGraph.countLabel(2_000_000) == "2M")
        #expect(TopologyGraph.countLabel(1_250_000) == "1.2M")
        #expect(TopologyGraph.countLabel(.max).hasSuffix("M"))
    }
}

/// How the renderers show a label on one line: line breaks and tabs as spaces, control
/// characters as U+FFFD.
private func readAsOneLine(_ text: String) -> String {
    TopologyGraph.singleLine(text)
}

/// How the Mermaid output shows a label: each line break as one `<br/>`, the rest on one line.
private func mermaidLines(_ text: String) -> String {
    text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        .split(separator: "\n", omittingEmptySubsequences: false).map { TopologyGraph.singleLine(String($0)) }
        .joined(separator: "\n")
}
