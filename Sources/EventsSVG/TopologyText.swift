/// Text measurement for the topology picture, without a font at hand.
///
/// The SVG names a sans-serif font stack and the viewer picks the font, so widths are estimates:
/// each character counts a fraction of the font size by its class (narrow punctuation, capitals,
/// wide letters, East Asian and emoji at a full em). The fractions lean to the wide side of the
/// common fonts (DejaVu Sans, Helvetica, Segoe UI), so text fits its box in all of them; a box
/// a little roomy in the narrower ones is the price.
enum TopologyText {
    static let ellipsis = "\u{2026}"

    /// The estimated advance of `text` drawn at `size` points.
    static func width(_ text: String, size: Double, bold: Bool = false) -> Double {
        let total = text.reduce(0.0) { $0 + ems($1) }
        return total * size * (bold ? 1.07 : 1)
    }

    /// The width of one character in ems, judged by its first scalar (a combining sequence or an
    /// emoji sequence is one character, drawn as one glyph).
    static func ems(_ character: Character) -> Double {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        let value = scalar.value
        switch value {
        case 0x20: return 0.32
        case 0x21...0x7E: return asciiEms(UInt8(value))
        case 0x300...0x36F, 0x200B...0x200F, 0xFE00...0xFE0F: return 0
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F000...0x1FAFF, 0x20000...0x3FFFD:
            return 1
        default: return 0.64
        }
    }

    private static func asciiEms(_ byte: UInt8) -> Double {
        switch byte {
        case UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "I"), UInt8(ascii: "."), UInt8(ascii: ","),
            UInt8(ascii: ":"), UInt8(ascii: ";"), UInt8(ascii: "'"), UInt8(ascii: "|"), UInt8(ascii: "!"):
            return 0.32
        case UInt8(ascii: "j"), UInt8(ascii: "f"), UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"),
            UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "`"), UInt8(ascii: "\""):
            return 0.42
        case UInt8(ascii: "m"), UInt8(ascii: "w"), UInt8(ascii: "M"), UInt8(ascii: "W"), UInt8(ascii: "@"),
            UInt8(ascii: "%"):
            return 0.92
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return 0.72
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return 0.62
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return 0.6
        default: return 0.64
        }
    }

    /// `text` shortened with an ellipsis so that it fits `maxWidth`. A path (a call site such as
    /// `App/Views/CartView.swift:42`) loses its leading folders first, so the file and line stay
    /// (a file name still too long is then shortened in its middle); other text is shortened in the middle, keeping both ends: the start of a type or event name
    /// and the end that tells similar ones apart. Whole characters only.
    static func fitted(_ text: String, maxWidth: Double, size: Double, bold: Bool = false) -> String {
        guard width(text, size: size, bold: bold) > maxWidth else { return text }
        var rest = Substring(text)
        while let slash = rest.firstIndex(of: "/") {
            rest = rest[rest.index(after: slash)...]
            let shortened = ellipsis + "/" + rest
            if width(shortened, size: size, bold: bold) <= maxWidth { return shortened }
        }
        let text = rest.startIndex == text.startIndex ? text : ellipsis + "/" + rest
        let scale = size * (bold ? 1.07 : 1)
        let budget = max(0, maxWidth - width(ellipsis, size: size, bold: bold))
        let characters = Array(text)
        var headCount = 0
        var used = 0.0
        while headCount < characters.count, used + ems(characters[headCount]) * scale <= budget * 0.6 {
            used += ems(characters[headCount]) * scale
            headCount += 1
        }
        var tailStart = characters.count
        while tailStart > headCount, used + ems(characters[tailStart - 1]) * scale <= budget {
            used += ems(characters[tailStart - 1]) * scale
            tailStart -= 1
        }
        let head = String(characters[..<headCount]).trimmingTrailingSpaces()
        let tail = String(characters[tailStart...]).trimmingLeadingSpaces()
        return head + ellipsis + tail
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }

    fileprivate func trimmingLeadingSpaces() -> String {
        String(drop { $0 == " " })
    }
}
