package import Events
package import Foundation

#if canImport(FoundationXML)
    package import FoundationXML
#endif

/// Labels that try to break out of every format: quotes, backslashes and Graphviz escapes, line
/// breaks, markup, Mermaid arrows and brackets, entity look-alikes, control characters, an XML
/// noncharacter, and non-ASCII text that must survive.
package let hostileLabels = [
    "He said \"hi\"", "back\\slash\\", "\\N and \\G", "two\nlines\r\nand\rreturns", "<script>alert(1)</script>",
    "A --> B", "end]", "x\"]:::listener", "#quot; &amp; ;", "`code`", "tab\there", "nul\u{0}esc\u{1B}del\u{7F}",
    "non\u{FFFE}char", "Ünïcödé 事件 🚀", "'single'", "{curly} |pipe|",
]

package func hostileTopology() -> EventTopology {
    var nodes = [
        EventTopology.Node(id: "source \"1\"\\", kind: .dispatcher, label: "Sender \"one\"", detail: "line\nbreak")
    ]
    var edges: [EventTopology.Edge] = []
    for (index, label) in hostileLabels.enumerated() {
        let kind: EventTopology.Node.Kind = index % 2 == 0 ? .event : .listener
        nodes.append(
            EventTopology.Node(
                id: "id \(index) \(label)", kind: kind, label: label, detail: index % 3 == 0 ? label : nil))
        edges.append(EventTopology.Edge(from: nodes[index].id, to: "id \(index) \(label)", count: index))
    }
    return EventTopology(nodes: nodes, edges: edges)
}

/// The text content of an XML document, gathered while it is parsed.
package final class XMLCollector: NSObject, XMLParserDelegate {
    package var elements: [String] = []
    package var titles: [String] = []
    package var texts: [String] = []
    private var stack: [(name: String, text: String)] = []

    package func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append(elementName)
        stack.append((elementName, ""))
    }

    package func parser(_ parser: XMLParser, foundCharacters string: String) {
        if !stack.isEmpty { stack[stack.count - 1].text += string }
    }

    package func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        guard let element = stack.popLast() else { return }
        if element.name == "title" { titles.append(element.text) }
        if element.name == "text" { texts.append(element.text) }
    }

    /// Parses `document`; nil when it is not well-formed XML.
    package static func parse(_ document: String) -> XMLCollector? {
        let collector = XMLCollector()
        let parser = XMLParser(data: Data(document.utf8))
        parser.delegate = collector
        return parser.parse() ? collector : nil
    }
}
