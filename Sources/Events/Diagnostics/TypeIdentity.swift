/// A type, compared by identity and named only when asked: naming a type
/// (`String(describing:)`) costs far more than the dispatch it would describe.
struct TypeIdentity: Hashable, Sendable, CustomStringConvertible {
    let type: Any.Type

    init(_ type: Any.Type) {
        self.type = type
    }

    /// The dynamic type of `object`.
    init(of object: AnyObject) {
        self.type = Swift.type(of: object)
    }

    static func == (lhs: TypeIdentity, rhs: TypeIdentity) -> Bool {
        ObjectIdentifier(lhs.type) == ObjectIdentifier(rhs.type)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type))
    }

    var description: String { String(describing: type) }
}

/// An event as diagnostics tell events apart: its type, a name, or every name.
enum EventIdentity: Hashable, Sendable, CustomStringConvertible {
    case type(TypeIdentity)
    case name(String)
    case anyName

    init<E: Event>(of event: E) {
        // A metatype comparison first: the dynamic cast is paid by named events alone.
        if E.self == NamedEvent.self, let named = event as? NamedEvent {
            self = .name(named.name.rawValue)
        } else {
            self = .type(TypeIdentity(E.self))
        }
    }

    init(of record: ListenerRecord) {
        switch record.eventKey {
        case .type: self = .type(TypeIdentity(record.eventType))
        case .name(let name): self = .name(name)
        case .anyName: self = .anyName
        }
    }

    /// A type name, a name in quotes, or "every named event".
    var description: String {
        switch self {
        case .type(let type): type.description
        case .name(let name): "\"\(name)\""
        case .anyName: "every named event"
        }
    }
}
