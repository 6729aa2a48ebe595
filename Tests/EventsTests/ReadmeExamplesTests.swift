import Events
import Testing

// The README's tour, verbatim apart from being wrapped in functions and a namespace, so that its
// examples keep compiling and doing what the README says.
enum Readme {
    struct PostWritten: Event {
        let title: String
    }

    final class Editor: Sendable {}

    final class FeedScreen: Sendable {
        func show(_ post: PostWritten) { print("showing", post.title) }

        func willAppear(in center: EventCenter) {
            // Registering again with the same owner, key, event and sender is ignored.
            center.listen(to: PostWritten.self, owner: self, key: "feed") { screen, post in
                screen.show(post)
            }
        }
    }

    @MainActor final class FeedViewModel {
        var titles: [String] = []

        func start(_ center: EventCenter) {
            center.listen(to: PostWritten.self, owner: self, on: .main) { model, post in
                model.titles.append(post.title)  // main actor, no hop, no warning
            }
        }
    }

    actor SearchIndex {
        var indexed: [String] = []

        func start(_ center: EventCenter) {
            center.listen(to: PostWritten.self, isolatedTo: self) { index, post in
                index.indexed.append(post.title)  // isolated to the actor
            }
        }

        func titles() -> [String] { indexed }
    }

    protocol TableDelegate: AnyObject {
        func didSelect(row: Int)
    }

    final class Logger: TableDelegate {
        func didSelect(row: Int) { print("row", row) }
    }
}

@Suite("README examples")
struct ReadmeExamplesTests {
    typealias PostWritten = Readme.PostWritten

    @Test func tour() {
        let center = EventCenter()  // or EventCenter.default
        let subscription = center.listen(to: PostWritten.self) { post in
            print("new post:", post.title)
        }
        #expect(center.dispatch(PostWritten(title: "Hello")) == 1)  // returns 1: one listener received it
        subscription.cancel()  // or just drop the subscription
        #expect(center.dispatch(PostWritten(title: "Hello")) == 0)
    }

    @Test func sender() {
        let center = EventCenter()
        let editor = Readme.Editor()

        let fromEditor = center.listen(to: PostWritten.self, from: editor) { post in
            print("the editor wrote", post.title)
        }
        let anyone = center.listen(to: Sent<PostWritten>.self) { sent in
            if sent.sender === editor { print("from the editor") }
        }
        #expect(center.dispatch(PostWritten(title: "Draft"), from: editor) == 2)
        #expect(center.dispatch(PostWritten(title: "Draft"), from: Readme.Editor()) == 1)
        _ = (fromEditor, anyone)
    }

    @Test func lifetimes() {
        let center = EventCenter()
        var screen: Readme.FeedScreen? = Readme.FeedScreen()
        screen?.willAppear(in: center)
        screen?.willAppear(in: center)  // still one listener
        #expect(center.listenerCount(for: PostWritten.self) == 1)
        #expect(center.dispatch(PostWritten(title: "Seen")) == 1)  // the screen shows it
        screen = nil  // its listener is gone; no remove needed
        #expect(center.listenerCount(for: PostWritten.self) == 0)
    }

    @Test func orderAndOptions() {
        let center = EventCenter()
        var subscriptions = Set<Subscription>()
        center.listen(to: PostWritten.self, priority: .high) { _ in print("first") }.store(in: &subscriptions)
        center.listen(to: PostWritten.self, priority: -5, once: true) { _ in print("last, once") }
            .store(in: &subscriptions)
        #expect(center.dispatch(PostWritten(title: "a")) == 2)
        #expect(center.dispatch(PostWritten(title: "b")) == 1)
    }

    @MainActor
    @Test func delivery() async {
        let center = EventCenter()
        let model = Readme.FeedViewModel()
        model.start(center)
        let index = Readme.SearchIndex()
        await index.start(center)
        let backup = center.listen(to: PostWritten.self, on: .background) { post in
            print("backing up", post.title)
        }
        let report = await center.dispatchAndWait(PostWritten(title: "Hello"))
        #expect(report.received == 3)
        #expect(model.titles == ["Hello"])
        #expect(await index.titles() == ["Hello"])
        withExtendedLifetime(backup) {}
    }

    @Test func async() async throws {
        let center = EventCenter()
        let stream = center.events(of: PostWritten.self, bufferingPolicy: .dropOldest(capacity: 100))
        let streamed = Task {
            for await post in stream {
                print("streamed", post.title)  // ending the loop removes the listener
                return post.title
            }
            return ""
        }

        let report = await center.dispatchAndWait(PostWritten(title: "Saved"))
        print(report.received, "listeners ran;", report.failures.count, "failed")
        #expect(report.received == 1)
        #expect(await streamed.value == "Saved")

        let waiter = Task {
            try await center.next(PostWritten.self, where: { $0.title.hasPrefix("S") }, timeout: .seconds(5))
        }
        #expect(
            await eventually { center.listenerCount(for: PostWritten.self) > 0 },
            "next(_:) never registered its listener")
        center.dispatch(PostWritten(title: "Other"))
        center.dispatch(PostWritten(title: "Second"))
        let next = try await waiter.value
        #expect(next.title == "Second")
    }

    @Test func multicast() {
        let delegates = MulticastDelegate<any Readme.TableDelegate>()
        let logger = Readme.Logger()
        delegates += logger
        delegates.invoke { $0.didSelect(row: 3) }
        #expect(delegates.count == 1)
    }
}
