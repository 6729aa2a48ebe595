/// Listens on the sentinels for `+switch-master`, and tells every open connection to the
/// master they watch that it is the old master now.
///
/// Without it a failover is still followed, but only once a connection notices: it breaks
/// (the old master died) or a reply says the server is no longer a master (`READONLY`,
/// `UNBLOCKED`). After a planned failover (`SENTINEL FAILOVER`) the old master stays up as a
/// replica, so an idle connection would learn of the switch only by having its next write
/// refused. With the watch, the connection is left at the switch and the next command goes to
/// the new master straight away.
///
/// One watch runs per sentinel configuration in the process, shared by the clients and
/// subscriptions that use it, with one Pub/Sub connection to one sentinel at a time (the next
/// one in the list when it fails). It starts when the first of them opens a connection and
/// stops when the last one closes.
final class SentinelWatch: Sendable {
    /// What a registered connection owner does at a switch: drop its connection.
    typealias Switch = @Sendable () -> Void

    private struct State {
        var members: [ObjectIdentifier: Switch] = [:]
        var subscriber: RedisSubscriber?
        var stopped = false
        /// How many `+switch-master` messages for this master arrived (for tests).
        var switches = 0
    }

    private static let watches = LockedBox<[RedisSentinelConfiguration: SentinelWatch]>([:])

    private let sentinel: RedisSentinelConfiguration
    private let configuration: RedisConfiguration
    private let state = LockedBox(State())

    private init(sentinel: RedisSentinelConfiguration, configuration: RedisConfiguration) {
        self.sentinel = sentinel
        self.configuration = configuration
    }

    /// Makes `member` hear of switches of the master `configuration` names through its
    /// sentinels; registering again replaces the earlier `onSwitch`. Nothing for a
    /// configuration without sentinels.
    static func register(_ member: ObjectIdentifier, _ configuration: RedisConfiguration, onSwitch: @escaping Switch) {
        guard let sentinel = configuration.sentinel, !sentinel.sentinels.isEmpty else { return }
        // The member joins under the registry's lock, so that it never joins a watch that its
        // last other member is stopping.
        let started: SentinelWatch? = watches.withLock { watches in
            if let watch = watches[sentinel] {
                watch.state.withLock { $0.members[member] = onSwitch }
                return nil
            }
            let watch = SentinelWatch(sentinel: sentinel, configuration: configuration)
            watch.state.withLock { $0.members[member] = onSwitch }
            watches[sentinel] = watch
            return watch
        }
        started?.start()
    }

    /// Stops telling `member`; the last member to leave stops the watch.
    static func unregister(_ member: ObjectIdentifier, _ configuration: RedisConfiguration) {
        guard let sentinel = configuration.sentinel else { return }
        let emptied: SentinelWatch? = watches.withLock { watches in
            guard let watch = watches[sentinel] else { return nil }
            let isEmpty = watch.state.withLock { state in
                state.members[member] = nil
                guard state.members.isEmpty else { return false }
                state.stopped = true
                return true
            }
            guard isEmpty else { return nil }
            watches[sentinel] = nil
            return watch
        }
        emptied?.state.withLock { $0.subscriber }?.close()
    }

    /// How many switches the watch of `configuration` has seen; nil when none runs (for tests).
    static func switches(for configuration: RedisConfiguration) -> Int? {
        guard let sentinel = configuration.sentinel else { return nil }
        return watches.withLock { $0[sentinel] }?.state.withLock { $0.switches }
    }

    private func start() {
        Task.detached { await self.run() }
    }

    /// Subscribes to `+switch-master` on one sentinel after another until stopped.
    private func run() async {
        var failures = 0
        var next = 0
        while true {
            let address = sentinel.sentinels[next % sentinel.sentinels.count]
            next += 1
            var asking = sentinel.configuration(of: address, from: configuration)
            // A few attempts on this sentinel, then the next one.
            asking.reconnect.maxAttempts = 3
            let subscriber = RedisSubscriber(asking)
            let started = state.withLock { state in
                guard !state.stopped else { return false }
                state.subscriber = subscriber
                return true
            }
            guard started else { return }
            do {
                for try await message in subscriber.messages(channels: ["+switch-master"]) {
                    failures = 0
                    noteSwitch(message.string)
                }
            } catch {
                failures += 1
            }
            subscriber.close()
            if state.withLock({ $0.stopped }) { return }
            if failures >= sentinel.sentinels.count {
                // Every sentinel is away: wait as a reconnect would before the next round.
                try? await Task.sleep(for: configuration.reconnect.delay(afterFailures: failures))
            }
        }
    }

    /// `<master name> <old ip> <old port> <new ip> <new port>`: tells every member when the
    /// name is this watch's master.
    private func noteSwitch(_ text: String) {
        guard text.split(separator: " ").first.map(String.init) == sentinel.masterName else { return }
        let members = state.withLock { state in
            state.switches += 1
            return Array(state.members.values)
        }
        for onSwitch in members { onSwitch() }
    }
}
