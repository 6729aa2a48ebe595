import Foundation
import Testing

@testable import Events

/// The center against the reference model (`ReferenceModel`): random operations, generated from
/// a seed, applied to both; after every one, the handlers that ran (which, in which order, with
/// which event, sender and owner), what `dispatch` and `listen` returned, `listenerCount` of
/// every target and `isActive` of every subscription must agree.
///
/// Replay a failure with the seed it prints:
/// `EVENTS_MODEL_SEED=0x... swift test --filter CoreModelTests`. `EVENTS_MODEL_OPS` sets the
/// number of operations (by default 300,000 off the main actor and 30,000 on it, fewer under a
/// sanitizer); `scripts/model.sh` runs them long. The runs in `swift test` are kept short:
/// they share two cores with the whole suite, and the ones on the main actor hold it, which
/// slows every test that waits for a main-actor delivery.
// A time limit, so that a run that never ends fails with its seed printed (each run prints its
// seed before it starts) instead of holding up the whole suite.
@Suite("Model-based randomized test of the core", .timeLimit(.minutes(8)))
struct CoreModelTests {
    static let offMainContexts: [ModelContext] = [
        .posting, .serialQueue, .concurrentQueue, .operationQueue, .background, .actor,
    ]
    static let mainActorContexts: [ModelContext] = offMainContexts + [.main, .mainOrdered]

    @Test("the center agrees with the model after every operation, dispatching off the main actor")
    func agreesOffTheMainActor() async {
        let seed = ModelRunSettings.seed()
        let count = ModelRunSettings.operations(plain: 300_000, sanitized: 50_000)
        let contexts = ModelRunSettings.contexts(Self.offMainContexts)
        // Two independent runs (seeds `seed` and `seed + 1`, half the operations each) on
        // threads of their own: the machine has two cores, and the run waits for actor
        // listeners, whose tasks need the concurrency pool.
        let runs = 2
        print("model run off the main actor: seeds \(ModelRunSettings.hex(seed)) and +1, starting")
        let start = ContinuousClock.now
        let boxes = (0..<runs).map { _ in ResultBox() }
        await runOnThreads(runs) { run in
            boxes[run].result = ModelRunner.run(
                seed: seed &+ UInt64(run), count: count / runs + (run < count % runs ? 1 : 0), contexts: contexts)
        }
        let operations = boxes.reduce(0) { $0 + $1.result!.operations }
        print(
            "model run off the main actor: seeds \(ModelRunSettings.hex(seed)) and +1, \(operations) operations"
                + " in \(ContinuousClock.now - start)")
        for run in 0..<runs {
            let result = boxes[run].result!
            guard let divergence = result.divergence else { continue }
            let shrunk: (operations: [ModelOperation], divergence: ModelDivergence)?
            if let history = result.history {
                shrunk = await ModelRunner.shrink(history, like: divergence) { operations in
                    let replayed = ResultBox()
                    await runOnThreads(1) { _ in replayed.divergence = ModelRunner.replay(operations) }
                    return replayed.divergence
                }
            } else {
                shrunk = nil
            }
            Issue.record(Comment(rawValue: report(seed: seed &+ UInt64(run), result, shrunk)))
        }
    }

    @MainActor
    @Test("the center agrees with the model after every operation, dispatching on the main actor")
    func agreesOnTheMainActor() async {
        let seed = ModelRunSettings.seed()
        let count = ModelRunSettings.operations(plain: 30_000, sanitized: 5_000)
        print("model run on the main actor: seed \(ModelRunSettings.hex(seed)), starting")
        let start = ContinuousClock.now
        let result = await ModelRunner.runOnMainActor(
            seed: seed, count: count, contexts: ModelRunSettings.contexts(Self.mainActorContexts))
        print(
            "model run on the main actor: seed \(ModelRunSettings.hex(seed)), \(result.operations) operations"
                + " in \(ContinuousClock.now - start)")
        guard let divergence = result.divergence else { return }
        var shrunk: (operations: [ModelOperation], divergence: ModelDivergence)?
        if let history = result.history {
            shrunk = await ModelRunner.shrink(history, like: divergence) { operations in
                await ModelRunner.replayOnMainActor(operations)
            }
        }
        Issue.record(Comment(rawValue: report(seed: seed, result, shrunk)))
    }

    /// The same lockstep with every diagnostic on and a tracer installed: the observed dispatch
    /// loop, which times, counts and traces, must keep every rule the plain loop keeps.
    @Test("with every diagnostic on and a tracer installed, the center still agrees with the model")
    func agreesWhenObserved() async {
        let seed = ModelRunSettings.seed() &+ 2
        let count = ModelRunSettings.operations(plain: 30_000, sanitized: 5_000)
        let contexts = ModelRunSettings.contexts(Self.offMainContexts)
        let box = ResultBox()
        print("observed model run: seed \(ModelRunSettings.hex(seed)), starting")
        let start = ContinuousClock.now
        await runOnThreads(1) { _ in
            box.result = ModelRunner.run(seed: seed, count: count, contexts: contexts, observed: true)
        }
        let result = box.result!
        print(
            "observed model run: seed \(ModelRunSettings.hex(seed)), \(result.operations) operations"
                + " in \(ContinuousClock.now - start)")
        guard let divergence = result.divergence else { return }
        var shrunk: (operations: [ModelOperation], divergence: ModelDivergence)?
        if let history = result.history {
            shrunk = await ModelRunner.shrink(history, like: divergence) { operations in
                let replayed = ResultBox()
                await runOnThreads(1) { _ in replayed.divergence = ModelRunner.replay(operations, observed: true) }
                return replayed.divergence
            }
        }
        Issue.record(Comment(rawValue: report(seed: seed, result, shrunk)))
    }

    @MainActor
    @Test("observed on the main actor too, where main-actor listeners run inline, the center agrees with the model")
    func agreesWhenObservedOnTheMainActor() async {
        let seed = ModelRunSettings.seed() &+ 3
        let count = ModelRunSettings.operations(plain: 15_000, sanitized: 2_000)
        print("observed model run on the main actor: seed \(ModelRunSettings.hex(seed)), starting")
        let start = ContinuousClock.now
        let result = await ModelRunner.runOnMainActor(
            seed: seed, count: count, contexts: ModelRunSettings.contexts(Self.mainActorContexts), observed: true)
        print(
            "observed model run on the main actor: seed \(ModelRunSettings.hex(seed)), \(result.operations)"
                + " operations in \(ContinuousClock.now - start)")
        guard let divergence = result.divergence else { return }
        var shrunk: (operations: [ModelOperation], divergence: ModelDivergence)?
        if let history = result.history {
            shrunk = await ModelRunner.shrink(history, like: divergence) { operations in
                await ModelRunner.replayOnMainActor(operations, observed: true)
            }
        }
        Issue.record(Comment(rawValue: report(seed: seed, result, shrunk)))
    }

    /// Short, fixed runs of what the random ones found once, so that they are checked on every
    /// run whatever the seed: an event claimed by a `once` listener and still queued must not
    /// run after a `remove` of its owner (or a `cancel()`) returned, in each queued context, for
    /// event types and names.
    @Test(
        "a claimed once event still queued does not run after remove or cancel returned",
        arguments: [ModelContext.serialQueue, .concurrentQueue, .operationQueue, .background, .actor])
    func queuedOnceEventStopsAtRemove(context: ModelContext) async {
        for (target, ending) in [(ModelTarget.a, 0), (.name0, 0), (.a, 1), (.b, 2), (.a, 3)] {
            let owner = context == .actor ? ModelObjectKind.actor : .owner
            let listener = ModelListenerSpec(
                id: 1, target: target, context: context, owner: 1, key: ending == 2 ? 0 : nil, sender: nil,
                priority: 0, once: true, takesSender: false, action: .none)
            let end: ModelOperation =
                switch ending {
                case 0: .remove(ModelRemoval(owner: 1, kind: .all))
                case 1: .remove(ModelRemoval(owner: 1, kind: .target(target)))
                case 2: .remove(ModelRemoval(owner: 1, kind: .keyAndTarget(0, target)))
                default: .cancel(listener: 1)
                }
            let operations: [ModelOperation] = [
                .create(tag: 1, kind: owner), .listen(listener), .dispatch(target, sender: nil), end,
                .drain(context.executor!),
            ]
            let box = ResultBox()
            await runOnThreads(1) { _ in box.divergence = ModelRunner.replay(operations) }
            #expect(box.divergence == nil, "\(operations.map(\.description)): \(box.divergence?.description ?? "")")
        }
    }

    /// An event queued for an actor listener waits for the actor; if the listener is cancelled
    /// or removed meanwhile, it must be skipped when its turn comes, as in every other queued
    /// context.
    @Test("an actor listener's queued event does not run after cancel or remove returned")
    func queuedActorEventStopsAtCancel() async {
        for (target, ending) in [(ModelTarget.a, 0), (.name1, 0), (.b, 1), (.name0, 1)] {
            let listener = ModelListenerSpec(
                id: 1, target: target, context: .actor, owner: 1, key: nil, sender: nil, priority: 0, once: false,
                takesSender: false, action: .none)
            let operations: [ModelOperation] = [
                .create(tag: 1, kind: .actor), .listen(listener), .dispatch(target, sender: nil),
                .dispatch(target, sender: nil),
                ending == 0 ? .cancel(listener: 1) : .remove(ModelRemoval(owner: 1, kind: .all)), .drain(.actors),
            ]
            let box = ResultBox()
            await runOnThreads(1) { _ in box.divergence = ModelRunner.replay(operations) }
            #expect(box.divergence == nil, "\(operations.map(\.description)): \(box.divergence?.description ?? "")")
        }
    }

    /// The main-actor twin (`.mainOrdered`: a `.main` listener's event dispatched on the main
    /// actor runs inline, so it is never queued there).
    @MainActor
    @Test("a claimed once event queued for the main actor does not run after remove or cancel returned")
    func queuedMainActorOnceEventStopsAtRemove() async {
        for (target, ending) in [(ModelTarget.a, 0), (.name0, 0), (.a, 1)] {
            let listener = ModelListenerSpec(
                id: 1, target: target, context: .mainOrdered, owner: 1, key: nil, sender: nil, priority: 0,
                once: true, takesSender: false, action: .none)
            let operations: [ModelOperation] = [
                .create(tag: 1, kind: .owner), .listen(listener), .dispatch(target, sender: nil),
                ending == 0 ? .remove(ModelRemoval(owner: 1, kind: .all)) : .cancel(listener: 1), .drain(.main),
            ]
            let divergence = await ModelRunner.replayOnMainActor(operations)
            #expect(divergence == nil, "\(operations.map(\.description)): \(divergence?.description ?? "")")
        }
    }

    private func report(
        seed: UInt64, _ result: ModelRunResult, _ shrunk: (operations: [ModelOperation], divergence: ModelDivergence)?
    ) -> String {
        var lines = [
            "The center diverged from the reference model (seed \(ModelRunSettings.hex(seed)); replay with "
                + "EVENTS_MODEL_SEED=\(ModelRunSettings.hex(seed)) swift test --filter CoreModelTests)",
            result.divergence!.description,
            "The last operations:",
        ]
        lines += result.tail.map { "    " + $0 }
        let related = result.related()
        if !related.isEmpty {
            lines.append("The operations that name its listeners and objects:")
            lines += related.suffix(40).map { "    " + $0 }
        }
        if let shrunk {
            lines.append("Shrunk to \(shrunk.operations.count) operations, replayed on a fresh center:")
            lines += shrunk.operations.enumerated().map { "    \($0.offset): \($0.element)" }
            lines.append(shrunk.divergence.description)
        }
        return lines.joined(separator: "\n")
    }
}

/// Carries a result out of a thread started by `runOnThreads`.
final class ResultBox: @unchecked Sendable {
    // Why @unchecked is safe: written by the one thread `runOnThreads` starts, read after
    // `runOnThreads` returned, which waited for that thread (a happens-before edge).
    var result: ModelRunResult?
    var divergence: ModelDivergence?
}
