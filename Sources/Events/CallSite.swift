/// Where a listener was registered: the file and line of the `listen` call.
///
/// Every registration records its call site so that diagnostics and error reports can say which
/// piece of code a listener belongs to. Read it from ``Subscription/callSite``.
public struct CallSite: Sendable, Hashable, CustomStringConvertible {
    // Kept as a StaticString so that recording a call site never allocates.
    let staticFileID: StaticString

    /// The line of the `listen` call.
    public let line: Int

    init(fileID: StaticString, line: UInt) {
        self.staticFileID = fileID
        self.line = Int(line)
    }

    /// The module-qualified file of the `listen` call, as `#fileID` spells it ("MyApp/Feed.swift").
    public var fileID: String { staticFileID.description }

    public var description: String { "\(fileID):\(line)" }

    public static func == (lhs: CallSite, rhs: CallSite) -> Bool {
        lhs.line == rhs.line && lhs.fileID == rhs.fileID
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fileID)
        hasher.combine(line)
    }
}
