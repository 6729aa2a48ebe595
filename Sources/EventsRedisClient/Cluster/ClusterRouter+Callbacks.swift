extension ClusterRouter {
    /// ``RedisClient``'s callback pipeline on a cluster: the commands, however given, are read
    /// back into arguments, routed as ``pipeline(_:timeout:)`` routes them, and `completion`
    /// runs with the replies in order, on a task of the concurrency pool rather than on a
    /// client's I/O queue. Calls made one after another complete in no promised order; the
    /// publisher keeps one stream batch in flight, so that is not a change for it.
    func pipeline(
        _ commands: RedisClientRequest.Commands, timeout: Duration?,
        completion: @escaping @Sendable (Result<[RESPValue], RedisError>) -> Void
    ) {
        guard let arguments = Self.arguments(of: commands) else {
            completion(.failure(.protocolViolation("a command written for a cluster could not be read back")))
            return
        }
        Task {
            do throws(RedisError) {
                completion(.success(try await pipeline(arguments, timeout: timeout)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Commands in RESP (arrays of bulk strings, as ``RESPEncoder`` writes them) as arguments;
    /// `nil` when the bytes are not that.
    static func arguments(of commands: RedisClientRequest.Commands) -> [[RedisArgument]]? {
        if case .arguments(let arguments) = commands { return arguments }
        var bytes: [UInt8] = []
        commands.encode(into: &bytes)
        var index = 0
        func number(after marker: UInt8) -> Int? {
            guard index < bytes.count, bytes[index] == marker else { return nil }
            index += 1
            var value = 0
            var digits = 0
            while index < bytes.count, bytes[index] != UInt8(ascii: "\r") {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), digits < 18 else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            guard digits > 0, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") else { return nil }
            index += 2
            return value
        }
        var result: [[RedisArgument]] = []
        while index < bytes.count {
            guard let count = number(after: UInt8(ascii: "*")) else { return nil }
            var command: [RedisArgument] = []
            command.reserveCapacity(count)
            for _ in 0..<count {
                guard let length = number(after: UInt8(ascii: "$")), length <= bytes.count - index - 2,
                    bytes[index + length] == UInt8(ascii: "\r"), bytes[index + length + 1] == UInt8(ascii: "\n")
                else { return nil }
                command.append(RedisArgument(Array(bytes[index..<index + length])))
                index += length + 2
            }
            result.append(command)
        }
        return result.count == commands.count ? result : nil
    }

    /// The last reply of a routed pipeline: what `parse` made of it, or the redirection it was.
    private enum ParsedLast<Last: Sendable>: Sendable {
        case value(Last)
        case redirection(ClusterSlotMap.Redirection)
    }

    /// ``RedisClient``'s pipeline whose last reply is parsed in place, on a cluster. Every
    /// command must keep to one slot (or have no key), since the parsed reply cannot be split;
    /// after a redirection the whole pipeline is sent again, so its commands must be safe to
    /// repeat (the stream consumer's `XACK`s and `XREADGROUP` are: a redirected command did
    /// not run, and acknowledging twice changes nothing).
    nonisolated(nonsending) func pipeline<Last: Sendable>(
        _ commands: [[RedisArgument]], timeout: Duration?,
        parsingLastReply parse: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Last
    ) async throws(RedisError) -> (replies: [RESPValue], last: Last) {
        let slots = Set(commands.compactMap(ClusterCommandKey.slot))
        guard slots.count <= 1 else {
            throw .invalidConfiguration("on a cluster, a pipeline whose last reply is parsed must keep to one slot")
        }
        var asked: Address?
        var redirections = 0
        var failures = 0
        let deadline = ContinuousClock.now + configuration.connectTimeout + (timeout ?? configuration.replyTimeout)
        while true {
            let map = try await currentMap()
            var unreachable: RedisError
            if let address = asked ?? (slots.first.map { map.owner(of: $0) } ?? map.masters.first) {
                let client = try client(for: address)
                // ASKING lets only the next command in: each gets its own.
                let batch = asked == nil ? commands : commands.flatMap { [["ASKING"], $0] }
                do throws(RedisError) {
                    let (replies, last) = try await client.pipeline(batch, timeout: timeout) {
                        bytes -> ParsedLast<Last> in
                        if bytes.first == UInt8(ascii: "-"), bytes.count >= 3,
                            let redirection = ClusterSlotMap.redirection(
                                in: .error(
                                    String(
                                        decoding: UnsafeBufferPointer(rebasing: bytes[1..<bytes.count - 2]),
                                        as: UTF8.self)),
                                from: address)
                        {
                            return .redirection(redirection)
                        }
                        return .value(parse(bytes))
                    }
                    let own = asked == nil ? replies : stride(from: 1, to: replies.count, by: 2).map { replies[$0] }
                    var redirection: ClusterSlotMap.Redirection?
                    if case .redirection(let found) = last { redirection = found }
                    if redirection == nil {
                        redirection = own.lazy.compactMap { ClusterSlotMap.redirection(in: $0, from: address) }.first
                    }
                    guard let redirection, redirections < cluster.maxRedirections else {
                        guard case .value(let value) = last else {
                            throw .server("too many redirections for one pipeline (\(redirections))")
                        }
                        return (own, value)
                    }
                    redirections += 1
                    if redirection.isAsk {
                        asked = redirection.address
                    } else {
                        asked = nil
                        _ = try? await refreshMap()
                    }
                    continue
                } catch {
                    guard error.code == .connectFailed else { throw error }
                    unreachable = error
                }
            } else {
                unreachable = .connectFailed(
                    host: "cluster", port: 0, reason: "no master serves slot \(slots.first ?? -1)")
            }
            failures += 1
            let delay = configuration.reconnect.delay(afterFailures: failures)
            guard ContinuousClock.now + delay < deadline else { throw unreachable }
            try? await Task.sleep(for: delay)
            asked = nil
            _ = try? await refreshMap()
        }
    }
}
