import Dispatch
import Foundation

/// Where a listener's handler runs, as diagnostics name it. It keeps what it names (the
/// queue, the actor's type) and makes the name only when asked, so registering pays nothing
/// for it.
enum ListenerContext: Sendable, CustomStringConvertible {
    case postingThread
    case background
    case queue(DispatchQueue)
    case operationQueue(OperationQueue)
    case mainActor(MainActorDelivery)
    case actor(TypeIdentity)

    init(_ delivery: Delivery.Kind) {
        switch delivery {
        case .postingThread: self = .postingThread
        case .background: self = .background
        case .queue(let queue): self = .queue(queue)
        case .operationQueue(let queue): self = .operationQueue(queue)
        }
    }

    var description: String {
        switch self {
        case .postingThread: "posting thread"
        case .background: "background queue"
        case .queue(let queue): queue.label.isEmpty ? "queue" : "queue \(queue.label)"
        case .operationQueue(let queue): queue.name.map { "operation queue \($0)" } ?? "operation queue"
        case .mainActor(.main): "main actor"
        case .mainActor(.mainOrdered): "main actor, ordered"
        case .actor(let type): "actor \(type)"
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
    var actorType: TypeIdentity { get }
}

extension ActorRoute: ActorBoundRoute {
    var actorType: TypeIdentity { TypeIdentity(A.self) }
}
