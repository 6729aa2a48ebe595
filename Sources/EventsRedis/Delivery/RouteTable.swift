import EventsRedisClient

/// The carried types' routes by wire name, looked up with the name's bytes as they lie in a
/// received message. A `String` of a wire name longer than 15 bytes (most are) is allocated on
/// the heap, and hashing it costs as much again: keyed by `String`, every received event paid
/// both.
struct RouteTable<Route: Sendable>: Sendable {
    /// Grouped by the name's length, and compared byte by byte within a group.
    private let byLength: [Int: [(name: [UInt8], route: Route)]]
    /// The longest name: a longer one in a message is none of them, without a lookup.
    private let longest: Int

    init(_ routes: [String: Route]) {
        var byLength: [Int: [(name: [UInt8], route: Route)]] = [:]
        for (name, route) in routes {
            let bytes = Array(name.utf8)
            byLength[bytes.count, default: []].append((bytes, route))
        }
        self.byLength = byLength
        longest = byLength.keys.max() ?? 0
    }

    /// The route of the type named by the UTF-8 bytes `name`, if it is carried.
    func route(for name: UnsafeBufferPointer<UInt8>) -> Route? {
        guard name.count <= longest, let candidates = byLength[name.count] else { return nil }
        for candidate in candidates where candidate.name.withUnsafeBufferPointer({ name.hasSameBytes(as: $0) }) {
            return candidate.route
        }
        return nil
    }
}
