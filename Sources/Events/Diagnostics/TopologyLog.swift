/// The dispatches and deliveries a center observed, counted per edge of the topology. Keys
/// are identities, not names: names are made once, when a topology is drawn.
struct TopologyLog {
    /// Code that dispatched.
    enum Dispatcher: Hashable {
        /// The type of the `from:` sender.
        case sender(TypeIdentity)
        /// A handler that dispatched from inside its own delivery.
        case listener(TopologyLog.Listener)
        /// The `dispatch` call, for a dispatch without a sender from outside any handler.
        case callSite(CallSite)
        /// Neither sender nor call site is known.
        case unknown

        /// The sender's type if there is one; else the listener whose handler dispatched;
        /// else the call site.
        init(sender: AnyObject?, inside listener: ListenerRecord?, callSite: CallSite?) {
            if let sender {
                self = .sender(TypeIdentity(of: sender))
            } else if let listener {
                self = .listener(TopologyLog.Listener(listener))
            } else if let callSite {
                self = .callSite(callSite)
            } else {
                self = .unknown
            }
        }
    }

    /// Code that listened: its owner's type, or the `listen` call.
    enum Listener: Hashable {
        case owner(TypeIdentity)
        case callSite(CallSite)

        init(_ record: ListenerRecord) {
            if let owner = record.owner {
                self = .owner(TypeIdentity(of: owner))
            } else {
                self = .callSite(record.callSite)
            }
        }
    }

    /// One observed dispatch: who, which event, and who received it.
    struct Dispatch {
        let dispatcher: Dispatcher
        let event: EventIdentity
        let receivers: [Listener]
    }

    private(set) var dispatches: [Dispatcher: [EventIdentity: Int]] = [:]
    private(set) var deliveries: [EventIdentity: [Listener: Int]] = [:]

    mutating func record(_ dispatch: Dispatch) {
        dispatches[dispatch.dispatcher, default: [:]][dispatch.event, default: 0] += 1
        if deliveries[dispatch.event] == nil { deliveries[dispatch.event] = [:] }
        for receiver in dispatch.receivers {
            deliveries[dispatch.event]![receiver, default: 0] += 1
        }
    }
}
