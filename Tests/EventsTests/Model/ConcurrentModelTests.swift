import Foundation
import Synchronization
import Testing

@testable import Events

/// What must hold when several threads use one center at once, checked on real threads:
/// two threads dispatch while two others register listeners in every context and end them
/// every way there is.
///
/// - No handler receives an event whose dispatch began after its listener's `cancel()`,
///   removal or owner's deinit returned (a call claimed before is allowed, as documented: an
///   event dispatched before the end may still arrive).
/// - A queued listener ended on its own serial executor starts no queued call after that.
/// - A `once` listener runs at most once; one that is never ended runs exactly once.
/// - A permanent listener runs exactly once per matching dispatch, and receives each
///   dispatching thread's events in order; `dispatch` never returns less than the permanent
///   listeners it must reach.
///
/// Seeded like the single-threaded model (`EVENTS_MODEL_SEED`), which fixes the mix of
/// operations but not how the threads interleave.
@Suite("Concurrent model: the rules that hold under concurrency", .timeLimit(.minutes(8)))
struct ConcurrentModelTests {
    static let contexts: [ModelContext] = [
        .posting, .serialQueue, .concurrentQueue, .operationQueue, .background, .actor, .main, .mainOrdered,
    ]

    @Test("no handler starts after its listener ended, once runs at most once, permanent listeners count exactly")
    func rulesHoldUnderConcurrency() async {
        let seed = ModelRunSettings.seed()
        print("concurrent model run: seed \(ModelRunSettings.hex(seed)), starting")
        let dispatchesEach = ModelRunSettings.underSanitizer ? 3_000 : 30_000
        let minimumChurn = ModelRunSettings.underSanitizer ? 300 : 3_000
        let dispatchers = 2
        let contexts = ModelRunSettings.contexts(Self.contexts)
        let harness = ConcurrentHarness(seed: seed, dispatchers: dispatchers)
        harness.registerPermanentListeners(contexts: contexts)
        let permanentTyped = harness.center.listenerCount(for: StampedEvent.self)
        let start = ContinuousClock.now
        await runOnThreads(dispatchers + 2) { thread in
            if thread < dispatchers {
                harness.dispatch(from: thread, count: dispatchesEach, minimumChurn: minimumChurn)
            } else {
                harness.churn(thread - dispatchers, contexts: contexts)
            }
        }
        #expect(await harness.settle(), "every queued delivery had its turn")
        print(
            "concurrent model run: seed \(ModelRunSettings.hex(seed)), \(harness.dispatchedCount) dispatches, "
                + "\(harness.churned.load(ordering: .relaxed)) listeners churned, in \(ContinuousClock.now - start)")
        let violations = harness.violations()
        #expect(
            violations.isEmpty,
            Comment(
                rawValue: "seed \(ModelRunSettings.hex(seed)) (EVENTS_MODEL_SEED=\(ModelRunSettings.hex(seed))):\n"
                    + violations.prefix(20).joined(separator: "\n")))
        // Once listeners that fired are gone; every other permanent listener is still there.
        #expect(harness.center.listenerCount(for: StampedEvent.self) == permanentTyped - (contexts.count))
        harness.finish()
    }
}
