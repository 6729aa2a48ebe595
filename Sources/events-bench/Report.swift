import Foundation

/// What a row stands for in its scenario; ratios are taken against the two baselines.
enum Role: String, Encodable {
    /// swift-events, the thing being measured.
    case subject
    /// The plain array of closures: the limit, nothing can dispatch for less.
    case closureBaseline = "closure baseline"
    /// Foundation's `NotificationCenter` block API with a `userInfo` payload.
    case foundationBaseline = "Foundation baseline"
    /// Any other comparison (Foundation's typed messages, a hand-rolled stream, ...).
    case baseline
}

/// One implementation's figure in one scenario.
struct Row: Encodable {
    static let measured = "measured"

    let name: String
    let role: Role
    /// The median figure in the scenario's unit; nil when not measured (see `status`).
    var value: Double?
    /// "measured", "n/a on this platform", or "pending: ..." for work that needs an API first.
    var status: String
    /// Free text printed after the figure, such as the cost per listener.
    var detail: String? = nil
    /// `value` divided by the closure baseline's, when both are positive.
    var ratioToClosure: Double? = nil
    /// `value` divided by the Foundation baseline's, when both are positive.
    var ratioToFoundation: Double? = nil
}

/// A performance goal the package holds itself to, judged on a figure of the same run. Printed,
/// never asserted: the run's exit status says only whether the benchmark ran.
struct Target: Encodable {
    /// The goal in words.
    let goal: String
    /// The figure compared with `limit` (a ratio, a count or a number of bytes).
    var figure: Double?
    /// How the figure reads: a ratio ("2.50x"), allocations per operation, or bytes.
    let kind: Kind
    let limit: Double
    /// True when the figure must be at most `limit`, false when at least.
    let atMost: Bool
    var verdict: String = ""

    enum Kind: String, Encodable {
        case ratio
        case allocations
        case bytes
    }

    static let met = "met"
    static let notMet = "not met"
    static let notJudged = "not judged (--quick)"
    static let notMeasured = "not measured"

    mutating func judge(quick: Bool) {
        guard let figure else {
            verdict = Target.notMeasured
            return
        }
        if quick {
            verdict = Target.notJudged
        } else {
            verdict = (atMost ? figure <= limit : figure >= limit) ? Target.met : Target.notMet
        }
    }
}

/// The figures of one scenario.
struct ScenarioReport: Encodable {
    /// Stable identifier, for `--only` and for machines reading `--json`.
    let id: String
    let title: String
    /// The unit of every row's `value`.
    let unit: Unit
    /// What one operation is.
    let operation: String
    var rows: [Row]
    var target: Target?
    /// More goals judged on figures of the same run, printed after `target`.
    var additionalTargets: [Target] = []
    /// Anything a reader of the figures should know.
    var note: String? = nil

    enum Unit: String, Encodable {
        case nanosecondsPerOperation = "ns/op"
        case allocationsPerOperation = "allocations/op"
        case bytesPerRegistration = "bytes/registration"
        case throughputRatio = "throughput two/one"

        /// Header of the figure column.
        var column: String {
            switch self {
            case .nanosecondsPerOperation: "ns/op"
            case .allocationsPerOperation: "allocs/op"
            case .bytesPerRegistration: "bytes"
            case .throughputRatio: "two/one"
            }
        }

        /// Whether dividing two figures of this unit means something.
        var hasRatios: Bool { self != .throughputRatio }
    }

    /// The figure of the first row with `name`.
    func value(of name: String) -> Double? {
        rows.first { $0.name == name }?.value
    }

    /// Fills in the ratio columns and judges the target.
    mutating func finish(quick: Bool) {
        if unit.hasRatios {
            let closure = rows.first { $0.role == .closureBaseline }?.value
            let foundation = rows.first { $0.role == .foundationBaseline }?.value
            for index in rows.indices {
                rows[index].ratioToClosure = ratio(rows[index].value, closure)
                rows[index].ratioToFoundation = ratio(rows[index].value, foundation)
            }
        }
        target?.judge(quick: quick)
        for index in additionalTargets.indices { additionalTargets[index].judge(quick: quick) }
    }
}

func ratio(_ value: Double?, _ base: Double?) -> Double? {
    guard let value, let base, value > 0, base > 0 else { return nil }
    return value / base
}

/// Where the figures come from.
struct Machine: Encodable {
    let cpus: Int
    let cpuModel: String
    let swift: String
    let os: String
    let build: String

    static func current() -> Machine {
        #if DEBUG
            let build = "debug (figures are meaningless: run with -c release)"
        #else
            let build = "release"
        #endif
        return Machine(
            cpus: ProcessInfo.processInfo.activeProcessorCount, cpuModel: cpuModelName(),
            swift: swiftCompilerVersion, os: ProcessInfo.processInfo.operatingSystemVersionString, build: build)
    }

    /// The first "model name" of /proc/cpuinfo, where there is one.
    private static func cpuModelName() -> String {
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in cpuinfo.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }
}

/// The compiler that built this executable (there is no run-time query for it).
#if compiler(>=6.4)
    let swiftCompilerVersion = "Swift 6.4 or later"
#elseif compiler(>=6.3.1)
    let swiftCompilerVersion = "Swift 6.3.1"
#elseif compiler(>=6.3)
    let swiftCompilerVersion = "Swift 6.3"
#elseif compiler(>=6.2)
    let swiftCompilerVersion = "Swift 6.2"
#elseif compiler(>=6.1)
    let swiftCompilerVersion = "Swift 6.1"
#else
    let swiftCompilerVersion = "Swift 6.0"
#endif

/// The whole run, as `--json` prints it.
struct BenchmarkReport: Encodable {
    let tool = "events-bench"
    let mode: String
    let machine: Machine
    let method: String
    let scenarios: [ScenarioReport]
}

// MARK: Rendering

extension BenchmarkReport {
    /// One JSON document.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The human-readable table.
    func table() -> String {
        var lines: [String] = []
        lines.append(
            "events-bench (\(mode)): \(machine.cpus) CPUs, \(machine.cpuModel), \(machine.swift), \(machine.build)")
        lines.append(method)
        lines.append("x closure: figure / closure baseline; x Foundation: figure / NotificationCenter block API")
        for scenario in scenarios {
            lines.append("")
            lines.append("\(scenario.title) [\(scenario.id)]: \(scenario.operation)")
            lines.append(
                "  " + pad("implementation", nameWidth) + leftPad(scenario.unit.column, 12)
                    + leftPad("x closure", 11) + leftPad("x Foundation", 14))
            for row in scenario.rows {
                var line = "  " + pad(row.name, nameWidth)
                if let value = row.value {
                    line += leftPad(format(value, scenario.unit), 12)
                    line += leftPad(row.ratioToClosure.map(formatRatio) ?? "", 11)
                    line += leftPad(row.ratioToFoundation.map(formatRatio) ?? "", 14)
                    if let detail = row.detail { line += "  " + detail }
                } else {
                    line += "  " + row.status
                }
                lines.append(String(line.reversed().drop { $0 == " " }.reversed()))
            }
            if let note = scenario.note { lines.append("  note: " + note) }
            for target in [scenario.target].compactMap({ $0 }) + scenario.additionalTargets {
                let figure = target.figure.map { target.format($0) } ?? "-"
                lines.append("  target: \(target.goal): \(figure) -> \(target.verdict)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension Target {
    func format(_ figure: Double) -> String {
        switch kind {
        case .ratio: formatRatio(figure)
        case .allocations: formatAllocations(figure)
        case .bytes: formatFigure(figure)
        }
    }
}

private let nameWidth = 56

private func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

private func leftPad(_ text: String, _ width: Int) -> String {
    text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
}

private func format(_ value: Double, _ unit: ScenarioReport.Unit) -> String {
    switch unit {
    case .nanosecondsPerOperation, .bytesPerRegistration:
        formatFigure(value)
    case .allocationsPerOperation:
        formatAllocations(value)
    case .throughputRatio:
        formatRatio(value)
    }
}

/// Three significant figures or so, without exponents.
func formatFigure(_ value: Double) -> String {
    if value == 0 { return "0" }
    let magnitude = abs(value)
    if magnitude < 10 { return String(format: "%.2f", value) }
    if magnitude < 1_000 { return String(format: "%.1f", value) }
    return String(format: "%.0f", value)
}

/// Zero as "0", so that a rare allocation (1 in 100,000 calls) never rounds to "0.00".
func formatAllocations(_ value: Double) -> String {
    value == 0 ? "0" : value < 0.01 ? String(format: "%.5f", value) : String(format: "%.2f", value)
}

func formatRatio(_ value: Double) -> String {
    if value < 0.1 { return String(format: "%.3fx", value) }
    return value < 10 ? String(format: "%.2fx", value) : String(format: "%.1fx", value)
}
