import Foundation
import Testing
import TopologyTestSupport

@testable import Events

#if canImport(FoundationXML)
    import FoundationXML
#endif

private typealias Node = EventTopology.Node
private typealias Edge = EventTopology.Edge

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

    @Test("An empty topology gives a digraph and a flowchart without edges")
    func emptyTopology() {
        let empty = EventTopology(nodes: [], edges: [])
        #expect(empty.dot.contains("digraph") && !empty.dot.contains("->"))
        #expect(empty.mermaid.hasPrefix("flowchart LR\n") && !empty.mermaid.contains("-->"))
    }

    @Test("DOT and Mermaid depend only on the value: shuffled input gives the same text")
    func renderingIsDeterministic() {
        let topology = TopologySamples.generated(size: 40)
        var shuffler = SystemRandomNumberGenerator()
        let shuffled = EventTopology(
            nodes: topology.nodes.shuffled(using: &shuffler), edges: topology.edges.shuffled(using: &shuffler))
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
    }

    @Test("The deprecated plain SVG of Events is well-formed and names every event and listener")
    @available(*, deprecated, message: "exercises the deprecated plain svg(title:) of Events")
    func deprecatedPlainSVG() throws {
        let topology = hostileTopology()
        let parsed = try #require(XMLCollector.parse(topology.svg(title: "Hostile <title> & \"quotes\"")))
        #expect(parsed.elements.first == "svg")
        #expect(parsed.titles.first == "Hostile <title> & \"quotes\"")
        for node in topology.nodes {
            #expect(parsed.texts.contains(readAsOneLine(node.label)), "\(node.label.debugDescription)")
        }
        #expect(parsed.texts.contains { $0.contains("import EventsSVG") })
        let shop = try #require(XMLCollector.parse(TopologySamples.shop.svg()))
        #expect(shop.titles.first == "Event flow")
        for node in TopologySamples.shop.nodes { #expect(shop.texts.contains(node.label), "\(node.label)") }
        for edge in TopologySamples.shop.edges { #expect(shop.texts.contains("\(edge.count)")) }
        let empty = try #require(XMLCollector.parse(EventTopology(nodes: [], edges: []).svg()))
        #expect(empty.texts.contains { $0.hasPrefix("Nothing to show") })
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
