public import Events
import Foundation

extension RedisBridge {
    // MARK: - Failure policies per event

    /// Carries the events of type `type` in `mode`, with their own failure policy when they
    /// come from a stream (see ``FailurePolicy``), in place of the configuration's.
    ///
    /// ```swift
    /// try bridge.carry(OrderPlaced.self, mode: .stream, onFailure: .retry(maxDeliveries: 10))
    /// try bridge.carry(PageViewed.self, mode: .stream, onFailure: .acknowledge)
    /// ```
    public func carry<E: RemoteEvent>(
        _ type: E.Type, mode: Mode, direction: Direction = .both, onFailure policy: FailurePolicy
    ) throws(RedisBridgeError) {
        try carry(type, mode: mode, direction: direction)
        setFailurePolicy(policy, forWireName: E.wireName)
    }

    /// Carries named events that have no data, with their own failure policy (see
    /// ``carry(_:mode:direction:onFailure:)-(E.Type,_,_,_)``).
    public func carry(
        _ name: EventName, mode: Mode, direction: Direction = .both, onFailure policy: FailurePolicy
    ) throws(RedisBridgeError) {
        try carry(name, mode: mode, direction: direction)
        setFailurePolicy(policy, forWireName: name.rawValue)
    }

    /// Carries named events whose data is a `Value`, with their own failure policy (see
    /// ``carry(_:mode:direction:onFailure:)-(E.Type,_,_,_)``).
    public func carry<Value: Codable & Sendable>(
        _ name: EventName, data: Value.Type, mode: Mode, direction: Direction = .both, onFailure policy: FailurePolicy
    ) throws(RedisBridgeError) {
        try carry(name, data: data, mode: mode, direction: direction)
        setFailurePolicy(policy, forWireName: name.rawValue)
    }

    func setFailurePolicy(_ policy: FailurePolicy, forWireName wireName: String) {
        let keys = streamKeys(ofWireName: wireName)
        failurePolicies.withLock { policies in
            for key in keys { policies[key] = policy }
        }
    }

    // MARK: - Dead letters

    /// The dead letters of the events of type `type`, oldest first, at most `limit` of them.
    ///
    /// ```swift
    /// for letter in try await bridge.deadLetters(of: OrderPlaced.self) {
    ///     print(letter.entry, letter.deliveries, letter.error)
    /// }
    /// ```
    ///
    /// Works whether or not the bridge is started: it opens a connection of its own for the
    /// call. Throws ``RedisBridgeError/redis(_:)`` when Redis cannot be reached or answers
    /// with something other than a stream.
    public func deadLetters<E: RemoteEvent>(of type: E.Type, limit: Int = 100) async throws(RedisBridgeError)
        -> [DeadLetter]
    {
        try await deadLetters(onStreams: streamKeys(ofWireName: E.wireName), limit: limit)
    }

    /// The dead letters of the events named `name`, oldest first, at most `limit` of them.
    public func deadLetters(of name: EventName, limit: Int = 100) async throws(RedisBridgeError) -> [DeadLetter] {
        try await deadLetters(onStreams: streamKeys(ofWireName: name.rawValue), limit: limit)
    }

    /// Puts a dead letter's event back on its stream, as a new entry with the same CloudEvent
    /// (same `id`), and removes the dead letter, in one transaction.
    ///
    /// ```swift
    /// for letter in try await bridge.deadLetters(of: OrderPlaced.self) where letter.error.contains("timeout") {
    ///     try await bridge.replay(letter)
    /// }
    /// ```
    ///
    /// Every consumer group reads it as a new entry. A receiver that still remembers the
    /// event's identity (it delivered the event successfully, recently) suppresses it as a
    /// duplicate; one that does not, such as the one whose listeners failed, delivers it.
    /// Returns the new entry's id.
    @discardableResult
    public func replay(_ letter: DeadLetter) async throws(RedisBridgeError) -> String {
        let add: [RedisArgument] = ["XADD", RedisArgument(letter.stream), "*", "event", RedisArgument(letter.event)]
        let remove: [RedisArgument] = ["XDEL", RedisArgument(letter.deadLetterStream), RedisArgument(letter.id)]
        let replies = try await withConnection { client throws(RedisError) in
            guard client.configuration.cluster != nil else {
                return try await client.pipeline([["MULTI"], add, remove, ["EXEC"]])
            }
            // On a cluster the two streams hash to different slots: added first, removed after,
            // so that a failure between the two leaves the letter to replay again, never lost.
            let added = try await client.send(add)
            try await client.send(remove)
            return [.array([added, .integer(1)])]
        }
        guard let results = replies.last?.array, results.count == 2, let id = results[0].string else {
            throw .redis(.unexpectedReply(expected: "the replayed entry's id", got: "\(replies.last ?? .null)"))
        }
        return id
    }

    /// Removes every dead letter of the events of type `type`; returns how many there were.
    @discardableResult
    public func purgeDeadLetters<E: RemoteEvent>(of type: E.Type) async throws(RedisBridgeError) -> Int {
        try await purgeDeadLetters(onStreams: streamKeys(ofWireName: E.wireName))
    }

    /// Removes every dead letter of the events named `name`; returns how many there were.
    @discardableResult
    public func purgeDeadLetters(of name: EventName) async throws(RedisBridgeError) -> Int {
        try await purgeDeadLetters(onStreams: streamKeys(ofWireName: name.rawValue))
    }

    /// Removes one dead letter (after handling it by other means).
    public func purge(_ letter: DeadLetter) async throws(RedisBridgeError) {
        _ = try await withConnection { client throws(RedisError) in
            try await client.send(["XDEL", RedisArgument(letter.deadLetterStream), RedisArgument(letter.id)])
        }
    }

    /// The dead letters of every stream in `streams` (a type's partitions), oldest first by
    /// the time Redis wrote them, at most `limit` in all.
    private func deadLetters(onStreams streams: [String], limit: Int) async throws(RedisBridgeError)
        -> [DeadLetter]
    {
        guard streams.count > 1 else { return try await deadLetters(onStream: streams[0], limit: limit) }
        var letters: [DeadLetter] = []
        for stream in streams { letters += try await deadLetters(onStream: stream, limit: limit) }
        // Entry ids start with the milliseconds at which Redis added them, so they order the
        // letters of different streams by when each was written.
        letters.sort { StreamEntryID($0.id) < StreamEntryID($1.id) }
        return Array(letters.prefix(max(1, limit)))
    }

    private func purgeDeadLetters(onStreams streams: [String]) async throws(RedisBridgeError) -> Int {
        var purged = 0
        for stream in streams { purged += try await purgeDeadLetters(onStream: stream) }
        return purged
    }

    private func deadLetters(onStream stream: String, limit: Int) async throws(RedisBridgeError) -> [DeadLetter] {
        let key = configuration.deadLetterKey(stream)
        let reply = try await withConnection { client throws(RedisError) in
            try await client.send(["XRANGE", RedisArgument(key), "-", "+", "COUNT", RedisArgument(max(1, limit))])
        }
        guard let items = reply.array else {
            throw .redis(.unexpectedReply(expected: "the entries of \(key)", got: "\(reply)"))
        }
        var letters: [DeadLetter] = []
        for item in items {
            guard let parts = item.array, parts.count == 2, let id = parts[0].string, let fields = parts[1].array,
                fields.count % 2 == 0
            else { throw .redis(.unexpectedReply(expected: "a dead-letter entry", got: "\(item)")) }
            var values: [String: [UInt8]] = [:]
            for index in stride(from: 0, to: fields.count, by: 2) {
                guard let name = fields[index].string, let value = fields[index + 1].bytes else { continue }
                values[name] = value
            }
            func text(_ name: String) -> String? { values[name].map { String(decoding: $0, as: UTF8.self) } }
            letters.append(
                DeadLetter(
                    id: id, deadLetterStream: key, event: values["event"] ?? [], error: text("error") ?? "",
                    listener: text("listener"), deliveries: text("deliveries").flatMap { Int($0) } ?? 0,
                    entry: text("entry") ?? "",
                    // The stream listed from, not the field: anyone may write to the stream,
                    // and a replay must not go where a forged field says.
                    stream: stream, group: text("group") ?? "",
                    consumer: text("consumer") ?? "", time: text("time").flatMap(RFC3339.date(from:))))
        }
        return letters
    }

    private func purgeDeadLetters(onStream stream: String) async throws(RedisBridgeError) -> Int {
        let key = configuration.deadLetterKey(stream)
        let replies = try await withConnection { client throws(RedisError) in
            try await client.pipeline([
                ["MULTI"], ["XLEN", RedisArgument(key)], ["DEL", RedisArgument(key)], ["EXEC"],
            ])
        }
        return replies.last?.array?.first?.int ?? 0
    }

    /// Runs `body` with a connection of its own, closed afterwards.
    private func withConnection<T>(
        _ body: (RedisClient) async throws(RedisError) -> T
    ) async throws(RedisBridgeError) -> T {
        let client = RedisClient(configuration.redis)
        defer { client.close() }
        do {
            return try await body(client)
        } catch {
            throw .redis(error)
        }
    }
}
