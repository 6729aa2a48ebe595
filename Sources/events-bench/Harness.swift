import EventsBenchSupport
import Foundation
import Synchronization

/// How hard a run works: the full run that produces the published figures, or the quick smoke
/// test that CI runs to prove every scenario still builds and runs.
struct Effort: Sendable {
    /// How long one timed batch should take; the iteration count of each workload is scaled to it.
    let batch: Duration
    /// Batches run (untimed) before the timed ones.
    let warmups: Int
    /// Timed batches; the median is reported.
    let repeats: Int
    /// Registrations per memory measurement.
    let registrations: Int
    /// Dispatches per allocation count.
    let countedDispatches: Int
    /// A quick run reports its figures but judges no target.
    let isQuick: Bool

    static let full = Effort(
        batch: .milliseconds(30), warmups: 1, repeats: 7, registrations: 100_000, countedDispatches: 100_000,
        isQuick: false)

    static let quick = Effort(
        batch: .milliseconds(1), warmups: 0, repeats: 1, registrations: 2_000, countedDispatches: 1_000,
        isQuick: true)
}

/// One thing to time: `run(n)` performs `n` operations and returns how long they took. Setup that
/// is not part of an operation (building listener lists, starting threads) stays outside the
/// returned duration.
struct Workload {
    let run: @MainActor (_ iterations: Int) async -> Duration

    /// A workload whose batch is one synchronous call of `body`, timed as a whole.
    static func timing(_ body: @escaping @MainActor (_ iterations: Int) -> Void) -> Workload {
        Workload { iterations in
            ContinuousClock().measure { body(iterations) }
        }
    }
}

/// An implementation measured in a scenario: the subject (swift-events) or a baseline. A nil
/// workload means the implementation does not exist on this platform or cannot take part.
struct Contender {
    let name: String
    let role: Role
    let workload: Workload?
    /// Why `workload` is nil, printed in place of a figure.
    var unavailable: String = notOnThisPlatform
    /// Extra words printed after the figure, computed from the median (e.g. ns per listener).
    var detail: ((Double) -> String)? = nil
}

let notOnThisPlatform = "n/a on this platform"

/// Times every contender and returns one row each, in order.
///
/// Method: each workload's iteration count is first scaled so that one batch takes about
/// `effort.batch`; then come the warm-up batches and the timed repeats. Repeats go round-robin
/// over the contenders (A, B, C, A, B, C, ...) so that a slow spell of the machine hits every
/// contender alike instead of one of them. The figure is the median of the repeats, in
/// nanoseconds per operation.
@MainActor
func measure(_ contenders: [Contender], effort: Effort) async -> [Row] {
    let available = contenders.indices.filter { contenders[$0].workload != nil }
    var sizes: [Int: Int] = [:]
    for index in available {
        sizes[index] = await calibratedIterations(contenders[index].workload!, effort: effort)
    }
    for _ in 0..<effort.warmups {
        for index in available { _ = await contenders[index].workload!.run(sizes[index]!) }
    }
    var samples: [Int: [Double]] = [:]
    for _ in 0..<effort.repeats {
        for index in available {
            let iterations = sizes[index]!
            let elapsed = await contenders[index].workload!.run(iterations)
            samples[index, default: []].append(elapsed.nanoseconds / Double(iterations))
        }
    }
    return contenders.indices.map { index in
        let contender = contenders[index]
        guard let values = samples[index] else {
            return Row(name: contender.name, role: contender.role, value: nil, status: contender.unavailable)
        }
        let value = median(values)
        return Row(
            name: contender.name, role: contender.role, value: value, status: Row.measured,
            detail: contender.detail?(value))
    }
}

/// Grows the iteration count tenfold while a batch is very short, then doubles it, until a batch
/// takes at least a quarter of the target; then scales it to the target.
@MainActor
func calibratedIterations(_ workload: Workload, effort: Effort) async -> Int {
    let target = effort.batch.nanoseconds
    var iterations = 1
    while true {
        let elapsed = await workload.run(iterations).nanoseconds
        if elapsed >= target / 4 || iterations >= 1 << 32 {
            return max(1, Int(Double(iterations) * target / max(elapsed, 1)))
        }
        iterations *= elapsed < target / 100 ? 10 : 2
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

extension Duration {
    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }
}

// MARK: Keeping the work

/// Where measured loops leave a result (a delivery count, a sum), so that the optimizer cannot
/// prove the loop useless and delete it. Written once per batch, never inside a timed loop.
let sink = Atomic<Int>(0)

@inline(never)
func consume(_ value: Int) {
    sink.add(value, ordering: .relaxed)
}

// MARK: Counting allocations and bytes

/// Heap allocations per call of `operation`, counted by the allocator replacement in
/// `EventsBenchSupport` (see `allocation_counter.c`): `body(n)` performs `n` operations; it runs
/// once uncounted (to settle one-time work such as lazy metadata), then `count` times counted.
/// Nil when allocations cannot be counted on this platform.
@MainActor
func allocationsPerOperation(count: Int, _ body: (_ iterations: Int) -> Void) -> Double? {
    guard ebs_allocation_counting_supported() == 1 else { return nil }
    body(min(count, 1_000))
    ebs_allocation_counting_begin()
    body(count)
    let allocations = ebs_allocation_counting_end()
    return Double(allocations) / Double(count)
}

/// Heap bytes that `body` leaves in use, divided by `count`: `mallinfo2()` before and after
/// (see `heap_usage.c`). Whatever `body` creates must still be alive when it returns, stored in
/// storage reserved beforehand so that the storage itself is not counted. Nil when the heap
/// cannot be read on this platform.
@MainActor
func heapGrowth(per count: Int, _ body: () -> Void) -> Double? {
    guard ebs_heap_usage_supported() == 1 else { return nil }
    let before = ebs_heap_bytes_in_use()
    body()
    let after = ebs_heap_bytes_in_use()
    return (Double(after) - Double(before)) / Double(count)
}
