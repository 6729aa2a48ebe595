import Dispatch
import Foundation
import Testing

@testable import Events

/// What `isOnMainActor()` answers, now that it remembers per thread whether that thread is the
/// main thread: the answer for a main-queue block must not depend on what its thread answered
/// before, since a worker thread of Dispatch may serve other queues and then the main queue.
@Suite("Recognising the main actor")
struct MainActorCheckTests {
    @Test("code on the main actor is recognised, and so is its absence on other threads")
    @MainActor
    func mainActorIsRecognised() async {
        #expect(isOnMainActor())
        let elsewhere = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: isOnMainActor()) }.start()
        }
        #expect(!elsewhere)
    }

    @Test("a main-queue block is on the main actor even on a thread that answered no before")
    func mainQueueBlocksAreRecognisedOnReusedThreads() async {
        // Worker threads ask first from a global queue, so that each remembers "not the main
        // thread"; main-queue blocks that Dispatch then runs on those workers (on Linux, once
        // the main thread has handed over to dispatchMain) must still answer yes.
        for _ in 0..<100 {
            let offMain = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: isOnMainActor()) }
            }
            #expect(!offMain)
            let onMain = await withCheckedContinuation { continuation in
                DispatchQueue.main.async { continuation.resume(returning: isOnMainActor()) }
            }
            #expect(onMain)
        }
    }
}
