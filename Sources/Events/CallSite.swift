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

    // Compared and hashed on the literal's bytes, without making a `String`: diagnostics key
    // their tables by call site on every observed dispatch.
    public static func == (lhs: CallSite, rhs: CallSite) -> Bool {
        lhs.lineNumber == rhs.lineNumber && lhs.file == rhs.file
    }

    public func hash(into hasher: inout Hasher) {
        file.hash(into: &hasher)
        hasher.combine(lineNumber)
    }
}

/// The UTF-8 bytes of a `StaticString` literal, kept as a pointer and a length.
struct StaticText: @unchecked Sendable, Hashable {
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
        String(decoding: bytes, as: UTF8.self)
    }

    private var bytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: start, count: start == nil ? 0 : Int(count))
    }

    static func == (lhs: StaticText, rhs: StaticText) -> Bool {
        lhs.count == rhs.count && (lhs.start == rhs.start || lhs.bytes.elementsEqual(rhs.bytes))
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
    }
}
