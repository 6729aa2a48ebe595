import Events
import Foundation
import Testing

// The README's "Named events" section, verbatim apart from being wrapped in functions and a
// namespace, so that its examples keep compiling and doing what the README says.

extension EventName {
    fileprivate static let rectangleColorChanged: EventName = "rectangleColorChanged"
}
extension PayloadKeys {
    fileprivate static let uniqueID = PayloadKey<String>("uniqueID")
}

enum ReadmeNamed {
    final class Editor: Sendable {}

    struct PostWritten: Event {
        let title: String
    }

    enum PhotoEvents: String, EventNamespace {
        case listDidLoad  // "PhotoEvents.listDidLoad"
    }
}

@Suite("README examples: named events")
struct ReadmeNamedExamplesTests {
    typealias PostWritten = ReadmeNamed.PostWritten
    typealias PhotoEvents = ReadmeNamed.PhotoEvents

    @Test func namesAndTypedKeys() {
        let center = EventCenter()
        let editor = ReadmeNamed.Editor()
        let heard = Recorder<String>()

        let colors = center.listen(to: .rectangleColorChanged) { event in
            do {
                print("recolor", try event[.uniqueID], "to", try event.data(as: String.self))
                heard.record("\(try event[.uniqueID]) \(try event.data(as: String.self))")
            } catch {
                print(error)  // names the event, the key, the expected and the actual type
                heard.record("\(error)")
            }
        }
        #expect(
            center.dispatch(.rectangleColorChanged, from: editor, data: "teal", payload: Payload((.uniqueID, "r1")))
                == 1)
        center.dispatch(.rectangleColorChanged, from: editor, data: "teal")
        #expect(
            heard.values == [
                "r1 teal",
                #"Named event "rectangleColorChanged" has no value for key "uniqueID" (expected String, found nothing)."#,
            ])
        withExtendedLifetime(colors) {}
    }

    @Test func namespacesAndEveryName() {
        let center = EventCenter()
        let heard = Recorder<String>()

        let photos = center.listen(to: PhotoEvents.listDidLoad.eventName) { event in print(event.name) }
        let everything = center.listen(to: NamedEvent.self) { event in print("saw", event.name) }
        let check = center.listen(to: NamedEvent.self) { event in heard.record(event.name.rawValue) }
        #expect(center.dispatch(PhotoEvents.listDidLoad.eventName) == 3)
        #expect(heard.values == ["PhotoEvents.listDidLoad"])
        _ = (photos, everything, check)
    }

    @Test func bridges() {
        let center = EventCenter()
        let heard = Recorder<String>()

        let inbound = center.forwardNotifications(named: Notification.Name("rectangleCreated"))
        let outbound = center.postNotifications(for: PostWritten.self, named: Notification.Name("postWritten"))

        let listener = center.listen(to: "rectangleCreated") { event in heard.record("center: \(event.name)") }
        let observer = NotificationCenter.default.addObserver(
            forName: Notification.Name("postWritten"), object: nil, queue: nil
        ) { note in
            let post = note.userInfo?[NotificationBridge.eventKey] as? PostWritten
            heard.record("notifications: \(post?.title ?? "?")")
        }
        NotificationCenter.default.post(name: Notification.Name("rectangleCreated"), object: nil)
        center.dispatch(PostWritten(title: "Hello"))
        #expect(heard.values == ["center: rectangleCreated", "notifications: Hello"])
        NotificationCenter.default.removeObserver(observer)
        _ = (inbound, outbound, listener)
    }
}
