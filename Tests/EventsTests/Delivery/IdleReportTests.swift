import Dispatch
import Testing

@testable import Events

/// Starts `idle(reportingAfter:)` in a task of its own; the reports it makes go to `reports`, and
/// `returned` counts its return.
private func startReportingIdle(
    _ center: EventCenter, after delay: Duration, _ reports: Recorder<IdleReport>, _ returned: Counter
) -> Task<Void, Never> {
    Task.detached {
        await center.idle(reportingAfter: delay) { reports.record($0) }
        returned.increment()
    }
}

@Suite("What a long idle() is waiting for: idle(reportingAfter:)", .timeLimit(.minutes(1)))
struct IdleReportTests {
    @Test("a stream holding an event its consumer has not taken is named in the report, with its call site")
    func untakenStreamEventIsNamed() async {
        let center = EventCenter()
        let line = #line + 1
        let stream = center.events(of: Tick.self)
        center.dispatch(Tick(n: 1))
        let reports = Recorder<IdleReport>()
        let returned = Counter()
        let waiter = startReportingIdle(center, after: .zero, reports, returned)
        #expect(await eventually { reports.values.count == 1 }, "no report came while the event was not taken")
        #expect(returned.value == 0)
        let report = reports.values.first
        #expect(report?.listeners.count == 1, "\(String(describing: report))")
        let listener = report?.listeners.first
        #expect(listener?.event == "Tick")
        #expect(listener?.isStream == true)
        #expect(listener?.context == "stream")
        #expect(listener?.callSite.fileID == #fileID)
        #expect(listener?.callSite.line == line)
        #expect(listener?.pending == 1)
        #expect(
            report?.description
                == "idle() is waiting for 1 listener:\n- stream of Tick made at \(#fileID):\(line): 1 event not taken")
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.n == 1)
        await waiter.value
        #expect(reports.values.count == 1, "reported more than once")
    }

    @Test("a named stream whose listener was removed is named while it still holds events")
    func removedNamedStreamIsNamed() async {
        let center = EventCenter()
        let stream = center.events(named: "report.stream")
        center.dispatch("report.stream", data: 1)
        center.dispatch("report.stream", data: 2)
        center.removeAllListeners(for: EventName("report.stream"))
        let reports = Recorder<IdleReport>()
        let returned = Counter()
        let waiter = startReportingIdle(center, after: .zero, reports, returned)
        #expect(await eventually { reports.values.count == 1 })
        let listener = reports.values.first?.listeners.first
        #expect(listener?.event == "\"report.stream\"")
        #expect(listener?.isStream == true)
        #expect(listener?.pending == 2)
        var received = 0
        for await _ in stream { received += 1 }
        #expect(received == 2)
        await waiter.value
    }

    @Test("deliveries held on a suspended queue are named with the listener's context and count")
    func heldQueueDeliveriesAreNamed() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "report.held")
        queue.suspend()
        let ran = Counter()
        let line = #line + 1
        let subscription = center.listen(to: Tock.self, on: .queue(queue)) { _ in ran.increment() }
        center.dispatch(Tock(n: 1))
        center.dispatch(Tock(n: 2))
        let reports = Recorder<IdleReport>()
        let returned = Counter()
        let waiter = startReportingIdle(center, after: .zero, reports, returned)
        #expect(await eventually { reports.values.count == 1 })
        let listener = reports.values.first?.listeners.first
        #expect(listener?.event == "Tock")
        #expect(listener?.isStream == false)
        #expect(listener?.context == "queue report.held")
        #expect(listener?.callSite.line == line)
        #expect(listener?.pending == 2)
        #expect(
            listener?.description
                == "listener to Tock on queue report.held, registered at \(#fileID):\(line): 2 deliveries not run")
        queue.resume()
        await waiter.value
        #expect(ran.value == 2)
        withExtendedLifetime(subscription) {}
    }

    @Test("a wait that ends before the delay reports nothing")
    func quickWaitReportsNothing() async {
        let center = EventCenter()
        let ran = Counter()
        let subscription = center.listen(to: Tick.self, on: .background) { _ in ran.increment() }
        center.dispatch(Tick(n: 1))
        let reports = Recorder<IdleReport>()
        await center.idle(reportingAfter: .seconds(3600)) { reports.record($0) }
        #expect(ran.value == 1)
        #expect(reports.values.isEmpty)
        // Nothing pending: returns at once, without a report.
        await center.idle(reportingAfter: .zero) { reports.record($0) }
        #expect(reports.values.isEmpty)
        withExtendedLifetime(subscription) {}
    }
}
