extension RedisBridge {
    /// A file on local disk where a bridge writes each outgoing event before `dispatch`
    /// returns, so that events Redis has not acknowledged yet survive the publishing process
    /// dying (a crash, an out-of-memory kill, a deploy that does not wait for ``RedisBridge/stop(drainTimeout:)``).
    ///
    /// Set ``Configuration/outbox`` to use one:
    ///
    /// ```swift
    /// var configuration = RedisBridge.Configuration(source: "shop/api-1")
    /// configuration.outbox = RedisBridge.Outbox(path: "/var/lib/shop/events.outbox")
    /// ```
    ///
    /// What it promises:
    /// - An event whose `dispatch` has returned is in the file. If the process dies before Redis
    ///   acknowledged the event, the next bridge that opens the file publishes it again, in the
    ///   order it was written, ahead of the events dispatched after it. Receivers suppress the
    ///   copy that may result (an event Redis had acknowledged just before the process died) by
    ///   the event's CloudEvents source and id.
    /// - The file is written with `write(2)` before `dispatch` returns, so the death of the
    ///   process alone never loses an event. ``sync`` decides what a crash of the machine (or
    ///   a power loss) may lose: nothing with ``Sync/everyEvent``, the last interval's events
    ///   with ``Sync/interval(_:)``.
    /// - One process at a time: the file is locked while a bridge has it open, and a second
    ///   bridge, in this process or another, gets ``RedisBridgeError/Code/outboxUnavailable``.
    /// - A damaged end (a write the machine's crash tore) is cut off at the last whole record,
    ///   and reported as ``RedisBridgeError/Code/outboxDamaged``; the records before it are kept.
    ///
    /// By default only stream events go through the outbox: Pub/Sub is fire-and-forget, and an
    /// event published again after a restart may reach subscribers late. Set
    /// ``includesPubSub`` to write them too.
    public struct Outbox: Sendable, Hashable {
        /// When the file's writes are forced to the disk (`fsync`).
        public struct Sync: Sendable, Hashable, CustomStringConvertible {
            enum Kind: Hashable {
                case everyEvent
                case interval(Duration)
            }

            let kind: Kind

            /// Before every `dispatch` returns. Concurrent dispatches share one `fsync` (a group
            /// commit), so the cost is per flush of the disk, not per event when many threads
            /// publish; one thread publishing alone waits for the disk each time.
            public static let everyEvent = Sync(kind: .everyEvent)

            /// At most `interval` after an event was written: a crash of the machine can lose
            /// the events of the last interval; the death of the process still loses nothing.
            public static func interval(_ interval: Duration) -> Sync { Sync(kind: .interval(interval)) }

            public var description: String {
                switch kind {
                case .everyEvent: "everyEvent"
                case .interval(let interval): "interval(\(interval))"
                }
            }
        }

        /// The file's path. Its directory must exist; the file is created when missing.
        public var path: String
        /// When writes reach the disk; ``Sync/everyEvent`` by default.
        public var sync: Sync
        /// The most bytes the events waiting in the file may take: once they do (Redis has
        /// been away for long), further events are refused and reported as
        /// ``RedisBridgeError/Code/outboxFull``, like a full publish buffer. 256 MiB by default.
        /// The file itself is compacted as Redis acknowledges events, once it has grown past an
        /// eighth of this.
        public var maximumBytes: Int
        /// Events older than this when a bridge opens the file are not published again, and are
        /// reported as ``RedisBridgeError/Code/outboxEntriesExpired``; `nil` publishes every
        /// event again, however old. Seven days by default.
        public var maximumAge: Duration?
        /// Whether Pub/Sub events are written too; `false` by default.
        public var includesPubSub: Bool

        /// An outbox at `path`, synced as `sync` says.
        public init(
            path: String, sync: Sync = .everyEvent, maximumBytes: Int = 256 << 20,
            maximumAge: Duration? = .seconds(7 * 24 * 3600), includesPubSub: Bool = false
        ) {
            self.path = path
            self.sync = sync
            self.maximumBytes = maximumBytes
            self.maximumAge = maximumAge
            self.includesPubSub = includesPubSub
        }
    }
}
