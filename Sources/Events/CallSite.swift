/// Where a listener was registered: the file and line of the `listen` call.
///
/// Every registration records its call site so that diagnostics and error reports can say which
/// piece of code a listener belongs to. Read it from ``Subscription/callSite``.
public struct CallSite: Sendable, Hashable, CustomStringConvertible {
    // Sixteen bytes per listener: a pointer to the `#fileID` literal, its length and the line.
    // Recording a call site never allocates.
    private let file: StaticText
    private let lineNumber: UInt32

    @usableFromInline
    init(fileID: StaticString, line: UInt) {
        self.file = StaticText(fileID)
        self.lineNumber = UInt32(clamping: line)
    }

    /// The line of the `listen` call.
    public var line: Int { Int(lineNumber) }

    /// The module-qualified file of the `listen` call, as `#fileID` spells it ("MyApp/Feed.swift").
    public var fileID: String { file.string }

    public var description: String { "\(fileID):\(line)" }

    public static func == (lhs: CallSite, rhs: CallSite) -> Bool {
        lhs.lineNumber == rhs.lineNumber && lhs.fileID == rhs.fileID
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fileID)
        hasher.combine(lineNumber)
    }
}

/// The UTF-8 bytes of a `StaticString` literal, kept as a pointer and a length.
struct StaticText: @unchecked Sendable {
    // Why @unchecked is safe: `start` points into a string literal of the binary, which is
    // immutable and lives as long as the program; it is only ever read.
    private let start: UnsafePointer<UInt8>?
    private let count: UInt32

    init(_ text: StaticString) {
        if text.hasPointerRepresentation {
            start = text.utf8Start
            count = UInt32(clamping: text.utf8CodeUnitCount)
        } else {
            // A single Unicode scalar literal: never what `#fileID` produces.
            start = nil
            count = 0
        }
    }

    var string: String {
        guard let start else { return "" }
        return String(decoding: UnsafeBufferPointer(start: start, count: Int(count)), as: UTF8.self)
    }
}
