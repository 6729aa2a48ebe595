import Events
import Foundation
import Synchronization

// A drawing app's model (the plane) announces "rectangle created", "color changed"
// and "opacity changed"; the screen's controller reacts, without either holding the other.
// With NotificationCenter this takes `userInfo["uniqueID"] as? String` guards that return
// silently; here the names are EventNames, the values travel under typed PayloadKeys,
// and a bad value is an error that says what was wrong. Old code that still observes
// NotificationCenter is served by a bridge.

extension EventName {
    static let rectangleCreated: EventName = "rectangleCreated"
    static let rectangleColorChanged: EventName = "rectangleColorChanged"
    static let rectangleOpacityChanged: EventName = "rectangleOpacityChanged"
}

extension PayloadKeys {
    static let uniqueID = PayloadKey<String>("uniqueID")
    static let color = PayloadKey<RGBColor>("randomColor")
    static let opacity = PayloadKey<Opacity>("opacity")
}

struct RGBColor: Sendable, Equatable, CustomStringConvertible {
    let red: UInt8
    let green: UInt8
    let blue: UInt8
    var description: String { "rgb(\(red), \(green), \(blue))" }
}

/// 1 to 10, as the slider sets it: shown as 0.1 to 1.0.
struct Opacity: Sendable, Equatable, CustomStringConvertible {
    let level: Int
    var description: String { String(format: "%.1f", Double(level) / 10) }
}

/// The model: owns the rectangles and announces every change, knowing nothing about screens.
private final class Plane: Sendable {
    private struct Rectangle {
        let uniqueID: String
        var color: RGBColor
        var opacity: Opacity
    }

    private let rectangles = Mutex<[Rectangle]>([])
    private let center: EventCenter
    private let timeline: Timeline

    init(center: EventCenter, timeline: Timeline) {
        self.center = center
        self.timeline = timeline
    }

    func createRectangle(id: String, color: RGBColor) {
        rectangles.withLock { $0.append(Rectangle(uniqueID: id, color: color, opacity: Opacity(level: 10))) }
        timeline.note("plane: created \(id), posting rectangleCreated")
        center.dispatch(.rectangleCreated, from: self, payload: Payload(.uniqueID, id).setting(.color, to: color))
    }

    func changeColor(of id: String, to color: RGBColor) {
        guard update(id, { $0.color = color }) else { return }
        timeline.note("plane: \(id) is now \(color), posting rectangleColorChanged")
        center.dispatch(.rectangleColorChanged, from: self, payload: Payload(.uniqueID, id).setting(.color, to: color))
    }

    func changeOpacity(of id: String, to opacity: Opacity) {
        guard update(id, { $0.opacity = opacity }) else { return }
        timeline.note("plane: \(id) opacity is now \(opacity), posting rectangleOpacityChanged")
        let payload = Payload(.uniqueID, id).setting(.opacity, to: opacity)
        center.dispatch(.rectangleOpacityChanged, from: self, payload: payload)
    }

    private func update(_ id: String, _ change: (inout Rectangle) -> Void) -> Bool {
        rectangles.withLock { rectangles in
            guard let index = rectangles.firstIndex(where: { $0.uniqueID == id }) else { return false }
            change(&rectangles[index])
            return true
        }
    }
}

/// The screen's controller: keeps one view per rectangle and reacts to the plane's events.
private final class ShapesController: Sendable {
    private let views = Mutex<[String: String]>([:])
    private let timeline: Timeline

    init(timeline: Timeline) { self.timeline = timeline }

    /// Called as a view controller's viewDidLoad is; keyed, so running it twice registers nothing new.
    func viewDidLoad(center: EventCenter, plane: Plane) {
        center.listen(to: .rectangleCreated, owner: self, key: "views", from: plane) { controller, event in
            controller.handle(event) { try controller.addView(id: $0[.uniqueID], color: $0[.color]) }
        }
        center.listen(to: .rectangleColorChanged, owner: self, key: "views", from: plane) { controller, event in
            controller.handle(event) { try controller.recolor(id: $0[.uniqueID], color: $0[.color]) }
        }
        center.listen(to: .rectangleOpacityChanged, owner: self, key: "views") { controller, event in
            controller.handle(event) { try controller.fade(id: $0[.uniqueID], opacity: $0[.opacity]) }
        }
    }

    /// Runs a reaction; a value that is missing or of the wrong type is reported, not ignored.
    private func handle(_ event: NamedEvent, _ reaction: (NamedEvent) throws -> Void) {
        do {
            try reaction(event)
        } catch {
            timeline.call("controller", "cannot react: \(error)")
        }
    }

    private func addView(id: String, color: RGBColor) {
        let count = views.withLock { views in
            views[id] = "\(color), opacity 1.0"
            return views.count
        }
        timeline.call("controller", "adds a view for \(id) in \(color) (\(count) views), keeps the buttons on top")
    }

    private func recolor(id: String, color: RGBColor) {
        views.withLock { $0[id] = "\(color)" }
        timeline.call("controller", "paints \(id) \(color) and shows \"\(color)\" on the color button")
    }

    private func fade(id: String, opacity: Opacity) {
        timeline.call("controller", "sets \(id) to opacity \(opacity)")
    }

    deinit { timeline.call("controller", "deinitialized") }
}

/// Prints the demo's timeline: rectangles announced with named events and typed keys.
func runShapesDemo() {
    let timeline = Timeline("shapes: a rectangle model posts named events, a controller reacts")
    let center = EventFlow.center(for: "shapes")
    let plane = Plane(center: center, timeline: timeline)

    timeline.step("The controller loads (twice: keyed registrations are not repeated)")
    var controller: ShapesController? = ShapesController(timeline: timeline)
    controller?.viewDidLoad(center: center, plane: plane)
    controller?.viewDidLoad(center: center, plane: plane)
    timeline.note("listeners of rectangleCreated: \(center.listenerCount(for: .rectangleCreated))")

    timeline.step("A debug log listens to every name (NotificationCenter's nil name)")
    let debugLog = center.listen(to: NamedEvent.self, priority: .low) { event in
        timeline.call("debug log", "\(event.name) \(event.payload)")
    }

    timeline.step("Old analytics code still observes NotificationCenter: bridge the color changes out")
    let notifications = NotificationCenter()
    let outbound = center.postNotifications(for: .rectangleColorChanged, to: notifications)
    let analytics = notifications.addObserver(
        forName: EventName.rectangleColorChanged.notificationName, object: nil, queue: nil
    ) {
        note in
        let id = note.userInfo?["uniqueID"] as? String ?? "?"
        timeline.call("analytics (NotificationCenter)", "logs a color change of \(id)")
    }

    timeline.step("Tap \"add rectangle\" twice")
    plane.createRectangle(id: "rect-1", color: RGBColor(red: 240, green: 90, blue: 70))
    plane.createRectangle(id: "rect-2", color: RGBColor(red: 60, green: 130, blue: 250))

    timeline.step("Tap \"random color\" with rect-1 selected")
    plane.changeColor(of: "rect-1", to: RGBColor(red: 20, green: 200, blue: 120))

    timeline.step("Lower rect-2's opacity with the slider")
    plane.changeOpacity(of: "rect-2", to: Opacity(level: 7))

    timeline.step("A plugin dispatches an opacity change with a plain Int: the controller says so")
    let plugin = PayloadKey<Int>("opacity")
    center.dispatch(.rectangleOpacityChanged, payload: Payload(.uniqueID, "rect-2").setting(plugin, to: 3))

    timeline.step("The screen closes; nobody calls remove")
    controller = nil
    timeline.note("listeners of rectangleCreated: \(center.listenerCount(for: .rectangleCreated)) (the debug log)")
    plane.createRectangle(id: "rect-3", color: RGBColor(red: 0, green: 0, blue: 0))

    timeline.step("Cancel the bridge: analytics hears nothing more")
    outbound.cancel()
    plane.changeColor(of: "rect-3", to: RGBColor(red: 255, green: 255, blue: 255))

    notifications.removeObserver(analytics)
    withExtendedLifetime(debugLog) {}
}
