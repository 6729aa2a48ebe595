import Events
import Foundation
import Synchronization

// Failing listeners and poison entries: which entries are acknowledged, which wait for a retry,
// and which go to the dead-letter stream.

extension StreamConsumer {
    /// The failure policy of the stream `key`.
    func policy(for key: String) -> RedisBridge.FailurePolicy {
        failurePolicies[key] ?? configuration.failurePolicy
    }

    /// Whether the outcome of each event of stream `key` must be known on its own.
    func tracksFailures(on key: String) -> Bool {
        policy(for: key).maxDeliveries != nil || configuration.poisonMessages == .deadLetter
    }

    /// Delivers the entries event by event and settles each: acknowledged, left pending for a
    /// retry, or moved to the dead-letter stream (and acknowledged). Returns the ids to
    /// acknowledge; dead letters are written here, each with its entry's acknowledgement in
    /// one transaction, so that an entry is never acknowledged without its dead letter, nor
    /// dead-lettered twice.
    func deliverTracked(_ entries: [Entry]) async -> [String: [String]] {
        // In entry order, so that dead letters are written in the order their entries came: each
        // entry either settled at once or delivered, to be settled once its listeners are done.
        var outcomes: [(entry: Entry, delivery: StreamDelivery?, settled: Settlement?)] = []
        let collectPoison = configuration.poisonMessages == .deadLetter
        for entry in entries {
            guard let message = entry.message else {
                guard !entry.deleted else {
                    outcomes.append((entry, nil, Settlement(entry: entry)))
                    continue
                }
                counters.invalidMessages.increment()
                report(
                    .invalidMessage(CloudEventError("stream entry \(entry.id) has no \"event\" field"), key: entry.key))
                var settlement = Settlement(entry: entry)
                if collectPoison {
                    settlement.deadLetters.append(
                        deadLetter(
                            of: entry, event: [], error: "the stream entry has no \"event\" field", listener: nil))
                }
                outcomes.append((entry, nil, settlement))
                continue
            }
            if let maximum = policy(for: entry.key).maxDeliveries, entry.deliveryCount > maximum {
                // Delivered that often without an acknowledgement: its consumers kept stopping
                // while they handled it. Delivering it again could stop this one too.
                var settlement = Settlement(entry: entry)
                settlement.deadLetters.append(
                    deadLetter(
                        of: entry, event: message,
                        error: "delivered \(entry.deliveryCount) times without being acknowledged, more than the "
                            + "\(maximum) allowed (its consumers stopped while handling it)", listener: nil))
                outcomes.append((entry, nil, settlement))
                continue
            }
            let delivery = inbound.receiveTracked(
                message, key: entry.key, streamEntryID: entry.id, deliveryCount: entry.deliveryCount,
                collectPoison: collectPoison)
            outcomes.append((entry, delivery, nil))
        }
        var dispatched = 0
        var settled: [Settlement] = []
        for (entry, delivery, settlement) in outcomes {
            guard let delivery else {
                if let settlement { settled.append(settlement) }
                continue
            }
            var settlement = Settlement(entry: entry)
            let message = entry.message ?? []
            for poison in delivery.poison {
                settlement.deadLetters.append(
                    deadLetter(of: entry, event: bytes(of: message, poison.range), error: poison.reason, listener: nil))
            }
            var failed: [(StreamDelivery.Event, [ListenerFailure])] = []
            for event in delivery.events {
                let outcome = await event.batch.wait()
                dispatched += 1
                if !outcome.failures.isEmpty { failed.append((event, outcome.failures)) }
            }
            if !failed.isEmpty, let maximum = policy(for: entry.key).maxDeliveries {
                // Not handled: when it comes back (a retry, a replayed dead letter), it is new.
                for (event, _) in failed {
                    inbound.deduplication.forget(source: event.origin.source, id: event.origin.id)
                }
                if entry.deliveryCount < maximum {
                    settlement.retry = true
                } else {
                    for (event, failures) in failed {
                        settlement.deadLetters.append(
                            deadLetter(
                                of: entry, event: bytes(of: message, event.range),
                                error: failures.map { String(describing: $0.error) }.joined(separator: "; "),
                                listener: failures.first?.callSite.description))
                    }
                }
            }
            settled.append(settlement)
        }
        counters.delivered.increment(by: dispatched)
        return await settle(settled)
    }

    /// What to do with one entry once its events were delivered.
    struct Settlement {
        let entry: Entry
        /// Dead letters to write before acknowledging it.
        var deadLetters: [[RedisArgument]] = []
        /// Whether it waits for a retry (and is not acknowledged).
        var retry = false
    }

    /// Schedules the retries, writes the dead letters (each entry's in one transaction with its
    /// acknowledgement) and returns the other ids to acknowledge.
    private func settle(_ settlements: [Settlement]) async -> [String: [String]] {
        var acknowledgements: [String: [String]] = [:]
        // Each with the entry it acknowledges, if it does.
        // `then` is sent once `commands` all succeeded, on a cluster, where no transaction spans
        // the two streams.
        var writes: [(commands: [[RedisArgument]], letters: Int, acknowledges: Bool, then: [RedisArgument]?)] = []
        for settlement in settlements {
            let entry = settlement.entry
            if settlement.retry {
                let wait = policy(for: entry.key).backoff.delay(afterDelivery: entry.deliveryCount)
                // Redis last reset its idle time when it delivered it, before now.
                let now = ContinuousClock.now
                schedule.add(
                    RetrySchedule.Retry(
                        key: entry.key, id: entry.id, due: now + wait, deliveryCount: entry.deliveryCount,
                        touched: now, keepBy: now))
                counters.retriesScheduled.increment()
                // The entry's poison (the only dead letters of an entry that waits) is written
                // when the entry is settled, with its acknowledgement: written now, every
                // delivery of the entry would write it again.
                continue
            }
            if settlement.deadLetters.isEmpty {
                acknowledgements[entry.key, default: []].append(entry.id)
                continue
            }
            let acknowledgement: [RedisArgument] = [
                "XACK", RedisArgument(entry.key), RedisArgument(group), RedisArgument(entry.id),
            ]
            if client.configuration.cluster != nil {
                // The dead letters' stream hashes to another slot, so no transaction can hold
                // both: the letters are written first and the entry acknowledged after, so that
                // a crash between the two leaves a duplicate dead letter, never a lost one.
                writes.append((settlement.deadLetters, settlement.deadLetters.count, true, acknowledgement))
                continue
            }
            writes.append(
                (
                    [["MULTI"]] + settlement.deadLetters + [acknowledgement, ["EXEC"]], settlement.deadLetters.count,
                    true, nil
                ))
        }
        for write in writes {
            do throws(RedisError) {
                let replies = try await client.pipeline(write.commands)
                for reply in replies {
                    if case .error(let text) = reply { throw RedisError.server(text) }
                }
                // A transaction's commands fail inside EXEC's reply.
                for reply in replies.last?.array ?? [] {
                    if case .error(let text) = reply { throw RedisError.server(text) }
                }
                // Counted once written, before a separate acknowledgement can fail: the count
                // says how many letters the stream holds, and a failed acknowledgement leaves
                // the entry pending, to be dead-lettered (and counted) again.
                counters.deadLettered.increment(by: write.letters)
                if let then = write.then { try await client.send(then) }
                if write.acknowledges { counters.pendingEntries.add(-1, ordering: .relaxed) }
            } catch {
                // Left pending: delivered again after a restart or a claim, and then dead-lettered.
                counters.redisErrors.increment()
                report(.redis(error))
            }
        }
        return acknowledgements
    }

    /// The fields of a dead letter for `event` of `entry`.
    func deadLetter(of entry: Entry, event: [UInt8], error: String, listener: String?) -> [RedisArgument] {
        var command: [RedisArgument] = [
            "XADD", RedisArgument(configuration.deadLetterKey(entry.key)), "*", "event", RedisArgument(event),
            "error", RedisArgument(error),
        ]
        if let listener { command += ["listener", RedisArgument(listener)] }
        command += [
            "deliveries", RedisArgument(entry.deliveryCount), "entry", RedisArgument(entry.id), "stream",
            RedisArgument(entry.key), "group", RedisArgument(group), "consumer", RedisArgument(consumer), "time",
            RedisArgument(RFC3339.string(from: Date())),
        ]
        return command
    }

    private func bytes(of message: [UInt8], _ range: Range<Int>?) -> [UInt8] {
        guard let range, range.lowerBound >= 0, range.upperBound <= message.count else { return message }
        return Array(message[range])
    }

    // MARK: - Fetching entries again

    /// Claims back the entries whose retry is due (they are still this consumer's, unless
    /// another one claimed them meanwhile), and delivers them again.
    func redeliverDue() async throws(RedisError) {
        let now = ContinuousClock.now
        let due = schedule.takeDue(at: now)
        guard !due.isEmpty else { return }
        var claimed: [Entry] = []
        var returned: Set<String> = []
        for retry in due {
            // At least as idle as since it was last touched, unless another consumer took it.
            let reply = try await client.send([
                "XCLAIM", RedisArgument(retry.key), RedisArgument(group), RedisArgument(consumer),
                RedisArgument(retry.idleMilliseconds(at: now)), RedisArgument(retry.id),
            ])
            guard let items = reply.array else {
                throw RedisError.unexpectedReply(expected: "an XCLAIM reply", got: "\(reply)")
            }
            for item in items {
                let entry = try Self.entry(item, key: retry.key)
                claimed.append(entry)
                returned.insert(entry.key + "\u{0}" + entry.id)
            }
        }
        for retry in due where !returned.contains(retry.key + "\u{0}" + retry.id) {
            // No longer pending with this consumer (trimmed, deleted, or taken by another).
            counters.pendingEntries.add(-1, ordering: .relaxed)
        }
        counters.pendingEntries.add(-claimed.count, ordering: .relaxed)
        try await handle(try await withDeliveryCounts(claimed))
    }

    // MARK: - Keeping the entries that wait

    // An entry waiting for its retry stays pending with this consumer, idle to Redis; once
    // idle for `claimMinimumIdle`, any consumer's claim pass (this one's included) would take
    // it and deliver it before its backoff is over. So this consumer claims each waiting entry
    // again to itself, at once when it is scheduled (it was idle while its listeners ran), then
    // every `keepingInterval`, a third of `claimMinimumIdle` (so a consumer may go two thirds of
    // it without reaching Redis and still keep its entries): with `JUSTID`, a claim resets the
    // idle time without counting a delivery. A consumer that died, or cannot reach Redis, keeps
    // nothing: the others claim its entries after `claimMinimumIdle`.

    /// How often an entry waiting for a retry is touched (its idle time reset): a third of
    /// ``RedisBridge/Configuration/claimMinimumIdle``, so that a claim pass never finds it idle
    /// for that long while this consumer runs.
    var keepingInterval: Duration {
        max(configuration.claimMinimumIdle / 3, .milliseconds(10))
    }

    /// Resets the idle time of the waiting entries due to be touched: those just scheduled,
    /// and those last touched ``keepingInterval`` ago. One that another consumer took meanwhile
    /// (so less idle than since this consumer last touched it), or that is no longer pending, is
    /// left alone and no longer waits here.
    func keepWaitingEntries() async throws(RedisError) {
        let now = ContinuousClock.now
        let retries = schedule.toKeep(at: now)
        guard !retries.isEmpty else { return }
        let replies = try await client.pipeline(
            retries.map { retry in
                [
                    "XCLAIM", RedisArgument(retry.key), RedisArgument(group), RedisArgument(consumer),
                    RedisArgument(retry.idleMilliseconds(at: now)), RedisArgument(retry.id), "JUSTID",
                ]
            })
        let touched = ContinuousClock.now
        for (retry, reply) in zip(retries, replies) {
            if case .error(let text) = reply { throw RedisError.server(text) }
            if reply.array?.isEmpty == false {
                schedule.touch(key: retry.key, id: retry.id, at: touched, keepingEvery: keepingInterval)
            } else {
                schedule.remove(key: retry.key, id: retry.id)
                counters.pendingEntries.add(-1, ordering: .relaxed)
            }
        }
    }

    /// `entries` claimed by this consumer's own claim pass, without those waiting here for a
    /// retry: those stay waiting, with the delivery count they had before the claim counted
    /// one more (and their idle time reset).
    func withoutWaiting(_ entries: [Entry]) async throws(RedisError) -> [Entry] {
        var others: [Entry] = []
        var waiting: [RetrySchedule.Retry] = []
        for entry in entries {
            if let retry = schedule.retry(key: entry.key, id: entry.id) {
                waiting.append(retry)
            } else {
                others.append(entry)
            }
        }
        guard !waiting.isEmpty else { return entries }
        let replies = try await client.pipeline(
            waiting.map { retry in
                [
                    "XCLAIM", RedisArgument(retry.key), RedisArgument(group), RedisArgument(consumer), "0",
                    RedisArgument(retry.id), "RETRYCOUNT", RedisArgument(retry.deliveryCount), "JUSTID",
                ]
            })
        let touched = ContinuousClock.now
        for (retry, reply) in zip(waiting, replies) {
            if case .error(let text) = reply { throw RedisError.server(text) }
            schedule.touch(key: retry.key, id: retry.id, at: touched, keepingEvery: keepingInterval)
        }
        return others
    }

    /// `entries` with the delivery counts Redis keeps for them (this delivery included), for
    /// entries read again: an own pending entry, a claimed one, a retry. Only those still
    /// pending with this consumer: one acknowledged since it was read (its first consumer,
    /// slow to reach Redis, finished it after this one claimed it) or taken by another consumer
    /// is that consumer's to deliver, and delivered here it would come as a first delivery,
    /// after later events of its key.
    func withDeliveryCounts(_ entries: [Entry]) async throws(RedisError) -> [Entry] {
        guard !entries.isEmpty else { return entries }
        let replies = try await client.pipeline(
            entries.map { entry in
                [
                    "XPENDING", RedisArgument(entry.key), RedisArgument(group), RedisArgument(entry.id),
                    RedisArgument(entry.id), "1",
                ]
            })
        var pending: [Entry] = []
        pending.reserveCapacity(entries.count)
        for (entry, reply) in zip(entries, replies) {
            if case .error(let text) = reply { throw RedisError.server(text) }
            // [[id, consumer, idle, count]], or [] when the entry is no longer pending.
            guard let row = reply.array?.first?.array, row.count >= 4, row[1].string == consumer,
                let count = row[3].int, count > 0
            else { continue }
            var entry = entry
            entry.deliveryCount = count
            pending.append(entry)
        }
        return pending
    }
}
