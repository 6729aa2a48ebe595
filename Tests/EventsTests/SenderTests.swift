import Testing

@testable import Events

@Suite("Rule 2: sender filter and the sender handed to handlers")
struct SenderTests {
    @Test func listenerFromSenderHearsOnlyThatObject() {
        let center = EventCenter()
        let writer = Probe("writer")
        let other = Probe("other")
        let heard = Counter()
        let subscription = center.listen(to: Tick.self, from: writer) { _ in heard.increment() }
        #expect(center.dispatch(Tick(n: 1), from: writer) == 1)
        #expect(center.dispatch(Tick(n: 2), from: other) == 0)
        #expect(center.dispatch(Tick(n: 3)) == 0)
        #expect(heard.value == 1)
        withExtendedLifetime(subscription) {}
    }

    @Test func listenerWithoutFilterHearsEverySender() {
        let center = EventCenter()
        let heard = Counter()
        let subscription = center.listen(to: Tick.self) { _ in heard.increment() }
        center.dispatch(Tick(n: 1), from: Probe())
        center.dispatch(Tick(n: 2))
        #expect(heard.value == 2)
        withExtendedLifetime(subscription) {}
    }

    @Test func senderFilterHoldsTheSenderWeaklyAndEndsWhenItDies() {
        let center = EventCenter()
        let deinits = Counter()
        var writer: Probe? = Probe("writer") { deinits.increment() }
        let subscription = center.listen(to: Tick.self, from: writer) { _ in }
        #expect(center.listenerCount(for: Tick.self) == 1)
        writer = nil
        #expect(deinits.value == 1, "the center must not keep the sender alive")
        #expect(center.listenerCount(for: Tick.self) == 0)
        #expect(!subscription.isActive)
        #expect(storedRecords(center, Tick.self) == 0, "the dead listener is reclaimed")
        // A new object, possibly at the same address, must not match the dead filter.
        let newcomer = Probe("newcomer")
        #expect(center.dispatch(Tick(n: 1), from: newcomer) == 0)
    }

    @Test func handlerLearnsWhoDispatched() {
        let center = EventCenter()
        let writer = Probe("writer")
        let seen = Recorder<String>()
        let subscription = center.listen(to: Sent<PostWritten>.self) { sent in
            let (post, sender) = (sent.event, sent.sender)
            if sender === writer {
                seen.record("writer:\(post.title):\(sender?.object(as: Probe.self)?.name ?? "?")")
            } else if sender == nil {
                seen.record("anonymous:\(post.title)")
            } else {
                seen.record("someone else:\(post.title)")
            }
        }
        center.dispatch(PostWritten(title: "a"), from: writer)
        center.dispatch(PostWritten(title: "b"))
        center.dispatch(PostWritten(title: "c"), from: Probe("other"))
        #expect(seen.values == ["writer:a:writer", "anonymous:b", "someone else:c"])
        withExtendedLifetime(subscription) {}
    }

    @Test func senderComparesByIdentityAndDescribesItsType() {
        let first = Probe()
        let second = Probe()
        let sender = Sender(first)
        #expect(sender === first)
        #expect(sender !== second)
        #expect(sender == Sender(first))
        #expect(sender != Sender(second))
        #expect(sender.id == ObjectIdentifier(first))
        #expect(ObjectIdentifier(sender.type) == ObjectIdentifier(Probe.self))
        #expect(sender.object(as: Counter.self) == nil)
        #expect(sender.description.hasPrefix("Probe@0x"))
        let none: Sender? = nil
        #expect(none === nil)
        #expect(none !== first)
    }

    @Test func ownerBoundHandlerReceivesOwnerEventAndSender() {
        let center = EventCenter()
        let owner = Probe("owner")
        let writer = Probe("writer")
        let seen = Recorder<String>()
        center.listen(to: Sent<Tick>.self, owner: owner) { owner, sent in
            seen.record("\(owner.name) \(sent.event.n) \(sent.sender?.object(as: Probe.self)?.name ?? "nil")")
        }
        center.dispatch(Tick(n: 7), from: writer)
        #expect(seen.values == ["owner 7 writer"])
    }
}
