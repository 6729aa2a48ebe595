import RedisTestSupport
import Testing

@testable import EventsRedis

/// The Pub/Sub receiver's state machine, driven directly: stopping meets a subscription that
/// runs, one that has ended, and a retry that comes after the stop.
@Suite("Pub/Sub receiver state")
struct PubSubReceiverStateTests {
    /// A stop, the way the receiver runs one: the transition under the lock, its action after.
    func stop(_ state: LockedBox<PubSubReceiverStateMachine>) async {
        await withCheckedContinuation { continuation in
            state.withLock { $0.stop(continuation) }.run()
        }
    }

    @Test("A stop while a subscription runs waits until it ends, and no retry subscribes after it")
    func stopWhileSubscribing() async {
        let state = LockedBox(PubSubReceiverStateMachine())
        #expect(state.withLock { $0.beginSubscription() })
        let stopped = Counter()
        let stopping = Task {
            await stop(state)
            stopped.increment()
        }
        let secondStopping = Task {
            await stop(state)
            stopped.increment()
        }
        #expect(await eventually { state.withLock { $0.waitingStops } == 2 }, "the stops never began to wait")
        #expect(stopped.value == 0, "the subscription still runs")

        let (wasStopped, action) = state.withLock { $0.subscriptionEnded() }
        #expect(wasStopped)
        action.run()
        await stopping.value
        await secondStopping.value
        #expect(stopped.value == 2)
        #expect(state.withLock { $0.waitingStops } == 0)
        #expect(!state.withLock { $0.beginSubscription() }, "a retry after the stop does not subscribe")
    }

    @Test("A stop between subscriptions returns at once")
    func stopWhileIdle() async {
        let state = LockedBox(PubSubReceiverStateMachine())
        #expect(state.withLock { $0.beginSubscription() })
        let (wasStopped, action) = state.withLock { $0.subscriptionEnded() }
        #expect(!wasStopped, "the subscription ended by itself")
        action.run()
        await stop(state)
        await stop(state)  // a second stop does not wait either
        #expect(state.withLock { $0.waitingStops } == 0)
        #expect(!state.withLock { $0.beginSubscription() })
    }

    @Test("close stops without waiting, and the subscription's end then counts as stopped")
    func closeWhileSubscribing() {
        let state = LockedBox(PubSubReceiverStateMachine())
        #expect(state.withLock { $0.beginSubscription() })
        state.withLock { $0.close() }
        #expect(state.withLock { $0.waitingStops } == 0)
        let (wasStopped, _) = state.withLock { $0.subscriptionEnded() }
        #expect(wasStopped, "nothing is retried after close")
        #expect(!state.withLock { $0.beginSubscription() })
    }

    @Test("A failure is retried only after start returned, with a backoff that a confirmed channel resets")
    func retryDelays() {
        var state = PubSubReceiverStateMachine()
        #expect(state.retryDelay() == nil, "before start returns, the failure is start's to throw")
        state.markStarted()
        #expect(state.retryDelay() == .seconds(1))
        #expect(state.retryDelay() == .seconds(2))
        state.subscriptionConfirmed()
        #expect(state.retryDelay() == .seconds(1))
    }
}
