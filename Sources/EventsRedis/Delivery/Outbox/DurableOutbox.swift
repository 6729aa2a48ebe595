import Dispatch
import Events
import Foundation
import Synchronization

/// The open outbox file of one bridge (see ``RedisBridge/Outbox``): entries appended as events
/// are accepted, confirmed as Redis acknowledges them, and compacted away.
///
/// Appends hold the lock for the `write(2)` only; forcing the writes to disk happens after
/// it, shared by every append that waits at the time (one `fsync` ends the wait of all the
/// dispatches that wrote before it began: a group commit). Compaction runs under the lock
/// and waits for a sync in progress, so the descriptor a sync uses is never swapped under it.
final class DurableOutbox: @unchecked Sendable {
    // Why @unchecked is safe: every `var` below is only touched with `condition` locked, but
    // `descriptor` that a sync reads under the lock and uses after it, while `syncing` keeps
    // compaction and `close()` (the only writers of `descriptor`) waiting.
    let path: String
    let settings: RedisBridge.Outbox
    private let report: @Sendable (RedisBridgeError) -> Void
    /// A pthread mutex and condition: the thread sanitizer sees both.
    private let condition = NSCondition()
    private let nextSequence: Atomic<UInt64>
    private var descriptor: Int32
    private var fileSize: Int
    /// Where each entry not confirmed yet lies in the file, by sequence.
    private var live: [UInt64: Range<Int>] = [:]
    private var liveBytes = 0
    /// Appends made, and appends known to be on disk.
    private var written: UInt64 = 0
    private var synced: UInt64 = 0
    private var syncing = false
    /// How many syncs have run, for tests of the group commit.
    private var syncs = 0
    private var closed = false
    private var timer: (any DispatchSourceTimer)?

    /// The file is compacted once it has grown past this, if most of it is confirmed.
    private var compactionThreshold: Int { max(settings.maximumBytes / 8, 64 << 10) }

    /// What an append did.
    enum Appended {
        /// Written as entry `sequence`; `ticket` is what ``waitUntilDurable(_:)`` waits for.
        case written(sequence: UInt64, ticket: UInt64)
        /// Not written: the entries waiting already take ``RedisBridge/Outbox/maximumBytes``.
        case full
        /// Not written: the outbox was closed (the bridge stopped).
        case closed
        /// The write failed.
        case failed(RedisBridgeError)
    }

    /// Opens (or creates) the outbox file of `settings` and reads what an earlier bridge left in
    /// it: returns the outbox, the entries to publish again (in the order they were written)
    /// and what to report about the file (a damaged end cut off, entries too old to publish).
    static func open(
        _ settings: RedisBridge.Outbox, report: @escaping @Sendable (RedisBridgeError) -> Void
    ) throws(RedisBridgeError) -> (outbox: DurableOutbox, entries: [OutboxRecord.Entry], notes: [RedisBridgeError]) {
        let path = settings.path
        let descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .outboxUnavailable(path: path, reason: systemError("cannot open it")) }
        do throws(RedisBridgeError) {
            guard lockWaitingForForks(descriptor) else {
                let busy = errno == EWOULDBLOCK
                throw .outboxUnavailable(
                    path: path,
                    reason: busy
                        ? "another bridge has it open, in this process or another; one bridge at a time may use an outbox"
                        : systemError("cannot lock it"))
            }
            // A compaction that died before its rename leaves its half-written copy: the file
            // itself is whole, so the copy goes. Only once the lock is held: before, the copy
            // may be the one a running holder is writing.
            unlink(compactionPath(path))
            let bytes = try readAll(descriptor, path: path)
            guard let (records, ending) = OutboxRecord.read(bytes) else {
                throw .outboxUnavailable(
                    path: path,
                    reason: "it is not an outbox file (it does not start with an outbox header); it was left as it is")
            }
            var notes: [RedisBridgeError] = []
            var size = bytes.count
            if case .damaged(let offset, let reason) = ending {
                guard ftruncate(descriptor, off_t(offset)) == 0, fsync(descriptor) == 0 else {
                    throw .outboxUnavailable(path: path, reason: systemError("cannot cut off its damaged end"))
                }
                notes.append(
                    .outboxDamaged(
                        path: path,
                        reason: "\(reason) at byte \(offset): the \(bytes.count - offset) bytes from there were "
                            + "discarded, the \(records.count) records before them kept"))
                size = offset
            }
            if size == 0 {
                guard writeAll(descriptor, OutboxRecord.magic), fsync(descriptor) == 0 else {
                    throw .outboxUnavailable(path: path, reason: systemError("cannot write its header"))
                }
                size = OutboxRecord.magic.count
            }
            let outbox = DurableOutbox(
                settings: settings, descriptor: descriptor, fileSize: size, report: report,
                firstSequence: (records.compactMap {
                    if case .entry(let entry) = $0.record { entry.sequence } else { nil }
                }
                .max() ?? 0) + 1)
            let (entries, expired) = outbox.adopt(records)
            if !expired.isEmpty {
                outbox.confirm(expired.map(\.sequence))
                notes.append(.outboxEntriesExpired(path: path, count: expired.count))
            }
            return (outbox, entries, notes)
        } catch {
            Foundation.close(descriptor)
            throw error
        }
    }

    private init(
        settings: RedisBridge.Outbox, descriptor: Int32, fileSize: Int,
        report: @escaping @Sendable (RedisBridgeError) -> Void, firstSequence: UInt64
    ) {
        path = settings.path
        self.settings = settings
        self.descriptor = descriptor
        self.fileSize = fileSize
        self.report = report
        nextSequence = Atomic(firstSequence)
        if case .interval(let interval) = settings.sync.kind {
            let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            let milliseconds = max(interval.wholeMilliseconds, 1)
            timer.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds))
            timer.setEventHandler { [weak self] in self?.syncWritten() }
            self.timer = timer
            timer.resume()
        }
    }

    deinit {
        timer?.cancel()
        if !closed { Foundation.close(descriptor) }
    }

    /// Takes the records read at open: the entries not confirmed are live, in file order; those
    /// older than the maximum age are returned apart, to be confirmed and reported.
    private func adopt(
        _ records: [(record: OutboxRecord, range: Range<Int>)]
    ) -> (live: [OutboxRecord.Entry], expired: [OutboxRecord.Entry]) {
        var confirmed = Set<UInt64>()
        for case (.confirmation(let sequences), _) in records { confirmed.formUnion(sequences) }
        var entries: [OutboxRecord.Entry] = []
        var expired: [OutboxRecord.Entry] = []
        let oldest: UInt64? = settings.maximumAge.map { age in
            let now = UInt64(max(Date().timeIntervalSince1970 * 1000, 0))
            let ageMilliseconds = UInt64(max(age.wholeMilliseconds, 0))
            return now > ageMilliseconds ? now - ageMilliseconds : 0
        }
        condition.lock()
        for case (.entry(let entry), let range) in records where !confirmed.contains(entry.sequence) {
            live[entry.sequence] = range
            liveBytes += range.count
            if let oldest, entry.writtenAt < oldest { expired.append(entry) } else { entries.append(entry) }
        }
        condition.unlock()
        return (entries, expired)
    }

    /// Writes an entry for an event about to be queued for Redis. With ``RedisBridge/Outbox/Sync/everyEvent``,
    /// call ``waitUntilDurable(_:)`` with the ticket before `dispatch` returns.
    func append(
        mode: RedisBridge.Mode, type: String, key: String, idPrefix: String, idNumber: UInt64, payload: [UInt8]
    ) -> Appended {
        let sequence = nextSequence.wrappingAdd(1, ordering: .relaxed).oldValue
        var record: [UInt8] = []
        record.reserveCapacity(payload.count + type.utf8.count + key.utf8.count + idPrefix.utf8.count + 48)
        OutboxRecord.entry(
            OutboxRecord.Entry(
                sequence: sequence, writtenAt: UInt64(max(Date().timeIntervalSince1970 * 1000, 0)), mode: mode,
                type: type, key: key, idPrefix: idPrefix, idNumber: idNumber, payload: payload)
        ).append(to: &record)
        condition.lock()
        defer { condition.unlock() }
        if closed { return .closed }
        guard liveBytes + record.count <= settings.maximumBytes else { return .full }
        guard writeAll(descriptor, record) else {
            let failure = RedisBridgeError.outboxUnavailable(
                path: path, reason: systemError("cannot write to it; the event is published, but not kept in the file"))
            // A partial record would end the readable part of the file: cut it off.
            _ = ftruncate(descriptor, off_t(fileSize))
            return .failed(failure)
        }
        live[sequence] = fileSize..<(fileSize + record.count)
        liveBytes += record.count
        fileSize += record.count
        written += 1
        return .written(sequence: sequence, ticket: written)
    }

    /// Whether `dispatch` must wait for the disk before it returns.
    var syncsEveryEvent: Bool { settings.sync.kind == .everyEvent }

    /// Returns once the append of `ticket` is on disk: joins the `fsync` in progress or the
    /// next, or runs one for every append written so far.
    func waitUntilDurable(_ ticket: UInt64) {
        condition.lock()
        while synced < ticket, !closed {
            if syncing {
                condition.wait()
                continue
            }
            if !runSync() { break }
        }
        condition.unlock()
    }

    /// Forces every append written so far to disk (the interval policy's timer).
    private func syncWritten() {
        condition.lock()
        while synced < written, !closed, !syncing {
            if !runSync() { break }
        }
        condition.unlock()
    }

    /// One `fsync` for every append written before it, run with the lock released. Called and
    /// returns with the lock held; false when it failed (and was reported).
    private func runSync() -> Bool {
        syncing = true
        syncs += 1
        let goal = written
        let descriptor = self.descriptor
        condition.unlock()
        let succeeded = Self.flushToDisk(descriptor)
        let failure = succeeded ? nil : systemError("cannot force its writes to disk")
        condition.lock()
        syncing = false
        // On a failure too: it is reported, and retrying in a loop would hold every dispatch.
        synced = max(synced, goal)
        condition.broadcast()
        if let failure { reportUnlocked(.outboxUnavailable(path: path, reason: failure)) }
        return succeeded
    }

    private static func flushToDisk(_ descriptor: Int32) -> Bool {
        #if os(Linux)
            // The data and the file's size, without its times: all that reading it back needs.
            return fdatasync(descriptor) == 0
        #else
            return fsync(descriptor) == 0
        #endif
    }

    /// Marks entries as done (Redis acknowledged them, or they were given up and reported), so
    /// that they are not published again; compacts the file when most of it is done. Not
    /// forced to disk: a confirmation lost with the machine means a copy published again,
    /// which receivers suppress.
    func confirm(_ sequences: [UInt64]) {
        guard !sequences.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        var done: [UInt64] = []
        done.reserveCapacity(sequences.count)
        for sequence in sequences {
            guard let range = live.removeValue(forKey: sequence) else { continue }
            liveBytes -= range.count
            done.append(sequence)
        }
        guard !done.isEmpty else { return }
        // A compaction leaves the confirmed entries out of the copy: nothing to write for them.
        if fileSize >= compactionThreshold, liveBytes * 2 < fileSize, compact() { return }
        var record: [UInt8] = []
        OutboxRecord.confirmation(done).append(to: &record)
        if writeAll(descriptor, record) {
            fileSize += record.count
        } else {
            _ = ftruncate(descriptor, off_t(fileSize))
        }
    }

    /// Rewrites the file with only its live entries: into a copy, forced to disk, renamed over
    /// the file. A crash before the rename leaves the file as it was; after it, the copy whole.
    /// Called with the lock held; false when it failed (and was reported), the file unchanged.
    private func compact() -> Bool {
        while syncing { condition.wait() }
        let copyPath = Self.compactionPath(path)
        let copy = Foundation.open(copyPath, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard copy >= 0 else {
            reportUnlocked(
                .outboxUnavailable(path: path, reason: systemError("cannot create \(copyPath) to compact it")))
            return false
        }
        var newLive: [UInt64: Range<Int>] = [:]
        var output = OutboxRecord.magic
        // The bytes of the copy written out of `output` so far: offsets in the copy count them.
        var flushed = 0
        var succeeded = flock(copy, LOCK_EX | LOCK_NB) == 0
        for (sequence, range) in live.sorted(by: { $0.value.lowerBound < $1.value.lowerBound }) where succeeded {
            var bytes = [UInt8](repeating: 0, count: range.count)
            let read = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress, range.count, off_t(range.lowerBound))
            }
            guard read == range.count else {
                succeeded = false
                break
            }
            let start = flushed + output.count
            newLive[sequence] = start..<(start + range.count)
            output.append(contentsOf: bytes)
            if output.count >= 1 << 20 {
                succeeded = writeAll(copy, output)
                flushed += output.count
                output.removeAll(keepingCapacity: true)
            }
        }
        let total = flushed + output.count
        succeeded = succeeded && writeAll(copy, output) && fsync(copy) == 0 && rename(copyPath, path) == 0
        guard succeeded else {
            let failure = systemError("cannot compact it; it goes on growing until it can")
            Foundation.close(copy)
            unlink(copyPath)
            reportUnlocked(.outboxUnavailable(path: path, reason: failure))
            return false
        }
        Self.syncDirectory(of: path)
        Foundation.close(descriptor)
        descriptor = copy
        live = newLive
        fileSize = total
        synced = written
        return true
    }

    /// Makes a rename in the file's directory durable.
    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let handle = Foundation.open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        guard handle >= 0 else { return }
        _ = fsync(handle)
        Foundation.close(handle)
    }

    /// Reports with the lock released: the error handler is user code.
    private func reportUnlocked(_ error: RedisBridgeError) {
        condition.unlock()
        report(error)
        condition.lock()
    }

    /// Entries waiting for Redis, and the file's size: for the bridge's statistics.
    var gauges: (entries: Int, bytes: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (live.count, fileSize)
    }

    var syncsRun: Int {
        condition.lock()
        defer { condition.unlock() }
        return syncs
    }

    /// Forces what was written to disk, unlocks and closes the file; appends after this return
    /// `.closed`, and the entries not confirmed stay in the file for the next bridge.
    func close() {
        timer?.cancel()
        condition.lock()
        while syncing { condition.wait() }
        if !closed {
            closed = true
            _ = Self.flushToDisk(descriptor)
            Foundation.close(descriptor)
        }
        condition.broadcast()
        condition.unlock()
    }

    static func compactionPath(_ path: String) -> String { path + ".compacting" }
}

/// Takes the file's exclusive lock, trying again for half a second: a child process forked by
/// this one (or by the process that had the file before) holds a copy of the descriptor, and
/// so the lock, until it runs its program, which closes the copy. Past that, another bridge has
/// the file. False with `errno` set when the lock cannot be had.
private func lockWaitingForForks(_ descriptor: Int32) -> Bool {
    for attempt in 0..<50 {
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
        guard errno == EWOULDBLOCK, attempt < 49 else { return false }
        usleep(10_000)
    }
    return false
}

/// Writes all of `bytes`, resuming after interruptions and short writes.
private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += count
        }
        return true
    }
}

/// The whole file, read from its start.
private func readAll(_ descriptor: Int32, path: String) throws(RedisBridgeError) -> [UInt8] {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
        throw .outboxUnavailable(path: path, reason: systemError("cannot read its size"))
    }
    let size = Int(status.st_size)
    var bytes = [UInt8](repeating: 0, count: size)
    var offset = 0
    while offset < size {
        let count = bytes.withUnsafeMutableBytes {
            pread(descriptor, $0.baseAddress! + offset, size - offset, off_t(offset))
        }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { throw .outboxUnavailable(path: path, reason: systemError("cannot read it")) }
        offset += count
    }
    return bytes
}

/// `what`, and the system's reason (from `errno`).
private func systemError(_ what: String) -> String {
    "\(what): \(String(cString: strerror(errno)))"
}
