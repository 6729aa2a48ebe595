/// Upper bounds on what the client accepts from a server, so that a faulty or hostile server
/// cannot make it allocate without bound or recurse without bound.
///
/// A reply over a limit fails with ``RedisError/frameTooLarge(limit:declared:)`` (sizes) or
/// ``RedisError/protocolViolation(_:)`` (nesting) before anything of that size is allocated,
/// and the connection is closed.
///
/// ```swift
/// var configuration = RedisConfiguration()
/// configuration.limits.maxBulkBytes = 8 * 1024 * 1024   // values are never larger than 8 MiB
/// ```
public struct RESPLimits: Sendable, Hashable {
    /// The largest bulk string accepted, in bytes. Default 64 MiB. Also bounds the length of a
    /// simple string or error line.
    public var maxBulkBytes: Int
    /// The largest array accepted, in elements. Default 1,048,576.
    public var maxArrayCount: Int
    /// The deepest nesting of arrays accepted, counting a top-level array as 1. Default 32;
    /// values are clamped to 1...512. Parsing follows nesting without recursion, at any depth;
    /// the bound keeps the values built shallow, since destroying, comparing or printing a
    /// ``RESPValue`` goes one call deeper per level.
    public var maxNesting: Int

    public init(maxBulkBytes: Int = 64 * 1024 * 1024, maxArrayCount: Int = 1_048_576, maxNesting: Int = 32) {
        self.maxBulkBytes = maxBulkBytes
        self.maxArrayCount = maxArrayCount
        self.maxNesting = maxNesting
    }

    /// The nesting limit the parser enforces.
    var effectiveMaxNesting: Int { min(max(maxNesting, 1), 512) }
}
