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
    Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
}
