package import EventsRedisClient
package import RedisServerSupport

package struct TopologyFailure: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}

/// A master, one replica and a sentinel, all local processes.
package final class SentinelTopology {
    package let master: RedisServer
    package let replica: RedisServer
    package let sentinel: RedisSentinel

    package init() async throws {
        // Replicas sync at once rather than after the default 5 s wait for company; either
        // server may be the master after a failover.
        let quick = ["--repl-diskless-sync-delay", "0"]
        master = try RedisServer(extraArguments: quick)
        replica = try RedisServer(extraArguments: quick + ["--replicaof", "127.0.0.1", String(master.port)])
        sentinel = try RedisSentinel(masterPort: master.port, replicaPorts: [replica.port])
        let replicaClient = RedisClient(replica.configuration)
        defer { replicaClient.close() }
        let synced = await eventually {
            let info = (try? await replicaClient.send("INFO", "replication"))?.string ?? ""
            return info.contains("master_link_status:up")
        }
        guard synced, await eventually({ self.sentinel.knowsReplicas(1) }) else {
            throw TopologyFailure(description: "the replica or the sentinel did not come up")
        }
    }

    /// A configuration that finds the master through the sentinel.
    package var configuration: RedisConfiguration {
        var configuration = master.configuration
        configuration.host = "unused.invalid"
        configuration.sentinel = RedisSentinelConfiguration(
            masterName: sentinel.masterName, sentinels: [sentinel.address])
        return configuration
    }

    /// Kills the master (SIGKILL) and waits until the sentinel names the replica instead.
    package func killMasterAndWaitForFailover() async -> Bool {
        master.kill()
        return await eventually { self.sentinel.masterPort() == self.replica.port }
    }
}
