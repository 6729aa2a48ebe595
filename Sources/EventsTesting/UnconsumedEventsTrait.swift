public import Testing

/// A trait that fails a test when an ``EventRecorder`` created during it still holds events
/// nobody consumed when the test ends: `.failsOnUnconsumedEvents`.
///
/// ```swift
/// @Test(.failsOnUnconsumedEvents)
/// func savingOnce() async throws {
///     let recorder = EventRecorder(of: PostWritten.self, in: center)
///     editor.save()
///     _ = try await recorder.next()
/// }   // a second PostWritten would fail the test here
/// ```
///
/// Rules:
/// - Every recorder created while the test runs, in its task or in tasks it starts, is
///   checked when the test returns, as ``EventRecorder/expectAllConsumed(sourceLocation:)``
///   does; the issue points at the line that created the recorder. A recorder dropped before
///   the end is checked too.
/// - On a suite it applies to every test of the suite, each one on its own.
/// - When the test throws, its recorders are not checked (it fails already).
public struct UnconsumedEventsTrait: TestTrait, SuiteTrait, TestScoping {
    /// True: on a suite, the trait applies to each test in it.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope only hands the trait on to its tests.
        guard testCase != nil || !test.isSuite else { return try await function() }
        let registry = RecorderRegistry()
        try await RecorderRegistry.$current.withValue(registry) {
            try await function()
        }
        registry.checkAll()
    }
}

extension Trait where Self == UnconsumedEventsTrait {
    /// Fails a test when an ``EventRecorder`` created during it still holds unconsumed events
    /// at its end; see ``UnconsumedEventsTrait``.
    public static var failsOnUnconsumedEvents: Self { UnconsumedEventsTrait() }
}

/// The recorders created inside an ``UnconsumedEventsTrait`` scope, as the checks to run at its
/// end. A check holds the recorder's state, not the recorder, so a recorder dropped early
/// stops listening as usual and is still checked.
final class RecorderRegistry: Sendable {
    @TaskLocal static var current: RecorderRegistry?

    private let checks = LockedState<[@Sendable () -> Void]>([])

    func add(_ check: @escaping @Sendable () -> Void) {
        checks.withLock { $0.append(check) }
    }

    func checkAll() {
        let all = checks.withLock { checks in
            let all = checks
            checks = []
            return all
        }
        for check in all { check() }
    }
}
