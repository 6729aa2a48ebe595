import Events

// The vocabulary shared by the reference model and the driver of the real center: the events,
// the objects, the listeners' shapes, the operations and what an observer sees. Everything here
// is a plain value, so that an operation can be generated once, applied to both sides, printed
// and replayed.

/// An event of the model run: every dispatch carries a number of its own, so that a handler's
/// record says which dispatch reached it.
protocol ModelEvent: Event {
    var id: Int { get }
    init(id: Int)
}

struct ModelEventA: ModelEvent { let id: Int }
struct ModelEventB: ModelEvent { let id: Int }

/// An owner, a sender or (through ``ModelActor``) an actor of the model run, known by its tag.
final class ModelObject: Sendable {
    let tag: Int
    init(tag: Int) { self.tag = tag }
}

/// What a listener hears: one of two event types, one of two names, or every name.
enum ModelTarget: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case a, b, name0, name1, allNames

    /// The targets a dispatch can aim at (nothing is dispatched to "every name").
    static let dispatchable: [ModelTarget] = [.a, .b, .name0, .name1]

    var isTyped: Bool { self == .a || self == .b }
    var isNamed: Bool { self == .name0 || self == .name1 }

    var eventName: EventName {
        switch self {
        case .name0: "model.name0"
        case .name1: "model.name1"
        default: preconditionFailure("\(self) is not a name")
        }
    }

    var description: String {
        switch self {
        case .a: "A"
        case .b: "B"
        case .name0: "\"name0\""
        case .name1: "\"name1\""
        case .allNames: "every name"
        }
    }
}

/// Where a listener's handler runs.
enum ModelContext: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case posting, serialQueue, concurrentQueue, operationQueue, background, actor, main, mainOrdered

    /// The executor a queued listener's events wait on; nil for posting-thread listeners.
    var executor: ModelExecutor? {
        switch self {
        case .posting: nil
        case .serialQueue: .serialQueue
        case .concurrentQueue: .concurrentQueue
        case .operationQueue: .operationQueue
        case .background: .background
        case .actor: .actors
        case .main, .mainOrdered: .main
        }
    }

    /// The case's name, as `EVENTS_MODEL_CONTEXTS` spells it.
    var name: String {
        switch self {
        case .posting: "posting"
        case .serialQueue: "serialQueue"
        case .concurrentQueue: "concurrentQueue"
        case .operationQueue: "operationQueue"
        case .background: "background"
        case .actor: "actor"
        case .main: "main"
        case .mainOrdered: "mainOrdered"
        }
    }

    var description: String {
        switch self {
        case .posting: "posting thread"
        case .serialQueue: ".queue(serial)"
        case .concurrentQueue: ".queue(concurrent)"
        case .operationQueue: ".operationQueue"
        case .background: ".background"
        case .actor: "actor"
        case .main: ".main"
        case .mainOrdered: ".mainOrdered"
        }
    }
}

/// The executors that the model run holds, and lets run only when an operation drains them.
enum ModelExecutor: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case serialQueue, concurrentQueue, operationQueue, background, actors, main

    var description: String {
        switch self {
        case .serialQueue: "serial queue"
        case .concurrentQueue: "concurrent queue"
        case .operationQueue: "operation queue"
        case .background: "background queue"
        case .actors: "actor executor"
        case .main: "main queue"
        }
    }
}

enum ModelObjectKind: Int, Hashable, Sendable, CustomStringConvertible {
    case owner, sender, actor

    var description: String {
        switch self {
        case .owner: "owner"
        case .sender: "sender"
        case .actor: "actor"
        }
    }
}

/// One of the eight removals, for one owner (an object or an actor).
struct ModelRemoval: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        /// `remove(owner)`
        case all
        /// `remove(owner, for: A.self)`, or `remove(owner, for: name)` for a name target.
        case target(ModelTarget)
        /// `remove(owner, key:)`
        case key(Int)
        /// `remove(owner, key:, for: A.self)`, or `remove(owner, key:, for: name)`.
        case keyAndTarget(Int, ModelTarget)
        /// `remove(_:for: NamedEvent.self)`
        case allNames
        /// `remove(_:key:for: NamedEvent.self)`
        case allNamesKey(Int)
    }

    var owner: Int
    var kind: Kind

    /// Whether this removal ends a listener of `target` and `key` registered by its owner.
    func matches(target: ModelTarget, key: Int?) -> Bool {
        switch kind {
        case .all: true
        case .target(let wanted): target == wanted
        case .key(let wanted): key == wanted
        case .keyAndTarget(let wantedKey, let wantedTarget): key == wantedKey && target == wantedTarget
        case .allNames: target == .allNames
        case .allNamesKey(let wanted): target == .allNames && key == wanted
        }
    }

    var description: String {
        switch kind {
        case .all: "remove(#\(owner))"
        case .target(let target): "remove(#\(owner), for: \(target))"
        case .key(let key): "remove(#\(owner), key: \(key))"
        case .keyAndTarget(let key, let target): "remove(#\(owner), key: \(key), for: \(target))"
        case .allNames: "remove(#\(owner), for: NamedEvent.self)"
        case .allNamesKey(let key): "remove(#\(owner), key: \(key), for: NamedEvent.self)"
        }
    }
}

/// What a posting-thread handler does after recording its call (rule 6).
indirect enum ModelAction: Hashable, Sendable, CustomStringConvertible {
    case none
    /// A nested dispatch (skipped below the depth limit); `sender` is used if still alive.
    case dispatch(ModelTarget, sender: Int?)
    case cancel(listener: Int)
    /// Drops the driver's subscription of the listener (a closure listener ends with it).
    case drop(listener: Int)
    case remove(ModelRemoval)
    /// Registers a listener made from `template`, with an identifier taken when it runs.
    case listen(ModelListenerSpec)
    /// Drops the driver's reference to an object, which may end it at once or later.
    case kill(tag: Int)

    var description: String {
        switch self {
        case .none: "nothing"
        case .dispatch(let target, let sender): "dispatch(\(target)\(sender.map { ", from: #\($0)" } ?? ""))"
        case .cancel(let listener): "cancel L\(listener)"
        case .drop(let listener): "drop the subscription of L\(listener)"
        case .remove(let removal): removal.description
        case .listen(let template): "listen(\(template.shape))"
        case .kill(let tag): "release #\(tag)"
        }
    }
}

/// Everything that makes one registration: what the model needs to predict it, and what the
/// driver needs to call the matching `listen` overload.
struct ModelListenerSpec: Hashable, Sendable, CustomStringConvertible {
    var id: Int
    var target: ModelTarget
    var context: ModelContext
    /// The tag of the owner (an object, or the actor of an actor listener).
    var owner: Int?
    var key: Int?
    /// The tag of the sender named in `from:`.
    var sender: Int?
    var priority: Int
    var once: Bool
    /// A typed handler that also takes the `Sender`; named handlers always see it in the event.
    var takesSender: Bool
    var action: ModelAction

    /// Whether the handler can tell who sent the event.
    var seesSender: Bool { takesSender || !target.isTyped }

    var shape: String {
        var parts = ["to: \(target)"]
        if let owner { parts.append(context == .actor ? "isolatedTo: #\(owner)" : "owner: #\(owner)") }
        if let key { parts.append("key: \(key)") }
        if context != .posting && context != .actor { parts.append("on: \(context)") }
        if let sender { parts.append("from: #\(sender)") }
        if priority != 0 { parts.append("priority: \(priority)") }
        if once { parts.append("once: true") }
        if takesSender { parts.append("{ event, sender in }") }
        return parts.joined(separator: ", ")
    }

    var description: String {
        action == .none ? "L\(id) = listen(\(shape))" : "L\(id) = listen(\(shape)) doing \(action)"
    }
}

/// One top-level step of a model run.
enum ModelOperation: Hashable, Sendable, CustomStringConvertible {
    case create(tag: Int, kind: ModelObjectKind)
    case release(tag: Int)
    case listen(ModelListenerSpec)
    case dispatch(ModelTarget, sender: Int?)
    /// A dispatch made on another thread while the run waits (in a main-actor run, where it
    /// is the only way a `.main` listener's events get queued).
    case dispatchFromAnotherThread(ModelTarget, sender: Int?)
    case cancel(listener: Int)
    case drop(listener: Int)
    case remove(ModelRemoval)
    case drain(ModelExecutor)

    var description: String {
        switch self {
        case .create(let tag, let kind): "#\(tag) = new \(kind)"
        case .release(let tag): "release #\(tag)"
        case .listen(let spec): spec.description
        case .dispatch(let target, let sender): "dispatch(\(target)\(sender.map { ", from: #\($0)" } ?? ""))"
        case .dispatchFromAnotherThread(let target, let sender):
            "dispatch(\(target)\(sender.map { ", from: #\($0)" } ?? "")) on another thread"
        case .cancel(let listener): "cancel L\(listener)"
        case .drop(let listener): "drop the subscription of L\(listener)"
        case .remove(let removal): removal.description
        case .drain(let executor): "let the \(executor) run"
        }
    }
}

/// What an observer of the real center sees during one operation, in order.
enum ModelEntry: Hashable, Sendable, CustomStringConvertible {
    /// A handler ran. `sender` is the tag it saw (0: none, -1: a handler shape that cannot see
    /// it); `owner` the tag of the owner it was handed (0: none).
    case ran(listener: Int, event: Int, sender: Int, owner: Int)
    /// A nested dispatch returned.
    case nestedReturn(event: Int, delivered: Int)
    /// A nested `listen` returned the subscription of `as` (itself, or the live duplicate).
    case registered(listener: Int, as: Int)

    var listener: Int? {
        if case .ran(let listener, _, _, _) = self { return listener }
        return nil
    }

    var description: String {
        switch self {
        case .ran(let listener, let event, let sender, let owner):
            let from = sender == -1 ? "" : sender == 0 ? " from nobody" : " from #\(sender)"
            return "L\(listener) ran with event \(event)\(from)\(owner == 0 ? "" : " (owner #\(owner))")"
        case .nestedReturn(let event, let delivered):
            return "nested dispatch of event \(event) returned \(delivered)"
        case .registered(let listener, let existing):
            return listener == existing ? "L\(listener) registered" : "L\(listener) was a duplicate of L\(existing)"
        }
    }
}

/// What one operation produced, on either side.
struct ModelOutcome: Equatable {
    var entries: [ModelEntry] = []
    /// The value `dispatch` returned, for a top-level dispatch.
    var delivered: Int?
    /// The listener whose subscription a top-level `listen` returned.
    var registeredAs: Int?
}

/// What the model and the center are asked after every operation.
struct ModelObservation: Equatable, CustomStringConvertible {
    /// `listenerCount(for:)` of A, B, name0 and name1, then `listenerCount(for: NamedEvent.self)`.
    var counts: [Int] = []
    /// The listeners whose subscription the driver holds, in registration order.
    var held: [Int] = []
    /// `isActive` of each of them (nil: the driver holds no such subscription).
    var active: [Bool?] = []

    var description: String {
        let actives = zip(held, active).map { "L\($0): \($1.map { $0 ? "active" : "ended" } ?? "not held")" }
        return "counts (A, B, name0, name1, every name) \(counts); \(actives.joined(separator: ", "))"
    }
}
