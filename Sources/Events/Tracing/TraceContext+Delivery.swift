extension TraceContext {
    /// Runs a queued delivery's `body` with `context`, read when the event was dispatched, as
    /// ``current``. A dispatch queue's block starts outside any trace, so a delivery queued
    /// outside one needs no binding.
    @inline(__always)
    static func restoring(_ context: TraceContext?, _ body: () -> Void) {
        if let context {
            $storage.withValue(context, operation: body)
        } else {
            body()
        }
    }

    /// `restoring` for a job run by an actor mailbox's drain task: that task inherited the
    /// task-local values of the dispatch that started it, which may not be this job's, so a job
    /// dispatched outside any trace clears an inherited one.
    static func restoring(_ context: TraceContext?, _ body: () async -> Void) async {
        if context != nil || current != nil {
            await $storage.withValue(context, operation: body)
        } else {
            await body()
        }
    }
}
