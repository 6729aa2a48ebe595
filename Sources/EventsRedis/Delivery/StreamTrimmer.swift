/// Keeps streams near their maximum length without ever dropping an entry that a consumer
/// group has not acknowledged.
///
/// `XADD ... MAXLEN` would drop the oldest entries whether or not they were acknowledged, so
/// trimming is done by a script that runs atomically in Redis: it finds the oldest entry that
/// must stay for each group (its oldest pending entry, or the entry after its last delivered
/// one) and trims only below all of them, and only as far as the length limit asks.
///
/// The publisher decides when to trim (at most once per interval, one trim at a time) and calls
/// ``trim(_:)``.
struct StreamTrimmer: Sendable {
    let client: RedisClient
    let maxLength: Int
    let report: @Sendable (RedisBridgeError) -> Void

    /// Trims each of `keys` as far as is safe; returns how many entries went. Failures are
    /// reported, not thrown: the next trim tries again.
    func trim(_ keys: Set<String>) async -> Int {
        var removed = 0
        for key in keys {
            do {
                let reply = try await client.send([
                    "EVAL", RedisArgument(Self.script), "1", RedisArgument(key), RedisArgument(maxLength),
                ])
                removed += reply.int ?? 0
            } catch {
                if error == .clientClosed { break }
                report(.redis(error))
            }
        }
        return removed
    }

    /// KEYS[1]: the stream; ARGV[1]: the length limit. Returns the number of entries removed.
    static let script = """
        local function older(a, b)
          local am, as = string.match(a, '^(%d+)-(%d+)$')
          local bm, bs = string.match(b, '^(%d+)-(%d+)$')
          am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
          return am < bm or (am == bm and as < bs)
        end
        local excess = redis.call('XLEN', KEYS[1]) - tonumber(ARGV[1])
        if excess <= 0 then return 0 end
        -- The oldest entry each group still needs: its oldest pending entry, or else the one
        -- after its last delivered entry (kept by keeping the last delivered entry itself).
        local keep = nil
        for _, group in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
          local info = {}
          for i = 1, #group, 2 do info[group[i]] = group[i + 1] end
          local needed = info['last-delivered-id']
          if info['pending'] > 0 then
            needed = redis.call('XPENDING', KEYS[1], info['name'])[2]
          end
          if keep == nil or older(needed, keep) then keep = needed end
        end
        -- A group that has read nothing yet (created on an empty stream, or at 0) needs every entry.
        if keep == '0-0' then return 0 end
        -- The oldest entry the length limit keeps.
        local upper = '+'
        if keep ~= nil then upper = '(' .. keep end
        local below = redis.call('XRANGE', KEYS[1], '-', upper, 'COUNT', excess + 1)
        local threshold
        if #below > excess then
          threshold = below[excess + 1][1]
        elseif keep ~= nil then
          threshold = keep
        else
          return 0
        end
        return redis.call('XTRIM', KEYS[1], 'MINID', threshold)
        """
}
