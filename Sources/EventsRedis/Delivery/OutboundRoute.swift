/// What every message of one carried event has in common: made once per carried event by the
/// queue its messages go to, and shared by all of them.
final class OutboundRoute: Sendable {
    /// The event's wire name, for reports.
    let type: String
    /// The channel or stream key.
    let key: String
    /// The bridge instance's id prefix: a message's id is this and its number.
    let idPrefix: String

    init(type: String, key: String, idPrefix: String) {
        self.type = type
        self.key = key
        self.idPrefix = idPrefix
    }
}
