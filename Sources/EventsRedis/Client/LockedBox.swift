import Events

/// A value that is only ever read or written with its own lock (`Events`' pthread `Lock`) held.
///
/// The box is how the client's classes stay `Sendable` by construction: their mutable state
/// lives in one of these, and the only way to reach it is ``withLock(_:)``.
final class LockedBox<Value> {
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. `body` must not resume continuations,
    /// yield to streams or call user code.
    @inline(__always)
    func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// Safe to share when the value itself may cross threads: `value` is private and every access
// goes through `withLock`, which holds `lock` for the whole access.
extension LockedBox: @unchecked Sendable where Value: Sendable {}
