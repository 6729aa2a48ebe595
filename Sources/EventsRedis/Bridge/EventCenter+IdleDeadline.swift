import Events

extension EventCenter {
    /// Waits, as `idle()` does, for the deliveries queued before the call, but not past
    /// `deadline`: true when they all ran, false when the deadline came first.
    func idle(until deadline: ContinuousClock.Instant) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.idle()
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            // Cancelling the other ends it at once: `idle()` returns when its task is cancelled.
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
