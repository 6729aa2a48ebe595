/// What a ``RedisSubscriber`` event stream delivers: messages, and the changes of its
/// subscription that a caller may need to act on.
///
/// ```swift
/// for try await event in subscriber.events(channels: ["orders"]) {
///     switch event {
///     case .message(let message): handle(message)
///     case .subscribed(let name, _): print("listening to \(name)")
///     case .reconnected(let cause): print("gap in the stream after \(cause); resync if needed")
///     }
/// }
/// ```
public enum RedisPubSubEvent: Sendable, Hashable {
    /// A published message.
    case message(RedisPubSubMessage)
    /// The server confirmed the subscription to the channel or pattern `name`; `count` is the
    /// number of subscriptions the connection holds now. Messages published from here on are
    /// delivered.
    case subscribed(name: String, count: Int)
    /// The connection broke (because of `cause`) and a new one was opened and subscribed again.
    /// Messages published in between were lost: Pub/Sub does not keep them.
    case reconnected(cause: RedisError)
}
