/// Which master owns each of the 16384 slots, as the cluster told it.
struct ClusterSlotMap: Sendable {
    typealias Address = RedisClusterConfiguration.Address

    /// The masters, each once.
    private(set) var masters: [Address] = []
    /// For each slot, the index in `masters` of its owner, or -1 when no node serves it.
    private var owners = [Int16](repeating: -1, count: ClusterSlot.count)

    /// The owner of `slot`; `nil` when the map names none.
    func owner(of slot: Int) -> Address? {
        let index = owners[slot]
        return index < 0 ? nil : masters[Int(index)]
    }

    /// Whether every slot has an owner.
    var coversEverySlot: Bool { !owners.contains(-1) }

    private mutating func assign(_ range: ClosedRange<Int>, to address: Address) {
        let index: Int
        if let known = masters.firstIndex(of: address) {
            index = known
        } else {
            index = masters.count
            masters.append(address)
        }
        for slot in range { owners[slot] = Int16(index) }
    }

    /// The map in a `CLUSTER SHARDS` reply (RESP2: each shard and node a flat list of names and
    /// values), from the node at `asked`, which stands for itself where a node has no address.
    /// Only masters that are not marked failed are taken. `useTLSPort` picks `tls-port`.
    static func fromShards(_ reply: RESPValue, asked: Address, useTLSPort: Bool) -> ClusterSlotMap? {
        guard let shards = reply.array else { return nil }
        var map = ClusterSlotMap()
        for shard in shards {
            guard let fields = shard.fields, let slots = fields["slots"]?.array,
                let nodes = fields["nodes"]?.array
            else { return nil }
            let master = nodes.lazy.compactMap(\.fields).first {
                $0["role"]?.string == "master" && $0["health"]?.string != "fail"
            }
            guard let master else { continue }
            let port = (useTLSPort ? master["tls-port"] : master["port"])?.int ?? master["port"]?.int
            guard let port, (1...65_535).contains(port) else { continue }
            let address = Address(
                host: Self.host(master["endpoint"]?.string ?? master["ip"]?.string, asked), port: port)
            var index = 0
            while index + 1 < slots.count {
                if let low = slots[index].int, let high = slots[index + 1].int, 0 <= low, low <= high,
                    high < ClusterSlot.count
                {
                    map.assign(low...high, to: address)
                }
                index += 2
            }
        }
        return map
    }

    /// The map in a `CLUSTER SLOTS` reply: `[low, high, [host, port, id, ...], replicas ...]`.
    static func fromSlots(_ reply: RESPValue, asked: Address) -> ClusterSlotMap? {
        guard let ranges = reply.array else { return nil }
        var map = ClusterSlotMap()
        for range in ranges {
            guard let parts = range.array, parts.count >= 3, let low = parts[0].int, let high = parts[1].int,
                0 <= low, low <= high, high < ClusterSlot.count, let master = parts[2].array, master.count >= 2,
                let port = master[1].int, (1...65_535).contains(port)
            else { return nil }
            map.assign(low...high, to: Address(host: Self.host(master[0].string, asked), port: port))
        }
        return map
    }

    /// A node's host: an empty or unknown (`?`) one means the node that was asked.
    private static func host(_ reported: String?, _ asked: Address) -> String {
        guard let reported, !reported.isEmpty, reported != "?" else { return asked.host }
        return reported
    }
}

extension ClusterSlotMap {
    /// A redirection in an error reply: `MOVED <slot> <host>:<port>` or `ASK <slot> <host>:<port>`.
    struct Redirection: Equatable {
        var isAsk: Bool
        var slot: Int
        var address: Address
    }

    static func redirection(in reply: RESPValue, from node: Address) -> Redirection? {
        guard case .error(let message) = reply else { return nil }
        let words = message.split(separator: " ")
        guard words.count == 3, words[0] == "MOVED" || words[0] == "ASK", let slot = Int(words[1]),
            (0..<ClusterSlot.count).contains(slot), let colon = words[2].lastIndex(of: ":"),
            let port = Int(words[2][words[2].index(after: colon)...]), (1...65_535).contains(port)
        else { return nil }
        let host = String(words[2][..<colon])
        return Redirection(
            isAsk: words[0] == "ASK", slot: slot, address: Address(host: host.isEmpty ? node.host : host, port: port))
    }
}
