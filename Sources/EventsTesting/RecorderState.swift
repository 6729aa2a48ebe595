import Events
import Synchronization

/// What an ``EventRecorder`` holds behind its lock: the records, how many of them the test has
/// consumed, and the tasks waiting for more.
///
/// Every transition runs under the lock and returns the continuations to resume, which the
/// caller resumes after unlocking.
struct RecorderState<E: Event> {
    /// Everything recorded, in order.
    var records: [RecordedEvent<E>] = []
    /// `records[..<consumed]` have been handed to the test (by `next`, `waitFor`, `expect`).
    var consumed = 0
    /// Set by `stop()`: nothing more is recorded, and every wait ends.
    var isStopped = false
    /// The tasks waiting for `records.count` to reach a minimum, by wait.
    var waiters: [UInt64: Waiter] = [:]
    var nextWaiterID: UInt64 = 0

    /// One wait. It is registered before its task suspends, so that an event, a timeout or a
    /// cancellation arriving in between is not lost: the outcome waits in `finished`.
    struct Waiter {
        let minimumCount: Int
        var phase: Phase
    }

    enum Phase {
        case waiting(CheckedContinuation<Void, any Error>?)
        case finished(Result<Void, any Error>)
    }

    typealias Resumption = (CheckedContinuation<Void, any Error>, Result<Void, any Error>)

    /// Appends a record; returns the waits it satisfies that are suspended.
    mutating func append(_ event: E, sender: RecordedSender?) -> [Resumption] {
        guard !isStopped else { return [] }
        let sequence = recordingSequence.wrappingAdd(1, ordering: .relaxed).oldValue
        records.append(RecordedEvent(event: event, index: records.count, sequence: sequence, sender: sender))
        let count = records.count
        return finishWaiters(with: .success(())) { $0.minimumCount <= count }
    }

    /// Stops recording; returns every suspended wait, to resume with `error(minimumCount)`.
    mutating func stop(_ error: (Int) -> any Error) -> [Resumption] {
        isStopped = true
        var resumptions: [Resumption] = []
        for (id, waiter) in waiters {
            if let resumption = finish(id, with: .failure(error(waiter.minimumCount))) {
                resumptions.append(resumption)
            }
        }
        return resumptions
    }

    /// Registers a wait for `minimumCount` records, or returns nil when there is nothing to
    /// wait for (`.success`) or nothing can come (`.failure`, with the error to throw).
    mutating func register(minimumCount: Int, stopped: () -> any Error) -> Result<UInt64, any Error>? {
        if records.count >= minimumCount { return nil }
        if isStopped { return .failure(stopped()) }
        nextWaiterID += 1
        waiters[nextWaiterID] = Waiter(minimumCount: minimumCount, phase: .waiting(nil))
        return .success(nextWaiterID)
    }

    /// The task of wait `id` suspends; returns the outcome to resume it with at once, when one
    /// came before it suspended.
    mutating func suspend(_ id: UInt64, _ continuation: CheckedContinuation<Void, any Error>) -> Result<
        Void, any Error
    >? {
        guard let waiter = waiters[id] else { return .success(()) }
        switch waiter.phase {
        case .waiting:
            waiters[id]?.phase = .waiting(continuation)
            return nil
        case .finished(let outcome):
            waiters[id] = nil
            return outcome
        }
    }

    /// Ends wait `id` with `outcome` unless it already ended; returns its continuation to
    /// resume when it is suspended.
    mutating func finish(_ id: UInt64, with outcome: Result<Void, any Error>) -> Resumption? {
        guard let waiter = waiters[id], case .waiting(let continuation) = waiter.phase else { return nil }
        guard let continuation else {
            waiters[id]?.phase = .finished(outcome)
            return nil
        }
        waiters[id] = nil
        return (continuation, outcome)
    }

    /// Removes the record of wait `id` once its task has resumed.
    mutating func forget(_ id: UInt64) {
        waiters[id] = nil
    }

    private mutating func finishWaiters(
        with outcome: Result<Void, any Error>, where isDue: (Waiter) -> Bool
    ) -> [Resumption] {
        var resumptions: [Resumption] = []
        for (id, waiter) in waiters where isDue(waiter) {
            if let resumption = finish(id, with: outcome) { resumptions.append(resumption) }
        }
        return resumptions
    }
}
