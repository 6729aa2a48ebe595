import EventsRedis

/// Runs `queue` while the server of `client` holds every write command (`PUBLISH` and `XADD`
/// among them), then lets them go, so that what a bridge publishes meanwhile waits in its queue
/// however slowly the machine runs, and goes out in the batches that a backlog makes.
///
/// A pause of a fixed length was not enough: on a loaded machine dispatching a burst outlasted
/// it, and the burst went out in small batches. The pause's own limit only ends one that a
/// failed test never lifted. `client` itself sends only `CLIENT` commands, which the pause lets
/// through.
func withWritesHeld<T>(by client: RedisClient, _ queue: () throws -> T) async throws -> T {
    _ = try await client.send("CLIENT", "PAUSE", "30000", "WRITE")
    let result: T
    do {
        result = try queue()
    } catch {
        _ = try? await client.send("CLIENT", "UNPAUSE")
        throw error
    }
    _ = try await client.send("CLIENT", "UNPAUSE")
    return result
}
