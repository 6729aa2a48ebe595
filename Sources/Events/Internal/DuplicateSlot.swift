/// Where duplicate detection looks for keyed registrations that may equal a new one. Built only
/// from integers and identities, so the registry can hash it under its lock; the keys
/// themselves are compared afterwards, outside the lock.
struct DuplicateSlot: Hashable, Sendable {
    let eventKey: EventKey
    let ownerID: ObjectIdentifier
    let senderID: ObjectIdentifier?
    let keyHash: Int
}
