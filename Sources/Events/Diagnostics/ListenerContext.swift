import Dispatch
import Foundation

/// Where a listener's handler runs, as diagnostics name it.
enum ListenerContext: Sendable, Hashable, CustomStringConvertible {
    case postingThread
    case background
    case queue(label: String)
    case operationQueue(name: String?)
    case mainActor(MainActorDelivery)
    case actor(typeName: String)

    init(_ delivery: Delivery.Kind) {
        switch delivery {
        case .postingThread: self = .postingThread
        case .background: self = .background
        case .queue(let queue): self = .queue(label: queue.label)
        case .operationQueue(let queue): self = .operationQueue(name: queue.name)
        }
    }

    var description: String {
        switch self {
        case .postingThread: "posting thread"
        case .background: "background queue"
        case .queue(let label): label.isEmpty ? "queue" : "queue \(label)"
        case .operationQueue(let name): name.map { "operation queue \($0)" } ?? "operation queue"
        case .mainActor(.main): "main actor"
        case .mainActor(.mainOrdered): "main actor, ordered"
        case .actor(let typeName): "actor \(typeName)"
        }
    }

    /// Whether the handler runs on the main actor.
    var isMainActor: Bool {
        if case .mainActor = self { return true }
        return false
    }
}

/// A route that can say which actor it runs on.
protocol ActorBoundRoute {
    var actorTypeName: String { get }
}

extension ActorRoute: ActorBoundRoute {
    var actorTypeName: String { String(describing: A.self) }
}
