import EventsRedisClient
import Foundation
import RedisTestSupport

/// Plays a ``Schedule``'s faults on a deployment, its consumers and its publisher, one after
/// the other, on the calling thread (they block while processes stop and start).
struct Nemesis: Sendable {
    let deployment: Deployment
    let consumers: [ConsumerProcess]
    let publisher: PublisherProcess

    /// Plays the steps that begin before `deadline`; returns one line per fault and the
    /// count of each kind played.
    func play(_ schedule: Schedule, until deadline: ContinuousClock.Instant) -> ([String], [FaultKind: Int]) {
        var lines: [String] = []
        var counts: [FaultKind: Int] = [:]
        for step in schedule.steps {
            Thread.sleep(forTimeInterval: step.after.seconds)
            guard ContinuousClock.now < deadline else { break }
            // A fault Redis refuses now (a failover already under way) is recorded, not played.
            do {
                lines.append(try perform(step))
                counts[step.kind, default: 0] += 1
            } catch {
                lines.append("\(step.kind.rawValue) not played: \(error)")
            }
            deployment.noteRoles()
        }
        return (lines, counts)
    }

    private func perform(_ step: Schedule.Step) throws -> String {
        let consumer = consumers[step.target % consumers.count]
        switch step.kind {
        case .killRedis:
            return try deployment.killRedis(downFor: step.duration, choosing: step.target)
        case .failover:
            return try deployment.failover(choosing: step.target)
        case .migrateSlot:
            return try deployment.migrateSlot(choosing: step.target)
        case .killConsumer:
            consumer.kill()
            Thread.sleep(forTimeInterval: step.duration.seconds)
            try consumer.start()
            return "killed consumer \(consumer.group)/\(consumer.name), restarted"
        case .killPublisher:
            // A kill while Redis has acknowledged everything tests little of the outbox: two
            // kills in three come while the network holds (stall) or drops (black hole) what
            // the publisher sends, so that its life ends with events Redis has not answered
            // (they may still reach it, late, and come again from the outbox: a copy) or never
            // had (the outbox alone keeps them).
            let hold = [nil, FaultProxy.Mode.stall, .blackHole][step.target % 3]
            if let hold {
                deployment.setNetwork(hold)
                Thread.sleep(forTimeInterval: 0.3)
            }
            publisher.kill()
            if hold != nil { deployment.setNetwork(.forward) }
            Thread.sleep(forTimeInterval: step.duration.seconds)
            let life = try publisher.start()
            return "killed the publisher" + (hold.map { " while the network was \($0)" } ?? "") + ", restarted: \(life)"
        case .pauseConsumer:
            // Past the claim idle time, so that another consumer of the group claims its entries.
            consumer.pause()
            Thread.sleep(forTimeInterval: 2 + step.duration.seconds)
            consumer.resume()
            return "paused consumer \(consumer.group)/\(consumer.name)"
        case .stall:
            return deployment.network(.stall, for: step.duration)
        case .slow:
            return deployment.network(.slow(.milliseconds(20)), for: step.duration)
        case .blackHole:
            return deployment.network(.blackHole, for: step.duration)
        case .reset:
            return deployment.resetConnections()
        }
    }
}
