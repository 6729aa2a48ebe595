/// The line-by-line comparison of expected events with recorded ones that the expectations
/// print: which recorded events match, which expected ones are missing, which recorded ones
/// were not expected.
struct EventDiff {
    enum Line {
        case matching(recorded: String, index: Int)
        case missing(expected: String, position: Int)
        case unexpected(recorded: String, index: Int, sender: String?)
    }

    let lines: [Line]

    var isMatch: Bool {
        lines.allSatisfy { if case .matching = $0 { true } else { false } }
    }

    /// Aligns `expected` with the values of `recorded` on a longest common subsequence, so that one missing
    /// or extra event shows as one line and not as every later event differing.
    init<E, Value: Equatable>(expected: [Value], recorded: [RecordedEvent<E>], value: (E) -> Value) {
        let actual = recorded.map { value($0.event) }
        let rows = expected.count
        let columns = actual.count
        // Beyond this many cells the table costs more than a test should wait for: compare
        // position by position instead.
        guard rows * columns <= 1_000_000 else {
            self.lines = EventDiff.positional(expected: expected, actual: actual, recorded: recorded)
            return
        }
        // common[i][j]: the length of the longest common subsequence of expected[i...] and
        // actual[j...], filled from the end.
        var common = [[Int]](repeating: [Int](repeating: 0, count: columns + 1), count: rows + 1)
        for i in stride(from: rows - 1, through: 0, by: -1) {
            for j in stride(from: columns - 1, through: 0, by: -1) {
                common[i][j] =
                    expected[i] == actual[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var lines: [Line] = []
        var i = 0
        var j = 0
        while i < rows || j < columns {
            if i < rows, j < columns, expected[i] == actual[j] {
                lines.append(.matching(recorded: String(describing: actual[j]), index: recorded[j].index))
                i += 1
                j += 1
            } else if i < rows, j == columns || common[i + 1][j] >= common[i][j + 1] {
                // Missing before unexpected where both keep the alignment, as a diff prints
                // removals before insertions.
                lines.append(.missing(expected: String(describing: expected[i]), position: i))
                i += 1
            } else {
                lines.append(EventDiff.unexpected(recorded[j], value: actual[j]))
                j += 1
            }
        }
        self.lines = lines
    }

    private static func positional<E, Value: Equatable>(
        expected: [Value], actual: [Value], recorded: [RecordedEvent<E>]
    ) -> [Line] {
        var lines: [Line] = []
        for position in 0..<max(expected.count, actual.count) {
            let inExpected = position < expected.count
            let inActual = position < actual.count
            if inExpected, inActual, expected[position] == actual[position] {
                lines.append(
                    .matching(recorded: String(describing: actual[position]), index: recorded[position].index))
                continue
            }
            if inExpected {
                lines.append(.missing(expected: String(describing: expected[position]), position: position))
            }
            if inActual { lines.append(unexpected(recorded[position], value: actual[position])) }
        }
        return lines
    }

    private static func unexpected<E>(_ record: RecordedEvent<E>, value: some Equatable) -> Line {
        .unexpected(recorded: String(describing: value), index: record.index, sender: record.sender?.description)
    }

    /// One line per event, in a column layout:
    ///
    ///     matching    #0    PostWritten(title: "A")
    ///     missing           PostWritten(title: "B")  (expected[1])
    ///     unexpected  #1    PostWritten(title: "C")  from Editor@0x600000c04000
    var text: String {
        lines.map { line in
            switch line {
            case .matching(let recorded, let index):
                "  matching    \(EventDiff.column("#\(index)"))\(recorded)"
            case .missing(let expected, let position):
                "  missing     \(EventDiff.column(""))\(expected)  (expected[\(position)])"
            case .unexpected(let recorded, let index, let sender):
                "  unexpected  \(EventDiff.column("#\(index)"))\(recorded)" + (sender.map { "  from \($0)" } ?? "")
            }
        }
        .joined(separator: "\n")
    }

    private static func column(_ text: String) -> String {
        text + String(repeating: " ", count: max(6 - text.count, 1))
    }
}
