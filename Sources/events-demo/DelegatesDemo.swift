import Events

// Multicast delegates, in pure Swift: a table view has one `delegate` slot and one `dataSource`
// slot, both weak, as in UIKit. Forwarding proxies sit in those slots and fan every call out
// through a `MulticastDelegate`, so a view controller, an analytics logger and a selection
// highlighter all hear the same taps, and two data sources fill the table together.

/// Prints the demo's timeline: how one delegate slot serves many listeners.
func runDelegatesDemo() {
    let timeline = Timeline("delegates: one table view delegate slot, many listeners")
    let table = DemoTableView(timeline: timeline)

    timeline.step("Put forwarding proxies into the table's single delegate and data source slots")
    // The slots are weak, so the owner (here: this function, usually the view controller)
    // keeps the proxies alive.
    let delegateFanOut = TableDelegateFanOut()
    let dataSourceFanOut = TableDataSourceFanOut()
    table.delegate = delegateFanOut
    table.dataSource = dataSourceFanOut

    timeline.step("Register listeners: order of addition is order of invocation; duplicates are ignored")
    let controller = ScreenController(timeline: timeline)
    let analytics = AnalyticsLogger(timeline: timeline)
    var highlighter: SelectionHighlighter? = SelectionHighlighter(timeline: timeline)
    let tip = OnboardingTip(timeline: timeline)
    delegateFanOut.listeners += controller
    delegateFanOut.listeners += analytics
    delegateFanOut.listeners += highlighter!
    delegateFanOut.listeners += tip
    let addedAgain = delegateFanOut.listeners.add(controller)
    timeline.note("adding the controller a second time returns \(addedAgain)")
    timeline.note("\(delegateFanOut.listeners.count) listeners behind one delegate slot")

    let favorites = RowSource(name: "favorites", rows: ["Home", "Work"], timeline: timeline)
    let recents = RowSource(name: "recents", rows: ["Café Lumen", "Station", "Library"], timeline: timeline)
    dataSourceFanOut.sources += favorites
    dataSourceFanOut.sources += recents

    timeline.step("Reload: row count by reduce, titles by firstNonNil, heights by firstNonNil with a fallback")
    table.reloadData()

    timeline.step("Tap row 1: every listener hears it; the tip removes itself during the call")
    table.tap(row: 1)
    timeline.note("the tip is still registered: \(delegateFanOut.listeners.contains(tip))")

    timeline.step("Tap row 3: analytics adds a session recorder while being called")
    analytics.startsSessionOnNextTap = true
    table.tap(row: 3)
    timeline.note("the recorder joined after the snapshot was taken, so it hears only later taps")

    timeline.step("Tap row 4: the recorder is called now, last, in order of addition")
    table.tap(row: 4)

    timeline.step("The highlighter goes away: it is held weakly, nobody removes it")
    highlighter = nil
    table.tap(row: 0)
    timeline.note("\(delegateFanOut.listeners.count) listeners left")

    timeline.step("Gather every listener's opinion with compactMap")
    let verdicts = delegateFanOut.listeners.compactMap { $0.reason(toHideRow: 2) }
    timeline.note("reasons to hide row 2: \(verdicts)")

    // Everything registered above is held weakly; keep it alive until the demo ends.
    withExtendedLifetime((table, delegateFanOut, dataSourceFanOut, controller, analytics, tip, favorites, recents)) {}
}

// MARK: - A UIKit stand-in

private protocol DemoTableViewDelegate: AnyObject {
    func tableView(_ tableView: DemoTableView, didSelectRow row: Int)
    /// nil means "no opinion"; the table uses its default height.
    func tableView(_ tableView: DemoTableView, heightOfRow row: Int) -> Int?
    /// nil means "no objection".
    func reason(toHideRow row: Int) -> String?
}

extension DemoTableViewDelegate {
    func tableView(_ tableView: DemoTableView, heightOfRow row: Int) -> Int? { nil }
    func reason(toHideRow row: Int) -> String? { nil }
}

private protocol DemoTableViewDataSource: AnyObject {
    func numberOfRows(in tableView: DemoTableView) -> Int
    func tableView(_ tableView: DemoTableView, titleOfRow row: Int) -> String
}

/// A table view with UIKit's shape: one weak delegate, one weak data source.
private final class DemoTableView {
    weak var delegate: (any DemoTableViewDelegate)?
    weak var dataSource: (any DemoTableViewDataSource)?
    private let timeline: Timeline

    init(timeline: Timeline) { self.timeline = timeline }

    func reloadData() {
        guard let dataSource else { return }
        let rows = dataSource.numberOfRows(in: self)
        timeline.note("table asks for the row count and gets \(rows)")
        for row in 0..<rows {
            let title = dataSource.tableView(self, titleOfRow: row)
            let height = delegate?.tableView(self, heightOfRow: row) ?? 44
            timeline.note("row \(row): \(title) (\(height) pt)")
        }
    }

    func tap(row: Int) {
        timeline.note("table: row \(row) tapped")
        delegate?.tableView(self, didSelectRow: row)
    }
}

// MARK: - The forwarding proxies

/// Sits in the delegate slot and forwards each call to all listeners.
private final class TableDelegateFanOut: DemoTableViewDelegate {
    let listeners = MulticastDelegate<any DemoTableViewDelegate>()

    func tableView(_ tableView: DemoTableView, didSelectRow row: Int) {
        listeners.invoke { $0.tableView(tableView, didSelectRow: row) }
    }

    // A question: the first listener, in order of addition, with an opinion decides.
    func tableView(_ tableView: DemoTableView, heightOfRow row: Int) -> Int? {
        listeners.firstNonNil { $0.tableView(tableView, heightOfRow: row) }
    }

    func reason(toHideRow row: Int) -> String? {
        listeners.firstNonNil { $0.reason(toHideRow: row) }
    }
}

/// Sits in the data source slot and shows the rows of all sources one after another.
private final class TableDataSourceFanOut: DemoTableViewDataSource {
    let sources = MulticastDelegate<any DemoTableViewDataSource>()

    // A total: every source contributes, so reduce.
    func numberOfRows(in tableView: DemoTableView) -> Int {
        sources.reduce(0) { total, source in total + source.numberOfRows(in: tableView) }
    }

    // Walks the sources in order of addition until the one owning `row` answers.
    func tableView(_ tableView: DemoTableView, titleOfRow row: Int) -> String {
        var remaining = row
        let title = sources.firstNonNil { source -> String? in
            let count = source.numberOfRows(in: tableView)
            guard remaining < count else {
                remaining -= count
                return nil
            }
            return source.tableView(tableView, titleOfRow: remaining)
        }
        return title ?? "?"
    }
}

// MARK: - Listeners

private final class ScreenController: DemoTableViewDelegate {
    private let timeline: Timeline
    init(timeline: Timeline) { self.timeline = timeline }

    func tableView(_ tableView: DemoTableView, didSelectRow row: Int) {
        timeline.call("controller", "opens the detail screen for row \(row)")
    }
}

private final class AnalyticsLogger: DemoTableViewDelegate {
    private let timeline: Timeline
    var startsSessionOnNextTap = false
    private(set) var recorder: SessionRecorder?

    init(timeline: Timeline) { self.timeline = timeline }

    func tableView(_ tableView: DemoTableView, didSelectRow row: Int) {
        timeline.call("analytics", "logs tap on row \(row)")
        if startsSessionOnNextTap, let fanOut = tableView.delegate as? TableDelegateFanOut {
            startsSessionOnNextTap = false
            let recorder = SessionRecorder(timeline: timeline)
            self.recorder = recorder
            fanOut.listeners += recorder
            timeline.call("analytics", "adds a session recorder")
        }
    }

    func reason(toHideRow row: Int) -> String? { row == 2 ? "rarely tapped" : nil }
}

private final class SelectionHighlighter: DemoTableViewDelegate {
    private let timeline: Timeline
    init(timeline: Timeline) { self.timeline = timeline }

    func tableView(_ tableView: DemoTableView, didSelectRow row: Int) {
        timeline.call("highlighter", "highlights row \(row)")
    }

    func tableView(_ tableView: DemoTableView, heightOfRow row: Int) -> Int? { row == 0 ? 60 : nil }

    deinit { timeline.call("highlighter", "deinit (its entry is pruned on the next call)") }
}

/// Shown once: removes itself from the listeners the first time it is called.
private final class OnboardingTip: DemoTableViewDelegate {
    private let timeline: Timeline
    init(timeline: Timeline) { self.timeline = timeline }

    func tableView(_ tableView: DemoTableView, didSelectRow row: Int) {
        timeline.call("tip", "shows \"Swipe left to delete\" and removes itself")
        (tableView.delegate as? TableDelegateFanOut)?.listeners -= self
    }
}

private final class SessionRecorder: DemoTableViewDelegate {
    private let timeline: Timeline
    init(timeline: Timeline) { self.timeline = timeline }

    func tableView(_ tableView: DemoTableView, didSelectRow row: Int) {
        timeline.call("recorder", "records tap on row \(row)")
    }

    func reason(toHideRow row: Int) -> String? { "row \(row) has too few taps to judge yet" }
}

private final class RowSource: DemoTableViewDataSource {
    let name: String
    let rows: [String]
    private let timeline: Timeline

    init(name: String, rows: [String], timeline: Timeline) {
        self.name = name
        self.rows = rows
        self.timeline = timeline
    }

    func numberOfRows(in tableView: DemoTableView) -> Int { rows.count }

    func tableView(_ tableView: DemoTableView, titleOfRow row: Int) -> String { "\(rows[row]) [\(name)]" }
}
