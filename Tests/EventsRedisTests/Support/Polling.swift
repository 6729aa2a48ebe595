/// Polls `condition` every few milliseconds until it holds or `timeout` passes; returns whether
/// it held. For waiting on another process (a server state) where no event can be awaited.
func eventually(
    timeout: Duration = .seconds(5), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}
