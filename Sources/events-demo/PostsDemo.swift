import Events
import Synchronization

// An event center in the style of ActionScript's dispatcher. A writer (the dispatcher) sends a "post
// written" event carrying its data; listeners react; one is removed; one listener's owner goes
// away and its listener disappears with it.

/// The event: the post travels as a typed value, not in a userInfo dictionary.
struct PostWritten: Event {
    let title: String
    let body: String
}

/// The dispatcher.
final class PostWriter: Sendable {
    let name: String
    init(name: String) { self.name = name }

    @discardableResult
    func write(_ title: String, body: String, in center: EventCenter) -> Int {
        center.dispatch(PostWritten(title: title, body: body), from: self)
    }
}

/// A screen that lists posts; it listens for as long as it exists (owner-bound).
final class PostListScreen: Sendable {
    private let titles = Mutex<[String]>([])
    private let timeline: Timeline

    init(timeline: Timeline) { self.timeline = timeline }

    /// Called each time the screen appears: registering again with the same key is ignored.
    func willAppear(in center: EventCenter) {
        center.listen(to: Sent<PostWritten>.self, owner: self, key: "refresh") { screen, sent in
            screen.show(sent.event, from: sent.sender)
        }
    }

    private func show(_ post: PostWritten, from sender: Sender?) {
        let count = titles.withLock { titles in
            titles.append(post.title)
            return titles.count
        }
        let writer = sender?.object(as: PostWriter.self)?.name ?? "someone"
        timeline.call("list screen", "shows \"\(post.title)\" by \(writer) (\(count) posts listed)")
    }

    deinit { timeline.call("list screen", "deinitialized") }
}

func runPostsDemo() {
    let timeline = Timeline("posts: a writer dispatches \"post written\" to its listeners")
    let center = EventFlow.center(for: "posts")
    let alice = PostWriter(name: "Alice")
    let bob = PostWriter(name: "Bob")

    var screen: PostListScreen? = PostListScreen(timeline: timeline)
    timeline.step("list screen appears twice (registers twice with key \"refresh\")")
    screen?.willAppear(in: center)
    screen?.willAppear(in: center)
    timeline.note("listeners of PostWritten: \(center.listenerCount(for: PostWritten.self)) (duplicate ignored)")

    timeline.step("a notification badge listens to Alice's posts only")
    var badge: Subscription? = center.listen(to: PostWritten.self, from: alice) { post in
        timeline.call("badge", "new post from Alice, \(post.body.count) characters")
    }
    timeline.note("listeners of PostWritten: \(center.listenerCount(for: PostWritten.self))")

    timeline.step("Alice writes \"Hello, events\"")
    var delivered = alice.write("Hello, events", body: "Typed, no userInfo casts.", in: center)
    timeline.note("dispatch reached \(delivered) listeners")

    timeline.step("Bob writes \"Bob's notes\"")
    delivered = bob.write("Bob's notes", body: "The badge does not hear Bob.", in: center)
    timeline.note("dispatch reached \(delivered) listener")

    timeline.step("the badge is removed (its subscription is dropped)")
    badge = nil
    _ = badge
    timeline.note("listeners of PostWritten: \(center.listenerCount(for: PostWritten.self))")

    timeline.step("Alice writes \"Second post\"")
    delivered = alice.write("Second post", body: "Only the list hears this.", in: center)
    timeline.note("dispatch reached \(delivered) listener")

    timeline.step("the list screen is closed and deallocated; nobody calls remove")
    screen = nil
    timeline.note("listeners of PostWritten: \(center.listenerCount(for: PostWritten.self))")

    timeline.step("Alice writes \"Into the void\"")
    delivered = alice.write("Into the void", body: "Nobody is listening.", in: center)
    timeline.note("dispatch reached \(delivered) listeners")
}
