import Foundation

/// How much longer `work` takes on an input sixteen times larger: about 16 when it is linear in
/// the input's size, about 256 when quadratic. `input` makes the input of a size, untimed;
/// `work` throws ``WrongResult`` (or any error) when what it computed is wrong.
///
/// A complexity check that holds on a loaded machine and under the sanitizers, where a fixed time
/// bound does not:
/// - it counts the CPU time of its thread, not the time on the clock, so that other suites
///   running on the same cores do not count (on a loaded 2-core machine a long run waits for a
///   core much more often than a short one, and wall-clock ratios of linear code reached 10.7
///   for a factor of four);
/// - the two sizes are timed in turns and each keeps its best time, so that what remains of
///   the noise (caches, frequency) falls on both alike;
/// - the factor of sixteen leaves a bound (64 in the callers) four times above linear and four
///   times below quadratic.
///
/// It runs on a thread of its own: seconds of computing under the sanitizers would otherwise
/// hold one of the concurrency pool's two threads and stall the timed waits of other suites.
package func growthWhenSixteenTimesLarger<Input>(
    from size: Int, input: @escaping @Sendable (Int) throws -> Input,
    _ work: @escaping @Sendable (Input) throws -> Void
) async throws -> Double {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(
                with: Result {
                    let small = try input(size)
                    let large = try input(size * 16)
                    func time(_ input: Input) throws -> Duration {
                        let start = threadCPUTime()
                        try work(input)
                        return threadCPUTime() - start
                    }
                    var bestSmall = Duration.seconds(Int64.max)
                    var bestLarge = Duration.seconds(Int64.max)
                    for _ in 0..<5 {
                        bestSmall = min(bestSmall, try time(small))
                        bestLarge = min(bestLarge, try time(large))
                    }
                    return bestLarge / max(bestSmall, .microseconds(1))
                })
        }.start()
    }
}

/// What a timed `work` throws when it computed a wrong result; `#expect` is not used there
/// because the work runs outside the test's task.
package struct WrongResult: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// The CPU time the calling thread has used.
private func threadCPUTime() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
}
