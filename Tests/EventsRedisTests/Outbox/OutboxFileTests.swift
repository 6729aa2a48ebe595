import Foundation
import RedisTestSupport
import Testing

@testable import EventsRedis

/// A fresh directory for one test's outbox files, removed when the test lets it go.
final class OutboxDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("events-outbox-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String = "events.outbox") -> String { url.appendingPathComponent(name).path }
}

/// What an outbox reported.
final class OutboxReports: Sendable {
    private let errors = LockedBox<[RedisBridgeError]>([])
    func record(_ error: RedisBridgeError) { errors.withLock { $0.append(error) } }
    var all: [RedisBridgeError] { errors.withLock { $0 } }
}

private func entry(_ n: UInt64, mode: RedisBridge.Mode = .stream, writtenAt: UInt64 = 1_000, size: Int = 40)
    -> OutboxRecord.Entry
{
    OutboxRecord.Entry(
        sequence: n, writtenAt: writtenAt, mode: mode, type: "com.example.sequenced",
        key: "events:com.example.sequenced",
        idPrefix: "ab12-", idNumber: n + 100, payload: Array(repeating: UInt8(ascii: "x"), count: size))
}

private func file(_ records: [OutboxRecord]) -> [UInt8] {
    var bytes = OutboxRecord.magic
    for record in records { record.append(to: &bytes) }
    return bytes
}

/// Appends `count` stream events numbered from `first` and returns their sequences.
private func append(_ count: Int, from first: Int = 1, to outbox: DurableOutbox, size: Int = 100) -> [UInt64] {
    (first..<(first + count)).map { n in
        guard
            case .written(let sequence, _) = outbox.append(
                mode: .stream, type: "t", key: "events:t", idPrefix: "p-", idNumber: UInt64(n),
                payload: Array(repeating: UInt8(ascii: "y"), count: size))
        else { return 0 }
        return sequence
    }
}

@Suite("Outbox records")
struct OutboxRecordTests {
    @Test("entries and confirmations read back as they were written, in order")
    func roundTrip() throws {
        let records: [OutboxRecord] = [
            .entry(entry(1)), .entry(entry(2, mode: .pubSub)), .confirmation([1]), .entry(entry(3, size: 0)),
            .confirmation([]),
        ]
        let read = try #require(OutboxRecord.read(file(records)))
        #expect(read.records.map(\.record) == records)
        #expect(read.ending == .clean)
    }

    @Test("a file cut at any byte of its last record keeps every record before it")
    func tornLastRecord() throws {
        let whole = file([.entry(entry(1)), .confirmation([1]), .entry(entry(2))])
        let lastStart = try #require(OutboxRecord.read(whole)).records[2].range.lowerBound
        for cut in lastStart..<whole.count {
            let read = try #require(OutboxRecord.read(Array(whole[0..<cut])))
            #expect(read.records.map(\.record) == [.entry(entry(1)), .confirmation([1])], "cut at \(cut)")
            if cut == lastStart {
                #expect(read.ending == .clean)
            } else {
                guard case .damaged(let offset, _) = read.ending else {
                    Issue.record("cut at \(cut) read as clean")
                    continue
                }
                #expect(offset == lastStart)
            }
        }
    }

    @Test("a changed byte anywhere in a record ends the readable part there")
    func changedByte() throws {
        let whole = file([.entry(entry(1)), .entry(entry(2)), .entry(entry(3))])
        let ranges = try #require(OutboxRecord.read(whole)).records.map(\.range)
        for index in ranges[1] {
            var damaged = whole
            damaged[index] ^= 0x5A
            let read = try #require(OutboxRecord.read(damaged))
            #expect(read.records.map(\.record) == [.entry(entry(1))], "byte \(index) changed")
            #expect(read.ending != .clean)
        }
    }

    @Test("random bytes after the header never crash the reader and never read as more than they hold")
    func randomBytes() throws {
        var generator = SeededGenerator(seed: 0x0B0C)
        for round in 0..<3_000 {
            var bytes = OutboxRecord.magic
            let length = Int.random(in: 0..<200, using: &generator)
            for _ in 0..<length { bytes.append(UInt8.random(in: 0...255, using: &generator)) }
            if round % 3 == 0 {
                // A plausible header: a small length, so that the checksum and fields are tried.
                bytes.replaceSubrange(8..<min(12, bytes.count), with: [UInt8(length / 2), 0, 0, 0])
            }
            let read = try #require(OutboxRecord.read(bytes))
            let used = read.records.last?.range.upperBound ?? OutboxRecord.magic.count
            #expect(used <= bytes.count)
        }
    }

    @Test("a file that does not start with the header is not read as an outbox")
    func foreignFile() {
        #expect(OutboxRecord.read(Array("hello, world".utf8)) == nil)
        #expect(OutboxRecord.read(Array("SEVOBX0".utf8)) == nil)
        #expect(OutboxRecord.read([]) != nil)
    }

    @Test("the checksum is the standard CRC-32")
    func checksum() {
        let bytes = Array("123456789".utf8)
        #expect(bytes.withUnsafeBufferPointer(CRC32.checksum) == 0xCBF4_3926)
    }
}

@Suite("Outbox file")
struct OutboxFileTests {
    @Test("entries not confirmed are read back by the next opening, in the order they were written")
    func unconfirmedReadBack() throws {
        let directory = try OutboxDirectory()
        let settings = RedisBridge.Outbox(path: directory.path())
        do {
            let (outbox, entries, notes) = try DurableOutbox.open(settings, report: { _ in })
            #expect(entries.isEmpty && notes.isEmpty)
            let sequences = append(10, to: outbox)
            outbox.confirm([sequences[0], sequences[4], sequences[9]])
            #expect(outbox.gauges.entries == 7)
            outbox.close()
        }
        let (outbox, entries, notes) = try DurableOutbox.open(settings, report: { _ in })
        #expect(notes.isEmpty)
        #expect(entries.map(\.idNumber) == [2, 3, 4, 6, 7, 8, 9])
        #expect(entries.allSatisfy { $0.type == "t" && $0.key == "events:t" && $0.idPrefix == "p-" })
        // New entries follow the old ones' sequences.
        let next = append(1, from: 11, to: outbox)
        #expect(next[0] > entries.map(\.sequence).max()!)
        outbox.close()
    }

    @Test("a second opening of a file in use is refused with a clear error, and changes nothing")
    func secondOpeningRefused() throws {
        let directory = try OutboxDirectory()
        let settings = RedisBridge.Outbox(path: directory.path())
        let (outbox, _, _) = try DurableOutbox.open(settings, report: { _ in })
        _ = append(3, to: outbox)
        let before = try Data(contentsOf: URL(fileURLWithPath: settings.path))
        #expect {
            _ = try DurableOutbox.open(settings, report: { _ in })
        } throws: { error in
            guard let error = error as? RedisBridgeError else { return false }
            return error.code == .outboxUnavailable && error.path == settings.path
                && (error.reason ?? "").contains("another bridge has it open")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: settings.path)) == before)
        // The copy of a compaction the holder is writing is the holder's: a refused opening
        // must not remove it (the holder's rename would fail).
        let copy = DurableOutbox.compactionPath(settings.path)
        try Data("being written".utf8).write(to: URL(fileURLWithPath: copy))
        #expect(throws: RedisBridgeError.self) { _ = try DurableOutbox.open(settings, report: { _ in }) }
        #expect(FileManager.default.fileExists(atPath: copy), "the holder's compaction copy is left alone")
        outbox.close()
        // Once closed, it opens again, and the copy left behind goes.
        let (reopened, entries, _) = try DurableOutbox.open(settings, report: { _ in })
        #expect(entries.count == 3)
        #expect(!FileManager.default.fileExists(atPath: copy))
        reopened.close()
    }

    @Test("a file that is not an outbox is refused and left as it was")
    func foreignFileRefused() throws {
        let directory = try OutboxDirectory()
        let path = directory.path()
        try Data("not an outbox\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: RedisBridgeError.self) {
            _ = try DurableOutbox.open(RedisBridge.Outbox(path: path), report: { _ in })
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not an outbox\n")
    }

    @Test("a torn end is cut off and reported; the entries before it are kept and the file goes on")
    func tornEndRecovered() throws {
        let directory = try OutboxDirectory()
        let settings = RedisBridge.Outbox(path: directory.path())
        do {
            let (outbox, _, _) = try DurableOutbox.open(settings, report: { _ in })
            _ = append(5, to: outbox)
            outbox.close()
        }
        // The last write torn: half of the fifth entry's record is missing.
        let url = URL(fileURLWithPath: settings.path)
        var bytes = try Data(contentsOf: url)
        bytes.removeLast(60)
        try bytes.write(to: url)
        let (outbox, entries, notes) = try DurableOutbox.open(settings, report: { _ in })
        #expect(entries.map(\.idNumber) == [1, 2, 3, 4])
        #expect(notes.map(\.code) == [.outboxDamaged])
        #expect(notes.first?.path == settings.path)
        _ = append(1, from: 6, to: outbox)
        outbox.close()
        let (again, reread, renotes) = try DurableOutbox.open(settings, report: { _ in })
        #expect(reread.map(\.idNumber) == [1, 2, 3, 4, 6])
        #expect(renotes.isEmpty)
        again.close()
    }

    @Test("entries older than the maximum age are reported, not read back, and not read again")
    func expiredEntries() throws {
        let directory = try OutboxDirectory()
        let path = directory.path()
        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        try Data(file([.entry(entry(1, writtenAt: now - 3_600_000)), .entry(entry(2, writtenAt: now))]))
            .write(to: URL(fileURLWithPath: path))
        let settings = RedisBridge.Outbox(path: path, maximumAge: .seconds(60))
        do {
            let (outbox, entries, notes) = try DurableOutbox.open(settings, report: { _ in })
            #expect(entries.map(\.sequence) == [2])
            #expect(notes.map(\.code) == [.outboxEntriesExpired])
            #expect(notes.first?.unpublishedCount == 1)
            outbox.close()
        }
        let (outbox, entries, notes) = try DurableOutbox.open(settings, report: { _ in })
        #expect(entries.map(\.sequence) == [2])
        #expect(notes.isEmpty)
        outbox.close()
    }

    @Test("once the events waiting take the maximum bytes, appends are refused until some are confirmed")
    func fullOutbox() throws {
        let directory = try OutboxDirectory()
        let (outbox, _, _) = try DurableOutbox.open(
            RedisBridge.Outbox(path: directory.path(), maximumBytes: 4096), report: { _ in })
        let sequences = append(40, to: outbox, size: 200)
        let written = sequences.filter { $0 != 0 }
        #expect(written.count > 10 && written.count < 40)
        guard case .full = outbox.append(mode: .stream, type: "t", key: "k", idPrefix: "p", idNumber: 0, payload: [1])
        else {
            Issue.record("an append past the maximum was not refused")
            return
        }
        outbox.confirm([written[0]])
        guard
            case .written = outbox.append(mode: .stream, type: "t", key: "k", idPrefix: "p", idNumber: 0, payload: [1])
        else {
            Issue.record("an append after a confirmation was refused")
            return
        }
        outbox.close()
    }

    @Test("the file shrinks as entries are confirmed, and keeps exactly the ones waiting")
    func compaction() throws {
        let directory = try OutboxDirectory()
        // Compaction starts past 64 KiB.
        let settings = RedisBridge.Outbox(path: directory.path(), maximumBytes: 1 << 20)
        let (outbox, _, _) = try DurableOutbox.open(settings, report: { _ in })
        // Everything confirmed: the file goes back to its header.
        let first = append(1_000, to: outbox)
        #expect(outbox.gauges.bytes > 64 << 10)
        outbox.confirm(first)
        #expect(outbox.gauges.bytes < 64 << 10)
        #expect(outbox.gauges.entries == 0)
        // Most confirmed: rewritten with the rest.
        let second = append(1_000, from: 1_001, to: outbox)
        let kept = second.enumerated().filter { $0.offset % 10 == 3 }.map(\.element)
        outbox.confirm(second.filter { !kept.contains($0) })
        #expect(outbox.gauges.entries == kept.count)
        #expect(outbox.gauges.bytes < 64 << 10)
        let more = append(5, from: 3_001, to: outbox)
        outbox.close()
        #expect(!FileManager.default.fileExists(atPath: DurableOutbox.compactionPath(settings.path)))
        let (reopened, entries, notes) = try DurableOutbox.open(settings, report: { _ in })
        #expect(notes.isEmpty)
        #expect(entries.map(\.sequence) == kept + more)
        reopened.close()
    }

    @Test("a compaction that copies more than its write buffer keeps every entry where the next one reads it")
    func compactionPastItsBuffer() throws {
        let directory = try OutboxDirectory()
        // Compaction starts past 512 KiB; the copy is written out in 1 MiB pieces.
        let settings = RedisBridge.Outbox(path: directory.path(), maximumBytes: 4 << 20)
        let (outbox, _, _) = try DurableOutbox.open(settings, report: { _ in })
        let sequences = append(3_000, to: outbox, size: 1_200)
        #expect(!sequences.contains(0))
        let kept = sequences.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        outbox.confirm(sequences.filter { !kept.contains($0) })
        let size = try FileManager.default.attributesOfItem(atPath: settings.path)[.size] as? Int
        #expect(outbox.gauges.bytes == size, "the size the outbox counts is the file's")
        // A second compaction reads the entries at the offsets the first one recorded.
        let last = kept.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        outbox.confirm(kept.filter { !last.contains($0) })
        outbox.close()
        let (reopened, entries, notes) = try DurableOutbox.open(settings, report: { _ in })
        #expect(notes.isEmpty)
        #expect(entries.map(\.sequence) == last)
        reopened.close()
    }

    @Test("a copy left by a compaction that died before its rename is removed; the file is read as it was")
    func leftoverCompactionCopy() throws {
        let directory = try OutboxDirectory()
        let settings = RedisBridge.Outbox(path: directory.path())
        do {
            let (outbox, _, _) = try DurableOutbox.open(settings, report: { _ in })
            _ = append(3, to: outbox)
            outbox.close()
        }
        try Data(OutboxRecord.magic + [1, 2, 3]).write(
            to: URL(fileURLWithPath: DurableOutbox.compactionPath(settings.path)))
        let (outbox, entries, notes) = try DurableOutbox.open(settings, report: { _ in })
        #expect(entries.count == 3 && notes.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: DurableOutbox.compactionPath(settings.path)))
        outbox.close()
    }

    @Test("one sync covers every append written before it: waiting for earlier ones runs no more")
    func oneSyncForEveryEarlierAppend() throws {
        let directory = try OutboxDirectory()
        let (outbox, _, _) = try DurableOutbox.open(RedisBridge.Outbox(path: directory.path()), report: { _ in })
        var tickets: [UInt64] = []
        for n in 0..<20 {
            if case .written(_, let ticket) = outbox.append(
                mode: .stream, type: "t", key: "k", idPrefix: "p", idNumber: UInt64(n), payload: [1])
            {
                tickets.append(ticket)
            }
        }
        #expect(tickets.count == 20)
        #expect(outbox.syncsRun == 0)
        outbox.waitUntilDurable(tickets.last!)
        #expect(outbox.syncsRun == 1)
        for ticket in tickets { outbox.waitUntilDurable(ticket) }
        #expect(outbox.syncsRun == 1)
        outbox.close()
    }

    @Test("concurrent appends that each wait for the disk all return, and all are on file")
    func groupCommit() async throws {
        let directory = try OutboxDirectory()
        let settings = RedisBridge.Outbox(path: directory.path(), sync: .everyEvent)
        let (outbox, _, _) = try DurableOutbox.open(settings, report: { _ in })
        let threads = 8
        let each = 200
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    for n in 0..<each {
                        if case .written(_, let ticket) = outbox.append(
                            mode: .stream, type: "t", key: "k", idPrefix: "p", idNumber: UInt64(thread * each + n),
                            payload: [1, 2, 3])
                        {
                            outbox.waitUntilDurable(ticket)
                        }
                    }
                }
            }
        }
        outbox.close()
        let (reopened, entries, _) = try DurableOutbox.open(settings, report: { _ in })
        #expect(Set(entries.map(\.idNumber)) == Set((0..<(threads * each)).map(UInt64.init)))
        reopened.close()
    }
}
