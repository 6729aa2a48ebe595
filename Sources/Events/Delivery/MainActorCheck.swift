import Dispatch
import Foundation

/// Marks the main queue, so that code running on it can be recognised even on Linux, where the
/// main queue is drained by a worker thread once the main thread has handed over to
/// `dispatchMain()` (as async `main` programs and test runners do).
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Whether the caller runs on the main actor: on the main thread, or inside a block of the main
/// queue (the main actor's executor).
func isOnMainActor() -> Bool {
    isMainThread() || DispatchQueue.getSpecific(key: mainQueueKey) == true
}

/// Whether this is the process's main thread. `Thread.isMainThread` asks the kernel on some
/// platforms (it compares the thread's id with the process's), and a main-actor listener asks on
/// every dispatch from a background thread; a thread never changes its identity, so the answer
/// is kept per thread.
@inline(__always)
private func isMainThread() -> Bool {
    let key = mainThreadKey.key
    if let known = pthread_getspecific(key) { return Int(bitPattern: known) == 2 }
    let isMain = Thread.isMainThread
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: isMain ? 2 : 1))
    return isMain
}

private final class MainThreadKey: Sendable {
    let key: pthread_key_t
    init() {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        self.key = key
    }
}

private let mainThreadKey = MainThreadKey()
