/// A message received through Redis Pub/Sub.
///
/// ```swift
/// for try await message in subscriber.messages(channels: ["orders"]) {
///     print(message.channel, message.string)
/// }
/// ```
public struct RedisPubSubMessage: Sendable, Hashable {
    /// The channel the message was published to.
    public var channel: String
    /// The pattern that matched the channel, for pattern subscriptions; `nil` for channel
    /// subscriptions.
    public var pattern: String?
    /// The message, byte for byte as published.
    public var payload: [UInt8]

    public init(channel: String, pattern: String? = nil, payload: [UInt8]) {
        self.channel = channel
        self.pattern = pattern
        self.payload = payload
    }

    /// The payload decoded as UTF-8 (invalid sequences become U+FFFD).
    public var string: String {
        String(decoding: payload, as: UTF8.self)
    }
}
