import Foundation

/// The stack Apple platforms give a secondary thread, and Dispatch its worker threads: the
/// smallest a bridge's reading can run on.
let smallestThreadStack = 512 * 1024

/// Runs `body` on a thread of its own whose stack is `stackSize` bytes, and returns its result.
/// A body that needs more stack than that crashes the test run: that is the failure these
/// tests look for.
func onThread<Result: Sendable>(
    stackSize: Int = smallestThreadStack, _ body: @escaping @Sendable () -> Result
) async -> Result {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = stackSize
        thread.start()
    }
}
