import Events
import Foundation
import Testing
import TopologyTestSupport

@testable import EventsSVG

#if canImport(FoundationXML)
    import FoundationXML
#endif

private typealias Node = EventTopology.Node
private typealias Edge = EventTopology.Edge

@Suite("Drawing an event topology as SVG")
struct TopologySVGTests {
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
    }

    @Test("The SVG depends only on the value: twice, or from shuffled input, gives the same document")
    func renderingIsDeterministic() {
        let topology = TopologySamples.generated(size: 40)
        var shuffler = SystemRandomNumberGenerator()
        let shuffled = EventTopology(
            nodes: topology.nodes.shuffled(using: &shuffler), edges: topology.edges.shuffled(using: &shuffler))
        #expect(topology.svg(title: "t") == topology.svg(title: "t"))
        #expect(topology.svg(title: "t") == shuffled.svg(title: "t"))
    }

    @Test("Repeated node ids, dangling edges of a decoded value and parallel edges draw without harm")
    func irregularValues() throws {
        let json = """
            {"nodes":[{"id":"a","kind":"dispatcher","label":"A"},{"id":"b","kind":"event","label":"B"},
            {"id":"a","kind":"listener","label":"Again"}],
            "edges":[{"from":"a","to":"b","count":2},{"from":"a","to":"b","count":3},{"from":"b","to":"gone","count":1}]}
            """
        let topology = try JSONDecoder().decode(EventTopology.self, from: Data(json.utf8))
        let parsed = try #require(XMLCollector.parse(topology.svg()))
        #expect(parsed.texts.contains("5"), "parallel edges drawn as one arrow with their counts added")
        #expect(!parsed.texts.contains("Again"))
        #expect(!parsed.titles.contains { $0.contains("gone") })
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

    @Test("Each kind has the colors it has in the DOT text of Events")
    func colorsMatchTheTextRenderings() {
        let topology = EventTopology(
            nodes: Node.Kind.allCases.map { Node(id: $0.rawValue, kind: $0, label: $0.rawValue) }, edges: [])
        let dot = topology.dot
        for kind in Node.Kind.allCases {
            let colors = TopologySVG.palette(kind)
            let attributes = "fillcolor=\"\(colors.fill)\", color=\"\(colors.stroke)\", fontcolor=\"\(colors.text)\""
            #expect(dot.contains("\"\(kind.rawValue)\" [label=") && dot.contains(attributes), "\(kind)")
        }
    }

    // This target treats deprecation warnings as errors (Package.swift): were the deprecated
    // plain `svg(title:)` of Events chosen here, the target would not compile.
    @Test("With Events and EventsSVG both imported, svg(title:) draws the laid-out picture")
    func importingEventsSVGPrefersItsPicture() throws {
        let topology = TopologySamples.shop
        let drawn = topology.svg(title: "Shop")
        #expect(drawn == TopologySVG(graph: TopologyGraph(topology), title: "Shop").document())
        #expect(!drawn.contains("A plain listing"))
        let parsed = try #require(XMLCollector.parse(topology.svg()))
        #expect(parsed.texts.contains("dispatches or deliveries, counted"), "the laid-out picture's legend")
    }
}
