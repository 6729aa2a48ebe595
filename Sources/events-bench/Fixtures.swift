import Events
import Foundation

// The events, listeners and Foundation counterparts that every scenario shares. Every listener,
// in every implementation, does the same trivial work: add the event's payload to a counter on
// an object it captures. The closure baseline adds 1 (it has no event to read).

/// The event of the synchronous scenarios: a small struct with a payload, as most app events are.
struct Ping: Event {
    let value: Int
}

/// The event of the two-thread scenario: it carries the number of the thread that dispatched it.
struct LanePing: Event {
    let lane: Int
}

/// Event types that nobody dispatches, for the "unrelated listeners" scenario. `Unrelated<Ping>`,
/// `Unrelated<Unrelated<Ping>>`, ... are distinct event types, made at run time.
struct Unrelated<Inner: Event>: Event {}

/// The object every listener and every baseline closure captures, holding the counter they bump.
///
/// The counter lives behind a pointer rather than in a stored `var`: a class's stored property
/// gets a dynamic exclusivity check on every modification, which would cost more than the
/// dispatch being measured and blur every ratio.
final class Tally: @unchecked Sendable {
    // Why @unchecked is safe: a Tally is only ever bumped by one thread: the benchmark's main
    // thread, or in the two-thread scenario the one thread whose closures capture it; or, in the
    // main-actor scenarios, by the main actor only, whose main-queue blocks run one at a time and
    // in order even when a worker thread drains them. (Handlers of Foundation's AsyncMessage also
    // capture one, but nothing is ever posted to them.)
    private let counter: UnsafeMutablePointer<Int>

    init() {
        // A cache line of its own (two, for adjacent-line prefetching), so that the tallies of two
        // threads never share one.
        counter = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 128).bindMemory(to: Int.self, capacity: 1)
        counter.initialize(to: 0)
    }

    deinit {
        consume(counter.pointee)
        counter.deallocate()
    }

    @inline(__always)
    func add(_ value: Int) {
        counter.pointee &+= value
    }

    /// The sum of everything added so far.
    var total: Int { counter.pointee }
}

/// Counters for the two-thread scenario, one per thread, a cache line or more apart so that the
/// listeners' own work never contends.
final class Lanes: @unchecked Sendable {
    // Why @unchecked is safe: thread `lane` only ever writes slot `lane`; the slots are read only
    // after the threads have been joined.
    private static let spacing = 16  // Ints: 128 bytes
    private let slots: UnsafeMutablePointer<Int>
    private let count: Int

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count * Lanes.spacing)
        slots.initialize(repeating: 0, count: count * Lanes.spacing)
    }

    deinit {
        slots.deallocate()
    }

    @inline(__always)
    func bump(_ lane: Int) {
        slots[lane * Lanes.spacing] &+= 1
    }

    var total: Int {
        (0..<count).reduce(0) { $0 &+ slots[$1 * Lanes.spacing] }
    }
}

/// An owner for the owner-bound form of `listen`.
final class Owner: Sendable {}

/// A sender for `dispatch(_:from:)`.
final class Editor: Sendable {}

// MARK: Handlers
//
// Made by functions the optimizer may not inline, so that a measured handler is a real closure
// with a real context, exactly as an app would pass one.

@inline(never)
func makeHandler(_ tally: Tally) -> @Sendable (Ping) -> Void {
    { ping in tally.add(ping.value) }
}

@inline(never)
func makeOwnerHandler(_ tally: Tally) -> @Sendable (Owner, Ping) -> Void {
    { _, ping in tally.add(ping.value) }
}

@inline(never)
func makeClosure(_ tally: Tally) -> () -> Void {
    { tally.add(1) }
}

// MARK: Foundation's NotificationCenter, block API

let pingName = Notification.Name("events-bench.ping")
let payloadKey = "value"

@inline(never)
func makeNotificationHandler(_ tally: Tally) -> @Sendable (Notification) -> Void {
    { notification in tally.add((notification.userInfo?[payloadKey] as? Int) ?? 0) }
}

func addPingObserver(to center: NotificationCenter, _ tally: Tally) -> any NSObjectProtocol {
    center.addObserver(forName: pingName, object: nil, queue: nil, using: makeNotificationHandler(tally))
}

// MARK: Foundation's typed messages
//
// `NotificationCenter.MainActorMessage` and `NotificationCenter.AsyncMessage` came with Swift
// 6.2's Foundation: on Linux in swift-corelibs-foundation (checked with the 6.3.1 compiler: both
// exist and work), on Apple platforms from the 26 releases. Older toolchains do not have them,
// so they are compiled only with Swift 6.2 or later and used only behind `#available`; where
// they are missing, the benchmark prints "n/a on this platform".

#if compiler(>=6.2)
    /// The subject type the typed messages must name; the benchmark posts without a subject.
    final class MessageSubject: Sendable {}

    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    struct PingMessage: NotificationCenter.MainActorMessage {
        typealias Subject = MessageSubject
        let value: Int
    }

    /// Message types that nobody posts, like `Unrelated`.
    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    struct UnrelatedMessage<Inner: NotificationCenter.MainActorMessage>: NotificationCenter.MainActorMessage {
        typealias Subject = MessageSubject
    }

    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    struct PingAsyncMessage: NotificationCenter.AsyncMessage {
        typealias Subject = MessageSubject
        let value: Int
    }

    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    @inline(never)
    func makeMessageHandler(_ tally: Tally) -> @MainActor (PingMessage) -> Void {
        { message in tally.add(message.value) }
    }

    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    @inline(never)
    func makeAsyncMessageHandler(_ tally: Tally) -> @Sendable (PingAsyncMessage) async -> Void {
        { message in tally.add(message.value) }
    }
#endif
