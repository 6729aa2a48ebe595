import Events
import Foundation

// Names kept in a String enum per area of an app, so that call sites say `.listDidLoad`
// instead of a bare string (with NotificationCenter, a `Notifier` protocol with an associated
// enum is a common way to do this). Here the enum adopts `EventNamespace`: each case becomes an
// EventName qualified by the enum's type, so the photo list and the video list can both have a
// `listDidLoad` without hearing each other.

enum PhotoEvents: String, EventNamespace {
    case listDidLoad
    case detailDidLoad
}

enum VideoEvents: String, EventNamespace {
    case listDidLoad
}

/// Names that must stay what older code already posts, whatever the type is called.
enum AccountEvents: String, EventNamespace {
    static let namespace = "com.example.account"
    case signedIn
}

extension PayloadKeys {
    static let userName = PayloadKey<String>("userName")
    static let session = PayloadKey<String>("session")
}

/// Older sign-in code keeps its session in a plain class: not Sendable, so it cannot cross.
private final class LegacySession {
    var token = "abc"
}

/// A view controller that registers, loads, hears the result once and removes itself.
private final class PhotoListController: Sendable {
    private let timeline: Timeline

    init(timeline: Timeline) { self.timeline = timeline }

    func add(to center: EventCenter) {
        center.listen(to: PhotoEvents.listDidLoad.eventName, owner: self, key: "load") { controller, event in
            let count = (try? event.data(as: Int.self)).map(String.init) ?? "?"
            controller.timeline.call("photo list", "\(event.name): shows \(count) photos, then removes itself")
            center.remove(controller, for: PhotoEvents.listDidLoad.eventName)
        }
    }

    /// The screen's load button.
    func didTapLoad(in center: EventCenter) {
        timeline.note("load tapped: dispatching \(PhotoEvents.listDidLoad.eventName)")
        center.dispatch(PhotoEvents.listDidLoad.eventName, from: self, data: 24)
    }
}

/// Prints the demo's timeline: names qualified by their enum, bridged to NotificationCenter.
func runNamesDemo() {
    let timeline = Timeline("names: names qualified by their enum, so two areas never collide")
    let center = EventFlow.center(for: "names")

    timeline.step("Each case is a name qualified by its type")
    for name in [
        PhotoEvents.listDidLoad.eventName, PhotoEvents.detailDidLoad.eventName, VideoEvents.listDidLoad.eventName,
    ] {
        timeline.note("\(name)")
    }
    timeline.note("\(AccountEvents.signedIn.eventName) (namespace chosen explicitly)")

    timeline.step("The video list listens to its own listDidLoad; a logger listens to every name")
    let videos = center.listen(to: VideoEvents.listDidLoad.eventName) { event in
        timeline.call("video list", "\(event.name): reloads")
    }
    let logger = center.listen(to: NamedEvent.self, priority: .low) { event in
        timeline.call("logger", "saw \(event.name)")
    }

    timeline.step("Old code still observes NotificationCenter: publish the photo list's name there")
    let notifications = NotificationCenter()
    let bridge = center.postNotifications(for: PhotoEvents.listDidLoad.eventName, to: notifications)
    let legacy = notifications.addObserver(
        forName: PhotoEvents.listDidLoad.eventName.notificationName, object: nil, queue: nil
    ) { note in
        let count = note.userInfo?[NotificationBridge.dataKey] as? Int ?? 0
        timeline.call("legacy observer", "\(note.name.rawValue) with \(count) photos")
    }

    timeline.step("The photo list registers and the user taps load")
    let controller = PhotoListController(timeline: timeline)
    controller.add(to: center)
    controller.didTapLoad(in: center)

    timeline.step("Tap load again: the photo list removed itself, the video list never heard a photo event")
    controller.didTapLoad(in: center)

    timeline.step("The video list's listDidLoad reaches the video list only")
    center.dispatch(VideoEvents.listDidLoad.eventName)

    timeline.step("Older sign-in code posts to NotificationCenter: forward that name into the center")
    let inbound = center.forwardNotifications(
        named: AccountEvents.signedIn.eventName.notificationName, from: notifications)
    let badge = center.listen(to: AccountEvents.signedIn.eventName) { event in
        let user = (try? event[.userName]) ?? "?"
        timeline.call("account badge", "shows \(user); not carried: \(event.payload.unbridgedValues)")
        do {
            _ = try event[.session]
        } catch {
            timeline.call("account badge", "\(error)")
        }
    }
    notifications.post(
        name: AccountEvents.signedIn.eventName.notificationName, object: nil,
        userInfo: ["userName": "mina", "session": LegacySession()])

    notifications.removeObserver(legacy)
    withExtendedLifetime((videos, logger, bridge, inbound, badge)) {}
}
