import Dispatch
import Foundation

/// Marks the main queue, so that a handler can tell it runs there.
private let namedParityMainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Whether the caller runs on the main thread or in a block of the main queue: on Linux the
/// test runner drains the main queue on a worker thread, where main-actor work then runs.
func isOnMainQueue() -> Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: namedParityMainQueueKey) == true
}
