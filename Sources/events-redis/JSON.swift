/// A JSON document for `--json` output, written in the order its members were given, so that
/// the output reads the way the text output does.
indirect enum JSON {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])
    /// JSON text that is already valid (a CloudEvent as it was stored), written as it is.
    case verbatim([UInt8])

    static func optional(_ value: Int?) -> JSON { value.map(JSON.int) ?? .null }
    static func optional(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }

    /// The document on one line.
    var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .string(let value): Self.writeString(value, to: &output)
        case .int(let value): output += String(value)
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, (name, value)) in members.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(name, to: &output)
                output += ":"
                value.write(to: &output)
            }
            output += "}"
        case .verbatim(let bytes): output += String(decoding: CloudEventLines.oneLine(bytes), as: UTF8.self)
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
