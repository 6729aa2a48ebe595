import Foundation
import Testing

@testable import Events

/// A chain of links, nested as deep as it is long.
indirect enum DeepChain: Sendable {
    case end
    case link(Int, DeepChain)
}

/// A stack as small as a secondary thread gets on some platforms.
private let smallStack = 512 * 1024

/// How deep the deep values nest: far below what recursion survives on `smallStack`.
private let deep = 100_000

/// Runs `body` on a new thread with a stack of `stackSize` bytes and returns what it returns,
/// without holding a thread of the concurrency pool while it runs.
private func onThread<T: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = stackSize
        thread.start()
    }
}

// Deep values are built and taken apart one level at a time, on the thread that describes them:
// releasing the outermost level of such a value releases the next inside it, and so on, which
// recurses as deep as the value does.

private func nestedArrays(_ depth: Int) -> any Sendable {
    var value: any Sendable = 0
    for _ in 0..<depth { value = [value] }
    return value
}

private func dismantleArrays(_ value: consuming any Sendable) {
    var value = value
    while let array = value as? [any Sendable], let inner = array.first { value = inner }
}

private func nestedDictionaries(_ depth: Int) -> any Sendable {
    var value: any Sendable = 0
    for _ in 0..<depth { value = ["inner": value] }
    return value
}

private func dismantleDictionaries(_ value: consuming any Sendable) {
    var value = value
    while let dictionary = value as? [String: any Sendable], let inner = dictionary["inner"] { value = inner }
}

private func chain(_ length: Int) -> DeepChain {
    var chain = DeepChain.end
    for n in 0..<length { chain = .link(n, chain) }
    return chain
}

private func dismantle(_ chain: consuming DeepChain) {
    var chain = chain
    while case .link(_, let next) = chain { chain = next }
}

private func nestedEvents(_ depth: Int) -> NamedEvent {
    var event = NamedEvent(name: "inner")
    for _ in 0..<depth { event = NamedEvent(name: "outer", data: event) }
    return event
}

private func dismantle(_ event: consuming NamedEvent) {
    var event = event
    while let inner = try? event.data(as: NamedEvent.self) { event = inner }
}

private func nestedPayloads(_ depth: Int) -> Payload {
    var payload = Payload()
    for _ in 0..<depth { payload = Payload((PayloadKey<Payload>("inner"), payload)) }
    return payload
}

private func dismantle(_ payload: consuming Payload) {
    var payload = payload
    while let inner = try? NamedEvent(name: "read", payload: payload)[PayloadKey<Payload>("inner")] {
        payload = inner
    }
}

/// A Foundation array inside a Sendable value, as a user's own type might hold one.
struct FoundationArray: @unchecked Sendable {
    // Why @unchecked is safe: the NSArrays are immutable and never handed out to be mutated.
    let array: NSArray
}

/// Every level of a nest of Foundation arrays, the outermost last. Reading an element out of one
/// recurses as deep as it nests, so the levels are kept to be let go of one by one.
private func nestedNSArrays(_ depth: Int) -> [NSArray] {
    var levels = [NSArray(array: [0])]
    for _ in 0..<depth { levels.append(NSArray(array: [levels.last!])) }
    return levels
}

private func dismantle(_ levels: consuming [NSArray]) {
    var levels = levels
    while !levels.isEmpty { levels.removeLast() }
}

/// A userInfo handed to one other thread, which takes it out.
private final class UserInfoHandOver: @unchecked Sendable {
    // Why @unchecked is safe: `userInfo` is written once before the other thread starts and
    // taken once by that thread; the semaphore orders both before anything else here.
    private var userInfo: [AnyHashable: Any]?

    init(_ userInfo: [AnyHashable: Any]?) { self.userInfo = userInfo }

    func take() -> [AnyHashable: Any]? {
        defer { userInfo = nil }
        return userInfo
    }
}

/// What a description of a deep value must be: short, with the elision marker in it.
private func isElided(_ text: String) -> Bool {
    text.contains(BoundedDescription.elision) && text.count < 10_000
}

@Suite("Named events: describing deeply nested values")
struct NamedEventDescriptionTests {
    @Test("an event whose data nests arrays 100,000 deep describes itself on a 512 KiB stack")
    func deepArraysAsData() async {
        let text = await onThread(stackSize: smallStack) {
            let value = nestedArrays(deep)
            let text = NamedEvent(name: "deep", data: value).description
            dismantleArrays(consume value)
            return text
        }
        #expect(text.hasPrefix(#"NamedEvent("deep", data: [[[["#))
        #expect(text.hasSuffix("]]]])"))
        #expect(isElided(text))
    }

    @Test("an indirect enum 100,000 deep in the payload is described, elided")
    func deepEnumInThePayload() async {
        let text = await onThread(stackSize: smallStack) {
            let value = chain(deep)
            let text = NamedEvent(name: "deep", payload: Payload((PayloadKey<DeepChain>("chain"), value))).description
            dismantle(consume value)
            return text
        }
        #expect(
            text.hasPrefix(
                #"NamedEvent("deep", payload: [chain: EventsTests.DeepChain.link(99999, EventsTests.DeepChain.link("#))
        #expect(isElided(text))
    }

    @Test("dictionaries 100,000 deep are described, elided")
    func deepDictionaries() async {
        let text = await onThread(stackSize: smallStack) {
            let value = nestedDictionaries(deep)
            let text = NamedEvent(name: "deep", data: value).description
            dismantleDictionaries(consume value)
            return text
        }
        #expect(text.hasPrefix(#"NamedEvent("deep", data: ["inner": ["inner": "#))
        #expect(isElided(text))
    }

    @Test("events carried as data of events 100,000 deep are described, elided")
    func deepEventsInEvents() async {
        let text = await onThread(stackSize: smallStack) {
            let event = nestedEvents(deep)
            let text = event.description
            dismantle(consume event)
            return text
        }
        #expect(text.hasPrefix(#"NamedEvent("outer", data: NamedEvent("outer", data: "#))
        #expect(isElided(text))
    }

    @Test("payloads inside payloads 100,000 deep are described, elided")
    func deepPayloads() async {
        let text = await onThread(stackSize: smallStack) {
            let payload = nestedPayloads(deep)
            let text = payload.description + " " + NamedEvent(name: "deep", payload: payload).description
            dismantle(consume payload)
            return text
        }
        #expect(text.hasPrefix("[inner: [inner: [inner: "))
        #expect(isElided(text))
    }

    @Test("Foundation arrays 100,000 deep are described, elided")
    func deepFoundationArrays() async {
        let text = await onThread(stackSize: smallStack) {
            let levels = nestedNSArrays(deep)
            let text = NamedEvent(name: "deep", data: FoundationArray(array: levels.last!)).description
            dismantle(consume levels)
            return text
        }
        #expect(text.hasPrefix("NamedEvent(\"deep\", data: EventsTests.FoundationArray(array: [[[["))
        #expect(isElided(text))
    }

    @Test("a userInfo key nested 10,000 deep is forwarded on a 512 KiB stack")
    func deepKeyIsForwarded() async {
        // Hashing a key recurses as deep as it nests: the dictionary is built on a large stack,
        // and only the post, where the bridge names the key, runs on the small one.
        let names = await onThread(stackSize: 64 * 1024 * 1024) {
            var key: [AnyHashable] = [0]
            for _ in 0..<10_000 { key = [AnyHashable(key)] }
            var userInfo: [AnyHashable: Any]? = [AnyHashable(key): "deep", "id": "r1"]
            let notifications = NotificationCenter()
            let center = EventCenter()
            let received = Recorder<NamedEvent>()
            let bridge = center.forwardNotifications(named: .init("bridge.deepKey"), from: notifications)
            let listener = center.listen(to: "bridge.deepKey") { event in received.record(event) }
            let posted = DispatchSemaphore(value: 0)
            // The poster thread may outlive the post a little: it lets go of the userInfo before
            // it signals, so the last reference to the key stays here.
            let handOver = UserInfoHandOver(userInfo)
            let poster = Thread {
                notifications.post(name: .init("bridge.deepKey"), object: nil, userInfo: handOver.take())
                posted.signal()
            }
            poster.stackSize = smallStack
            poster.start()
            posted.wait()
            _ = (bridge, listener)
            userInfo = nil
            while let inner = key.first?.base as? [AnyHashable] { key = inner }
            return received.values.first?.payload.keys ?? []
        }
        #expect(names.count == 2)
        #expect(names.contains("id"))
        #expect(names.contains { $0.contains(BoundedDescription.elision) })
    }

    @Test("a value within the depth limit is described exactly as String(reflecting:) describes it")
    func shallowValuesKeepTheirUsualDescription() {
        let value = nestedArrays(BoundedDescription.depthLimit - 1)
        #expect(BoundedDescription.reflecting(value) == String(reflecting: value))
        let event = NamedEvent(name: "shallow", data: value)
        #expect(event.description == #"NamedEvent("shallow", data: \#(String(reflecting: value)))"#)
        let deeper = nestedArrays(BoundedDescription.depthLimit + 1)
        #expect(BoundedDescription.reflecting(deeper).contains(BoundedDescription.elision))
    }

    @Test("values spelled out level by level read as String(reflecting:) writes them")
    func spelledOutValuesMatchTheStandardFormat() {
        struct Point: Sendable { let x: Int, y: Double }
        enum Shape: Sendable {
            case circle(radius: Double)
            case line(Point, Point)
            case box(Point)
        }
        let values: [any Sendable] = [
            [1, 2, 3], ["key": [1]], Set([4]), Optional(Optional(5)), [Int?.none], (1, label: "two"),
            Point(x: 1, y: 2), Shape.circle(radius: 1), Shape.line(Point(x: 0, y: 0), Point(x: 1, y: 1)),
            Shape.box(Point(x: 2, y: 3)), [[["deep": Shape.box(Point(x: 4, y: 5))]]] as [[[String: Shape]]],
            "text", 6.5, [(1, 2)],
        ]
        for value in values {
            #expect(BoundedDescription.reflecting(value, spellingOut: true) == String(reflecting: value))
        }
    }
}
