extension EventCenter {
    /// Sends a handler's error to the error handler and, for an awaitable dispatch, to its report.
    @usableFromInline
    func reportThrown(_ error: any Error, by listener: ListenerRecord, to collector: ReportCollector?, queued: Bool) {
        diagnosticsState.countFailure(of: listener)
        // The observed dispatch loop reads this to tell a failed handler from one that returned.
        if isObserved { DispatchFrames.current.failed = true }
        let failure = self.failure(of: listener, error)
        reportFailure(failure)
        collector?.recordRun(failure, queued: queued)
    }

    @usableFromInline
    func failure(of listener: ListenerRecord, _ error: any Error) -> ListenerFailure {
        ListenerFailure(error: error, event: listener.eventDescription, callSite: listener.callSite)
    }

    @usableFromInline
    func reportFailure(_ failure: ListenerFailure) {
        errorHandlerBox.value(failure)
    }
}
