import Foundation
import Testing

@testable import Events

@Suite("Rule 1: synchronous delivery, priority order, typed matching")
struct DispatchOrderTests {
    @Test func listenersRunHigherPriorityFirstAndTiesInRegistrationOrder() {
        let center = EventCenter()
        let order = Recorder<String>()
        let subscriptions = [
            center.listen(to: Tick.self) { _ in order.record("default-1") },
            center.listen(to: Tick.self, priority: .low) { _ in order.record("low") },
            center.listen(to: Tick.self, priority: 10) { _ in order.record("ten-1") },
            center.listen(to: Tick.self) { _ in order.record("default-2") },
            center.listen(to: Tick.self, priority: 10) { _ in order.record("ten-2") },
            center.listen(to: Tick.self, priority: .high) { _ in order.record("high") },
        ]
        center.dispatch(Tick(n: 1))
        #expect(order.values == ["high", "ten-1", "ten-2", "default-1", "default-2", "low"])
        #expect(subscriptions.allSatisfy { $0.isActive })
    }

    @Test func dispatchRunsHandlersBeforeReturningOnTheDispatchingThread() async {
        let center = EventCenter()
        let handlerThreads = Recorder<UInt>()
        let subscription = center.listen(to: Tick.self) { _ in handlerThreads.record(currentThreadID()) }
        let dispatchThread = Recorder<UInt>()
        await runOnThreads(1) { _ in
            dispatchThread.record(currentThreadID())
            let delivered = center.dispatch(Tick(n: 1))
            // Synchronous: the handler has already run when dispatch returns.
            handlerThreads.record(UInt(delivered))
        }
        #expect(handlerThreads.values == [dispatchThread.values[0], 1])
        subscription.cancel()
    }

    @Test func dispatchReturnsHowManyListenersReceivedTheEvent() {
        let center = EventCenter()
        #expect(center.dispatch(Tick(n: 0)) == 0)
        let a = center.listen(to: Tick.self) { _ in }
        let b = center.listen(to: Tick.self) { _ in }
        let other = center.listen(to: Tock.self) { _ in }
        #expect(center.dispatch(Tick(n: 1)) == 2)
        b.cancel()
        #expect(center.dispatch(Tick(n: 2)) == 1)
        #expect(center.dispatch(Tock(n: 1)) == 1)
        _ = (a, other)
    }

    @Test func listenersReceiveTheEventValueWithItsType() {
        let center = EventCenter()
        let titles = Recorder<String>()
        let subscription = center.listen(to: PostWritten.self) { post in titles.record(post.title) }
        center.dispatch(PostWritten(title: "first"))
        center.dispatch(Tick(n: 9))
        center.dispatch(PostWritten(title: "second"))
        #expect(titles.values == ["first", "second"])
        withExtendedLifetime(subscription) {}
    }

    @Test func priorityAcceptsLiteralsAndNamedLevels() {
        let literal: Priority = 42
        #expect(literal.value == 42)
        #expect(Priority.high > Priority.default)
        #expect(Priority.low < Priority.default)
        #expect(Priority(-3) < 0)
    }

    @Test func defaultCenterIsSharedAndUsable() {
        #expect(EventCenter.default === EventCenter.default)
        struct OnlyForDefaultCenterTest: Event {}
        let received = Counter()
        let subscription = EventCenter.default.listen(to: OnlyForDefaultCenterTest.self) { _ in received.increment() }
        #expect(EventCenter.default.dispatch(OnlyForDefaultCenterTest()) == 1)
        subscription.cancel()
        #expect(EventCenter.default.dispatch(OnlyForDefaultCenterTest()) == 0)
        #expect(received.value == 1)
    }
}

func currentThreadID() -> UInt {
    UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(Unmanaged.passUnretained(Thread.current).toOpaque())))
}
