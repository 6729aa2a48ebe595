import RedisServerSupport
import RedisTestSupport
import Testing

/// Every test of the bridge that starts a local cluster, one at a time, and never beside a
/// client test that starts one (`.oneClusterAtATime`): each runs several servers, and more than
/// one cluster at once starves the rest of the suite on a small machine.
@Suite(
    "Redis Cluster topologies (bridge)", .serialized, .oneClusterAtATime,
    .enabled(if: RedisServer.isAvailable(), Comment(rawValue: RedisServer.skipReason))
)
enum ClusterTopologyTests {}
