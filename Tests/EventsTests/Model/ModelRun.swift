import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the center first disagreed with the model.
struct ModelDivergence: CustomStringConvertible, Sendable {
    /// The index of the operation after which it was seen (from 0).
    let index: Int
    let operation: String
    /// What disagreed: the handlers that ran, a return value, or what the center reports.
    let category: String
    let expected: String
    let actual: String

    var description: String {
        """
        after operation \(index), \(operation):
            \(category) differ
            model:  \(expected)
            center: \(actual)
        """
    }
}

/// The model and the real center, stepped together, compared after every operation.
final class ModelLockstep {
    let model: ReferenceModel
    let driver: CenterDriver

    init(onMainActor: Bool, observed: Bool = false) {
        model = ReferenceModel(dispatchesOnMainActor: onMainActor)
        driver = CenterDriver(onMainActor: onMainActor, observed: observed)
    }

    /// Applies `operation` to both sides (anything but draining the main queue) and compares.
    func step(_ operation: ModelOperation, index: Int) -> ModelDivergence? {
        let expected = model.apply(operation)
        let actual = driver.apply(operation)
        return compare(operation, index: index, expected, actual)
    }

    /// Applies `operation` to both sides, on the main actor, where the main queue can be drained.
    @MainActor
    func stepOnMainActor(_ operation: ModelOperation, index: Int) async -> ModelDivergence? {
        guard case .drain(.main) = operation else { return step(operation, index: index) }
        let expected = model.apply(operation)
        let actual = await driver.drainMainQueue()
        return compare(operation, index: index, expected, actual)
    }

    private func compare(
        _ operation: ModelOperation, index: Int, _ expected: ModelOutcome, _ actual: ModelOutcome
    ) -> ModelDivergence? {
        func divergence(_ category: String, _ expected: String, _ actual: String) -> ModelDivergence {
            ModelDivergence(
                index: index, operation: operation.description, category: category, expected: expected,
                actual: actual)
        }
        if let failure = driver.harnessFailure { return divergence("the driver's own steps", "none", failure) }
        if case .drain = operation {
            // Queued listeners keep their own order (per-listener FIFO); how the executor
            // interleaves two listeners is not specified.
            let expectedRuns = Dictionary(grouping: expected.entries) { $0.listener ?? 0 }
            let actualRuns = Dictionary(grouping: actual.entries) { $0.listener ?? 0 }
            if expectedRuns != actualRuns {
                return divergence("queued handler calls", describe(expectedRuns), describe(actualRuns))
            }
        } else if expected.entries != actual.entries {
            return divergence("handler calls", describe(expected.entries), describe(actual.entries))
        }
        if expected.delivered != actual.delivered {
            return divergence(
                "dispatch's return values", "\(expected.delivered.map(String.init) ?? "-")",
                "\(actual.delivered.map(String.init) ?? "-")")
        }
        if expected.registeredAs != actual.registeredAs {
            return divergence(
                "the subscriptions listen returned", expected.registeredAs.map { "L\($0)" } ?? "nothing registered",
                actual.registeredAs.map { "L\($0)" } ?? "nothing registered")
        }
        let expectedView = model.observe()
        let actualView = driver.observe(held: expectedView.held)
        if expectedView != actualView {
            return divergence("listenerCount or isActive", expectedView.description, actualView.description)
        }
        // Listeners that ended with nothing queued behave like forgotten ones; forgetting a few
        // keeps the run's population, and so the cost of each step, bounded.
        if model.registeredCount - model.activeListenerCount > 8 {
            let forgettable = model.forgettable()
            for id in forgettable.prefix(forgettable.count - 3) {
                model.forget(id)
                driver.forget(id)
            }
        }
        return nil
    }

    private func describe(_ entries: [ModelEntry]) -> String {
        entries.isEmpty ? "(nothing)" : entries.map(\.description).joined(separator: "; ")
    }

    private func describe(_ runs: [Int: [ModelEntry]]) -> String {
        runs.isEmpty ? "(nothing)" : runs.keys.sorted().map { describe(runs[$0]!) }.joined(separator: "; ")
    }
}

/// What one model run did.
struct ModelRunResult: Sendable {
    var operations = 0
    var divergence: ModelDivergence?
    /// Every operation up to the divergence, when it came early enough to be kept (for shrinking).
    var history: [ModelOperation]?
    /// The last operations before the divergence.
    var tail: [String] = []

    /// The operations of the history that name a listener or an object the divergence names.
    func related() -> [String] {
        guard let divergence, let history else { return [] }
        let text = divergence.description
        var names: Set<String> = []
        for prefix in ["L", "#"] {
            var rest = Substring(text)
            while let start = rest.firstIndex(of: Character(prefix)) {
                let digits = rest[rest.index(after: start)...].prefix { $0.isNumber }
                if !digits.isEmpty { names.insert(prefix + digits) }
                rest = rest[rest.index(after: start)...]
            }
        }
        return history.enumerated().compactMap { index, operation in
            let words = Set(operation.description.split { !$0.isNumber && $0 != "L" && $0 != "#" }.map(String.init))
            return words.isDisjoint(with: names) ? nil : "\(index): \(operation)"
        }
    }
}

/// Runs and replays model runs.
enum ModelRunner {
    /// Operations kept for shrinking a divergence; a later one is reported with its tail only.
    static let keptHistory = 200_000
    static let tailLength = 25

    /// Generates and runs `count` operations on this thread, stopping at the first divergence.
    static func run(seed: UInt64, count: Int, contexts: [ModelContext], observed: Bool = false) -> ModelRunResult {
        var generator = ModelGenerator(seed: seed, contexts: contexts)
        let lockstep = ModelLockstep(onMainActor: false, observed: observed)
        defer { lockstep.driver.finish() }
        var recorder = HistoryRecorder()
        for index in 0..<count {
            let operation = generator.next(for: lockstep.model)
            recorder.append(operation, at: index)
            if let divergence = lockstep.step(operation, index: index) {
                return recorder.result(operations: index + 1, divergence)
            }
        }
        return ModelRunResult(operations: count)
    }

    /// The main-actor twin of ``run(seed:count:contexts:)``, for runs with main-actor contexts.
    @MainActor
    static func runOnMainActor(
        seed: UInt64, count: Int, contexts: [ModelContext], observed: Bool = false
    ) async -> ModelRunResult {
        var generator = ModelGenerator(seed: seed, contexts: contexts)
        let lockstep = ModelLockstep(onMainActor: true, observed: observed)
        var recorder = HistoryRecorder()
        var result = ModelRunResult(operations: count)
        for index in 0..<count {
            let operation = generator.next(for: lockstep.model)
            recorder.append(operation, at: index)
            if let divergence = await lockstep.stepOnMainActor(operation, index: index) {
                result = recorder.result(operations: index + 1, divergence)
                break
            }
        }
        _ = await lockstep.driver.drainMainQueue()
        lockstep.driver.finish()
        return result
    }

    /// Replays `operations` on a fresh model and center; returns the first divergence.
    static func replay(_ operations: [ModelOperation], observed: Bool = false) -> ModelDivergence? {
        let lockstep = ModelLockstep(onMainActor: false, observed: observed)
        defer { lockstep.driver.finish() }
        for (index, operation) in operations.enumerated() {
            if let divergence = lockstep.step(operation, index: index) { return divergence }
        }
        return nil
    }

    @MainActor
    static func replayOnMainActor(_ operations: [ModelOperation], observed: Bool = false) async -> ModelDivergence? {
        let lockstep = ModelLockstep(onMainActor: true, observed: observed)
        var found: ModelDivergence?
        for (index, operation) in operations.enumerated() {
            if let divergence = await lockstep.stepOnMainActor(operation, index: index) {
                found = divergence
                break
            }
        }
        _ = await lockstep.driver.drainMainQueue()
        lockstep.driver.finish()
        return found
    }

    /// Removes operations from `operations` while the replay still diverges in the same way
    /// (delta debugging: chunks of half, a quarter, ... down to single operations), within a
    /// budget of replays.
    static func shrink(
        _ operations: [ModelOperation], like original: ModelDivergence, budget: Int = 600,
        timeBudget: Duration = .seconds(60),
        isolation: isolated (any Actor)? = #isolation, replay: ([ModelOperation]) async -> ModelDivergence?
    ) async -> (operations: [ModelOperation], divergence: ModelDivergence)? {
        var current = operations
        guard var divergence = await replay(current), divergence.category == original.category else { return nil }
        var replays = 1
        let deadline = ContinuousClock.now + timeBudget
        var chunk = max(current.count / 2, 1)
        while replays < budget && ContinuousClock.now < deadline {
            var start = 0
            var removedAny = false
            while start < current.count && replays < budget && ContinuousClock.now < deadline {
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, current.count))
                replays += 1
                if let found = await replay(candidate), found.category == original.category {
                    current = candidate
                    divergence = found
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if chunk == 1 && !removedAny { break }
            if !removedAny { chunk = max(chunk / 2, 1) }
        }
        current = Array(current.prefix(divergence.index + 1))
        // Then make each remaining operation as plain as it can be while the divergence stays.
        var index = 0
        while index < current.count && replays < budget && ContinuousClock.now < deadline {
            for simpler in simplifications(of: current[index]) {
                var candidate = current
                candidate[index] = simpler
                replays += 1
                if let found = await replay(candidate), found.category == original.category {
                    current = candidate
                    divergence = found
                }
            }
            index += 1
        }
        // Operations after the divergence cannot matter.
        return (Array(current.prefix(divergence.index + 1)), divergence)
    }

    /// Plainer versions of `operation`, one detail dropped each.
    private static func simplifications(of operation: ModelOperation) -> [ModelOperation] {
        switch operation {
        case .dispatch(let target, .some):
            return [.dispatch(target, sender: nil)]
        case .dispatchFromAnotherThread(let target, let sender):
            return [.dispatch(target, sender: sender)]
        case .listen(let spec):
            var plainer: [ModelListenerSpec] = []
            func without(_ change: (inout ModelListenerSpec) -> Void) {
                var simpler = spec
                change(&simpler)
                if simpler != spec { plainer.append(simpler) }
            }
            without { $0.action = .none }
            without { $0.sender = nil }
            without { $0.priority = 0 }
            without { $0.takesSender = false }
            without { $0.once = false }
            without { $0.key = nil }
            without {
                if $0.context != .actor {
                    $0.owner = nil
                    $0.key = nil
                }
            }
            return plainer.map { .listen($0) }
        default:
            return []
        }
    }
}

/// Keeps the history of a run for shrinking, and its tail for the report.
private struct HistoryRecorder {
    private var history: [ModelOperation]? = []
    private var tail: [(Int, ModelOperation)] = []

    mutating func append(_ operation: ModelOperation, at index: Int) {
        if index < ModelRunner.keptHistory { history?.append(operation) } else { history = nil }
        tail.append((index, operation))
        if tail.count > ModelRunner.tailLength * 2 { tail.removeFirst(tail.count - ModelRunner.tailLength) }
    }

    func result(operations: Int, _ divergence: ModelDivergence) -> ModelRunResult {
        ModelRunResult(
            operations: operations, divergence: divergence, history: history,
            tail: tail.suffix(ModelRunner.tailLength).map { "\($0.0): \($0.1)" })
    }
}

/// How big a model run is and which seed it uses, from the environment.
enum ModelRunSettings {
    /// `EVENTS_MODEL_SEED` (decimal, or hexadecimal with 0x), or a fresh seed.
    static func seed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["EVENTS_MODEL_SEED"] {
            let parsed = text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            guard let parsed else { preconditionFailure("EVENTS_MODEL_SEED must be a number, not \(text)") }
            return parsed
        }
        return UInt64.random(in: 1...UInt64.max)
    }

    /// `EVENTS_MODEL_OPS`, or `plain` (`sanitized` in a build instrumented by a sanitizer,
    /// which runs many times slower).
    static func operations(plain: Int, sanitized: Int) -> Int {
        if let text = ProcessInfo.processInfo.environment["EVENTS_MODEL_OPS"] {
            guard let count = Int(text.filter { $0 != "_" }), count > 0 else {
                preconditionFailure("EVENTS_MODEL_OPS must be a positive number, not \(text)")
            }
            return count
        }
        return underSanitizer ? sanitized : plain
    }

    /// Whether the thread or the address sanitizer instruments this process: their runtimes
    /// define these entry points.
    static let underSanitizer: Bool = {
        let process = dlopen(nil, RTLD_NOW)
        defer { if let process { dlclose(process) } }
        return dlsym(process, "__tsan_init") != nil || dlsym(process, "__asan_init") != nil
    }()

    /// `contexts`, narrowed to those `EVENTS_MODEL_CONTEXTS` names (comma-separated, as the
    /// model prints them: posting, serialQueue, concurrentQueue, operationQueue, background,
    /// actor, main, mainOrdered), to study one divergence without the others.
    static func contexts(_ contexts: [ModelContext]) -> [ModelContext] {
        guard let text = ProcessInfo.processInfo.environment["EVENTS_MODEL_CONTEXTS"] else { return contexts }
        let names = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        let chosen = contexts.filter { $0 == .posting || names.contains($0.name) }
        return chosen
    }

    static func hex(_ seed: UInt64) -> String { "0x" + String(seed, radix: 16, uppercase: true) }
}
