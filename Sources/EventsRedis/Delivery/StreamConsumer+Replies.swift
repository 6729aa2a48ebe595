// Reading the replies of stream reads: entries from a reply walked in place (the usual case),
// or from a reply built as a value (a claim, a range, and any reply of another shape).

extension StreamConsumer {
    /// Entries of an XREADGROUP reply given as its RESP bytes, verbatim, read where they lie
    /// (the client's read buffer; this runs on the client's thread): one `String` for each
    /// stream key and entry id and one array for each `event` field, where building the reply
    /// as a value made several allocations per entry and a tree to free.
    ///
    /// A reply of any other shape than the usual one (a null, an error, something unexpected)
    /// is built as a value and read by ``entries(fromRead:)``, so it gives the same entries or
    /// the same error; an error reply fails with ``RedisError/server(_:)``.
    static func entries(fromVerbatimRead bytes: UnsafeBufferPointer<UInt8>) -> Result<[Entry], RedisError> {
        if let walked = walkRead(RESPScanner(bytes: bytes, limits: RESPLimits())) { return .success(walked) }
        var cursor = 0
        let value = RESPScanner(bytes: bytes, limits: RESPLimits()).build(at: &cursor)
        if case .error(let text) = value { return .failure(.server(text)) }
        return Result { () throws(RedisError) in try entries(fromRead: value) }
    }

    /// The usual XREADGROUP reply, `[[key, [[id, [field, value, ...]], ...]], ...]` with bulk
    /// strings throughout, read in place; nil for anything else.
    private static func walkRead(_ scanner: RESPScanner) -> [Entry]? {
        var index = 0
        guard let streamCount = scanner.arrayCount(at: &index), streamCount >= 0 else { return nil }
        var entries: [Entry] = []
        for _ in 0..<streamCount {
            guard scanner.arrayCount(at: &index) == 2, let keyBytes = scanner.bulkString(at: &index),
                let entryCount = scanner.arrayCount(at: &index), entryCount >= 0
            else { return nil }
            let key = String(decoding: keyBytes, as: UTF8.self)
            entries.reserveCapacity(entries.count + entryCount)
            for _ in 0..<entryCount {
                guard scanner.arrayCount(at: &index) == 2, let idBytes = scanner.bulkString(at: &index) else {
                    return nil
                }
                let id = String(decoding: idBytes, as: UTF8.self)
                if scanner.skipNull(at: &index) {
                    entries.append(Entry(key: key, id: id, message: nil, deleted: true))
                    continue
                }
                guard let fieldCount = scanner.arrayCount(at: &index), fieldCount >= 0, fieldCount % 2 == 0 else {
                    return nil
                }
                var message: UnsafeBufferPointer<UInt8>?
                for _ in 0..<fieldCount / 2 {
                    guard let name = scanner.bulkString(at: &index), let value = scanner.bulkString(at: &index) else {
                        return nil
                    }
                    // The last `event` field wins, as in `entry(_:key:)`.
                    if name.elementsEqual("event".utf8) { message = value }
                }
                entries.append(Entry(key: key, id: id, message: message.map { Array($0) }, deleted: false))
            }
        }
        guard index == scanner.bytes.count else { return nil }
        return entries
    }

    /// Entries of an XREADGROUP reply: `[[key, [[id, [field, value, ...]], ...]], ...]`, or
    /// null when the block time passed without entries.
    static func entries(fromRead reply: RESPValue) throws(RedisError) -> [Entry] {
        if reply.isNull { return [] }
        guard let streams = reply.array else {
            throw RedisError.unexpectedReply(expected: "an XREADGROUP reply", got: "\(reply)")
        }
        var entries: [Entry] = []
        for stream in streams {
            guard let pair = stream.array, pair.count == 2, let key = pair[0].string, let items = pair[1].array else {
                throw RedisError.unexpectedReply(expected: "a stream and its entries", got: "\(stream)")
            }
            for item in items { entries.append(try entry(item, key: key)) }
        }
        return entries
    }

    /// One `[id, [field, value, ...]]` entry; the fields are null for an entry deleted since
    /// it was delivered.
    static func entry(_ item: RESPValue, key: String) throws(RedisError) -> Entry {
        guard let parts = item.array, parts.count == 2, let id = parts[0].string else {
            throw RedisError.unexpectedReply(expected: "a stream entry", got: "\(item)")
        }
        if parts[1].isNull { return Entry(key: key, id: id, message: nil, deleted: true) }
        guard let fields = parts[1].array, fields.count % 2 == 0 else {
            throw RedisError.unexpectedReply(expected: "the fields of a stream entry", got: "\(parts[1])")
        }
        var message: [UInt8]?
        for index in stride(from: 0, to: fields.count, by: 2) where fields[index].string == "event" {
            message = fields[index + 1].bytes
        }
        return Entry(key: key, id: id, message: message, deleted: false)
    }
}
