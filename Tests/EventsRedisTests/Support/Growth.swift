/// How much longer `work` takes on an input four times larger: about 4 when it is linear in the
/// input's size, about 16 when quadratic. `input` makes the input of a size, untimed.
///
/// A complexity check that holds on a loaded machine and under the sanitizers, where a fixed time
/// bound does not: both sizes run under the same conditions, and each is timed as the best of
/// five runs, so that a pause in one run does not count.
func growthWhenFourTimesLarger<Input>(
    from size: Int, input: (Int) throws -> Input, _ work: (Input) throws -> Void
) rethrows -> Double {
    func bestTime(_ size: Int) throws -> Duration {
        let input = try input(size)
        var best = Duration.seconds(Int64.max)
        for _ in 0..<5 {
            let start = ContinuousClock.now
            try work(input)
            best = min(best, ContinuousClock.now - start)
        }
        return best
    }
    let small = try bestTime(size)
    let large = try bestTime(size * 4)
    return large / max(small, .microseconds(1))
}
