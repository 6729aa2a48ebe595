import Foundation
package import Testing

/// Runs the tests it is given one at a time, across test targets: for the tests that start a
/// local Redis Cluster, in `EventsRedisClientTests` (the client on a cluster) and in
/// `EventsRedisTests` (the bridge on one).
///
/// Each of those suites is `.serialized`, but that orders only the tests of one suite. All test
/// targets run in one process, so without this a client cluster test and a bridge cluster test
/// would run at once: each starts several servers, and two clusters at once starve the rest of
/// the run on a small machine.
///
/// ```swift
/// @Suite("Redis Cluster topologies", .serialized, .oneClusterAtATime)
/// enum ClusterTopologyTests {}
/// ```
///
/// Rules: it applies to every test function of the suite and of the suites nested in it; a
/// test waits (suspended, holding no thread) until the one before it has finished.
package struct OneClusterAtATime: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        await Self.turn.enter()
        defer { Self.turn.leave() }
        try await function()
    }

    /// The one turn every cluster test of the process waits for.
    private static let turn = Turn()
}

extension Trait where Self == OneClusterAtATime {
    /// Runs the suite's tests one at a time with every other suite that has this trait, in any
    /// test target: see ``OneClusterAtATime``.
    package static var oneClusterAtATime: Self { OneClusterAtATime() }
}

/// A turn that one task holds at a time; the others wait for it in order of arrival.
private final class Turn: Sendable {
    private struct State {
        var isTaken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var state = State()

    /// Waits until the turn is free, then takes it.
    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let taken: Bool = lock.withLock {
                guard state.isTaken else {
                    state.isTaken = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            // Resumed after unlocking, as every continuation here is.
            if taken { continuation.resume() }
        }
    }

    /// Hands the turn to the next waiting task, or frees it.
    func leave() {
        let next: CheckedContinuation<Void, Never>? = lock.withLock {
            guard !state.waiting.isEmpty else {
                state.isTaken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
