import Dispatch
import Events
import EventsTesting
import Testing

/// An owner that registers listeners and may forget to remove them.
final class FeedModel: Sendable {
    static let savedLine = #line + 3

    init(center: EventCenter) {
        center.listen(to: Saved.self, owner: self) { _, _ in }
        center.listen(to: "closed", owner: self) { _, _ in }
    }
}

@Suite("Listener leak checks")
struct ListenerLeakCheckTests {
    @Test("expectNoListeners passes for an owner without listeners")
    func ownerWithoutListeners() {
        let center = EventCenter()
        let model = FeedModel(center: center)
        center.remove(model)
        #expect(expectNoListeners(ownedBy: model, in: center))
    }

    @Test("expectNoListeners lists the listeners an owner still has, with their call sites")
    func ownerWithListeners() {
        let center = EventCenter()
        let model = FeedModel(center: center)
        center.remove(model, for: "closed")
        let callLine = #line + 2
        withKnownIssue {
            expectNoListeners(ownedBy: model, in: center)
        } matching: { issue in
            let text = message(of: issue)
            return issue.sourceLocation?.line == callLine
                && text.hasPrefix("FeedModel still has 1 listener in the center:\n  EVENT")
                && text.contains("Saved  FeedModel")
                && text.contains("EventsTestingTests/ListenerLeakCheckTests.swift:\(FeedModel.savedLine) ")
                && !text.contains("\"closed\"")
        }
    }

    @Test("waits for queued deliveries first: listeners a queued handler removes are no leak")
    func asyncFormWaitsForQueuedDeliveries() async {
        let center = EventCenter()
        let queue = DispatchQueue(label: "held")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        await expectNoListenerLeaks(in: center) {
            let box = SubscriptionBox()
            let permanent = center.listen(to: Closed.self) { _ in }
            // Its handler, queued behind the gate, ends both listeners: when the scope returns
            // they are still registered, and only the wait for idle() sees them gone.
            box.subscription = center.listen(to: Saved.self, on: .queue(queue)) { _ in
                permanent.cancel()
                box.subscription?.cancel()
            }
            center.dispatch(Saved(id: 1))
            gate.signal()
        }
        #expect(center.listenerCount == 0)
    }

    @Test("expectNoListenerLeaks passes when the scope removes what it added")
    func scopeWithoutLeaks() async throws {
        let center = EventCenter()
        let kept = center.listen(to: Closed.self) { _ in }
        let value = await expectNoListenerLeaks(in: center) {
            let subscription = center.listen(to: Saved.self) { _ in }
            subscription.cancel()
            return 42
        }
        #expect(value == 42)
        try await expectNoListenerLeaks(in: center) {
            _ = FeedModel(center: center)  // its listeners end with it
            let recorder = EventRecorder(of: Saved.self, in: center)
            center.dispatch(Saved(id: 1))
            _ = try await recorder.next()
            recorder.stop()
        }
        kept.cancel()
    }

    @Test("a recorder left recording is reported at the line that created it")
    func recorderLeak() async {
        let center = EventCenter()
        var recorder: EventRecorder<Saved>?
        let scopeLine = #line + 2
        await withKnownIssue {
            await expectNoListenerLeaks(in: center) {
                recorder = EventRecorder(of: Saved.self, in: center)
            }
        } matching: { issue in
            message(of: issue).contains(
                "listener to Saved, registered at EventsTestingTests/ListenerLeakCheckTests.swift:\(scopeLine + 1),")
        }
        recorder?.stop()
        #expect(center.listenerCount == 0)
    }

    @Test("expectNoListenerLeaks names each listener added and not removed")
    func scopeWithLeaks() async {
        let center = EventCenter()
        let before = center.listen(to: Saved.self) { _ in }
        var model: FeedModel?
        var kept = Set<Subscription>()
        let scopeLine = #line + 2
        await withKnownIssue {
            await expectNoListenerLeaks(in: center) {
                before.cancel()
                model = FeedModel(center: center)
                let forgotten = center.listen(to: Closed.self) { _ in }
                forgotten.store(in: &kept)
            }
        } matching: { issue in
            let text = message(of: issue)
            return issue.sourceLocation?.line == scopeLine
                && text.hasPrefix("3 listeners were added and not removed (before: 1 listener, after: 3):")
                && text.contains(
                    "listener to Saved, owned by FeedModel, registered at "
                        + "EventsTestingTests/ListenerLeakCheckTests.swift:\(FeedModel.savedLine),")
                && text.contains("listener to \"closed\", owned by FeedModel")
                && text.contains(
                    "listener to Closed, registered at EventsTestingTests/ListenerLeakCheckTests.swift:\(scopeLine + 3),"
                )
        }
        withExtendedLifetime((model, kept)) {}
    }
}

/// Keeps a subscription alive beyond the statement that made it.
final class SubscriptionBox: @unchecked Sendable {
    // Why @unchecked is safe: written once by the test before anything reads it.
    var subscription: Subscription?
}
