/// Text for values of any depth, made without recursion: what ``NamedEvent`` and ``Payload``
/// print, and the names the `NotificationCenter` bridge gives keys that are not strings.
///
/// `String(reflecting:)` recurses once or more for every level a value nests, so a value nested
/// some thousands of levels deep (an indirect enum, arrays of arrays, events carried as the data
/// of events) overflows the stack of the thread that describes it. This walks the value's
/// `Mirror` with a stack of its own, never deeper than ``depthLimit``:
/// - a part that ends within the limit is described by `String(reflecting:)`, exactly as before
///   (its own `description`s included), since its recursion is as shallow as the limit;
/// - a part that reaches the limit is spelled out level by level in the standard library's
///   format, and what lies at the limit is shown as ``elision``.
///
/// A class instance is described by `String(reflecting:)` and not walked, as the standard
/// library prints it, unless its mirror shows it as something else (a Foundation array shows a
/// collection); a reference cycle through such an instance ends at the limit like any nesting.
enum BoundedDescription {
    /// How many levels are spelled out before the rest is elided. Far below what recursion
    /// survives on a small thread stack, far above what anyone reads.
    static let depthLimit = 64

    /// What stands for the levels beyond ``depthLimit``.
    static let elision = "…"

    /// `String(reflecting: value)`, bounded.
    ///
    /// - Parameter spellingOut: Spells out every level, even those `String(reflecting:)` could
    ///   describe, to check the spelling against it.
    static func reflecting(_ value: Any, spellingOut: Bool = false) -> String {
        describe(value, reflecting: true, spellingOut: spellingOut)
    }

    /// `String(describing: value)`, bounded.
    static func describing(_ value: Any) -> String {
        describe(value, reflecting: false, spellingOut: false)
    }

    // MARK: - Walking

    /// How a value with parts is written once its parts are written.
    private enum Form {
        /// A collection (`[a, b]`), a set, a dictionary, an optional, a tuple, a struct or an
        /// enum, as the standard library writes them.
        case mirrored(Mirror.DisplayStyle?, type: Any.Type, labels: [String?])
        /// One dictionary element: `key: value`.
        case dictionaryElement
        /// Fixed text around the parts: a named event or a payload. `texts` has one more
        /// element than there are parts.
        case template(texts: [String])

        var isDictionary: Bool {
            if case .mirrored(.dictionary?, _, _) = self { return true }
            return false
        }
    }

    /// A part already described, or left for `String(reflecting:)` to describe.
    private enum Part {
        case whole(Any)
        case text(String)

        var text: String {
            switch self {
            case .whole(let value): String(reflecting: value)
            case .text(let text): text
            }
        }
    }

    /// One value being walked: its parts to visit, and those visited.
    private struct Frame {
        let value: Any
        let depth: Int
        let form: Form
        let children: [Any]
        var next = 0
        var parts: [Part] = []
        /// Whether some part below had to be spelled out or elided, so this value must be too.
        var spelledOut: Bool
    }

    private static func describe(_ value: Any, reflecting: Bool, spellingOut: Bool) -> String {
        guard let root = frame(for: value, depth: 0, inDictionary: false) else {
            return reflecting ? String(reflecting: value) : String(describing: value)
        }
        var stack = [root]
        if spellingOut { stack[0].spelledOut = true }
        while let top = stack.indices.last {
            if stack[top].next < stack[top].children.count {
                let child = stack[top].children[stack[top].next]
                stack[top].next += 1
                let depth = stack[top].depth + 1
                if var frame = frame(for: child, depth: depth, inDictionary: stack[top].form.isDictionary) {
                    if depth >= depthLimit {
                        stack[top].parts.append(.text(elision))
                        stack[top].spelledOut = true
                    } else {
                        if spellingOut { frame.spelledOut = true }
                        stack.append(frame)
                    }
                } else {
                    stack[top].parts.append(.whole(child))
                }
                continue
            }
            let done = stack.removeLast()
            let part: Part = done.spelledOut ? .text(spell(done)) : .whole(done.value)
            guard let parent = stack.indices.last else {
                if case .text(let text) = part { return text }
                return reflecting ? String(reflecting: value) : String(describing: value)
            }
            stack[parent].parts.append(part)
            if done.spelledOut { stack[parent].spelledOut = true }
        }
        preconditionFailure("the walk ends at its root")
    }

    /// The frame for a value with parts to walk, or nil for one described whole.
    private static func frame(for value: Any, depth: Int, inDictionary: Bool) -> Frame? {
        if let event = value as? NamedEvent { return template(for: event, depth: depth) }
        if let payload = value as? Payload { return template(for: payload, depth: depth) }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .class || mirror.children.isEmpty { return nil }
        var labels: [String?] = []
        var children: [Any] = []
        for child in mirror.children {
            labels.append(child.label)
            children.append(child.value)
        }
        let form: Form =
            inDictionary && children.count == 2
            ? .dictionaryElement
            : .mirrored(mirror.displayStyle, type: type(of: value), labels: labels)
        return Frame(value: value, depth: depth, form: form, children: children, spelledOut: false)
    }

    // A template stands for its type's own `description`, which calls this: it is always spelled
    // out, or describing it at the root would come back here forever. Its ancestors are spelled
    // out too, so that no `String(reflecting:)` starts a walk of its own inside this one.

    private static func template(for event: NamedEvent, depth: Int) -> Frame {
        var texts: [String] = []
        var children: [Any] = []
        var text = "NamedEvent(\"\(event.name.rawValue)\""
        if let sender = event.sender { text += " from \(sender)" }
        switch event.data {
        case .value(let value)?:
            texts.append(text + ", data: ")
            children.append(value)
            text = ""
        case .unbridged(let typeName, let reason)?:
            text += ", data: " + Payload.notCarriedText(typeName: typeName, reason: reason)
        case nil:
            break
        }
        if !event.payload.entries.isEmpty {
            text += ", payload: "
            appendEntries(of: event.payload, to: &texts, &children, after: &text)
        }
        texts.append(text + ")")
        return Frame(value: event, depth: depth, form: .template(texts: texts), children: children, spelledOut: true)
    }

    private static func template(for payload: Payload, depth: Int) -> Frame {
        var texts: [String] = []
        var children: [Any] = []
        var text = ""
        appendEntries(of: payload, to: &texts, &children, after: &text)
        texts.append(text)
        return Frame(value: payload, depth: depth, form: .template(texts: texts), children: children, spelledOut: true)
    }

    /// `[name: value, ...]` in key order, or `[:]`: the text so far ends in `text`.
    private static func appendEntries(
        of payload: Payload, to texts: inout [String], _ children: inout [Any], after text: inout String
    ) {
        guard !payload.entries.isEmpty else {
            text += "[:]"
            return
        }
        text += "["
        for (index, name) in payload.entries.keys.sorted().enumerated() {
            if index > 0 { text += ", " }
            text += "\(name): "
            switch payload.entries[name]! {
            case .value(let value):
                texts.append(text)
                children.append(value)
                text = ""
            case .unbridged(let typeName, let reason):
                text += Payload.notCarriedText(typeName: typeName, reason: reason)
            }
        }
        text += "]"
    }

    // MARK: - Spelling out

    /// The value's text from its parts' texts.
    private static func spell(_ frame: Frame) -> String {
        if frame.form.isDictionary {
            // An element left whole is a (key, value) tuple, which `String(reflecting:)` would
            // write as one; a spelled-out element is already `key: value`.
            let elements = frame.parts.map { part in
                guard case .whole(let element) = part else { return part.text }
                return elementText(element)
            }
            return "[" + elements.joined(separator: ", ") + "]"
        }
        let parts = frame.parts.map(\.text)
        switch frame.form {
        case .template(let texts):
            var text = ""
            for (index, part) in parts.enumerated() { text += texts[index] + part }
            return text + texts[parts.count]
        case .dictionaryElement:
            return parts[0] + ": " + parts[1]
        case .mirrored(let style, let type, let labels):
            return spell(parts, labels: labels, style: style, type: type, value: frame.value)
        }
    }

    private static func spell(
        _ parts: [String], labels: [String?], style: Mirror.DisplayStyle?, type: Any.Type, value: Any
    ) -> String {
        // Only structs and enums print their type's name, so only they pay for it.
        var typeName: String { _typeName(type, qualified: true) }
        func labelled() -> String {
            zip(labels, parts).map { label, part in
                // A tuple's unlabelled elements are labelled ".0", ".1", ... in its mirror.
                guard let label, !label.hasPrefix(".") else { return part }
                return "\(label): \(part)"
            }.joined(separator: ", ")
        }
        switch style {
        case .collection?:
            return "[" + parts.joined(separator: ", ") + "]"
        case .set?:
            return "Set([" + parts.joined(separator: ", ") + "])"
        case .optional?:
            return "Optional(" + parts.joined(separator: ", ") + ")"
        case .tuple?:
            return "(" + labelled() + ")"
        case .enum? where parts.count == 1:
            // One child, labelled with the case: its payload, a tuple already in parentheses
            // when it has several values.
            let payload = Mirror(reflecting: value).children.first.map { Mirror(reflecting: $0.value) }
            let text = payload?.displayStyle == .tuple ? parts[0] : "(" + parts[0] + ")"
            return typeName + "." + (labels[0] ?? "") + text
        default:
            return typeName + "(" + labelled() + ")"
        }
    }
}

extension BoundedDescription {
    /// A dictionary element, `(key: k, value: v)`, written as the dictionary writes it: `k: v`.
    private static func elementText(_ element: Any) -> String {
        let halves = Mirror(reflecting: element).children.map(\.value)
        guard halves.count == 2 else { return String(reflecting: element) }
        return String(reflecting: halves[0]) + ": " + String(reflecting: halves[1])
    }
}
