extension RedisBridge {
    /// One message of a bridge's log, handed to ``Configuration/logHandler``.
    ///
    /// A bridge logs every error it reports to ``Configuration/errorHandler`` (with the error
    /// in ``error``), and the steps of its life: starting, started (connected to Redis, with
    /// what it reads and publishes), Redis answering again after an outage, stopping, and
    /// stopped (with what was left, as in ``ShutdownReport``). Forward the records to the
    /// logging system the app uses:
    ///
    /// ```swift
    /// configuration.logHandler = { record in
    ///     print("[\(record.level)] \(record.message) \(record.metadata)")
    /// }
    /// ```
    ///
    /// The message is one readable line; ``metadata`` holds the same facts as separate fields
    /// (`stream`, `type`, `id`, `source`, counts), for structured logs and filters.
    public struct LogRecord: Sendable, Equatable, CustomStringConvertible {
        /// How much a record matters, from the least to the most; the same five levels as the
        /// common Swift logging libraries, so that each maps to one of theirs.
        public enum Level: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
            /// Details for tracing the bridge's work while debugging.
            case debug
            /// The bridge's life cycle going as planned: started, stopped cleanly.
            case info
            /// Worth noting though nothing is wrong with the bridge: stopping, an event given
            /// to a dead-letter stream by policy.
            case notice
            /// Something went wrong and the bridge copes: Redis unreachable (it retries), a
            /// message skipped, an event not published.
            case warning
            /// Something went wrong that needs an operator: a start that failed, events left
            /// unpublished at stop, a consumer group lost with Redis's data.
            case error

            public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

            public var description: String {
                switch self {
                case .debug: "debug"
                case .info: "info"
                case .notice: "notice"
                case .warning: "warning"
                case .error: "error"
                }
            }
        }

        /// How much the record matters.
        public var level: Level
        /// One readable line, beginning with "Redis bridge".
        public var message: String
        /// The facts of the record as separate fields, such as `"stream"`, `"type"`, `"id"`.
        public var metadata: [String: String]
        /// The error, when the record reports one (the same value ``Configuration/errorHandler``
        /// receives).
        public var error: RedisBridgeError?

        /// A record; bridges make them, and tests of a log handler may too.
        public init(
            level: Level, message: String, metadata: [String: String] = [:], error: RedisBridgeError? = nil
        ) {
            self.level = level
            self.message = message
            self.metadata = metadata
            self.error = error
        }

        public var description: String {
            guard !metadata.isEmpty else { return "[\(level)] \(message)" }
            let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return "[\(level)] \(message) (\(fields.joined(separator: ", ")))"
        }
    }
}

extension RedisBridge.Configuration {
    /// Hands a record to ``logHandler``, if one is installed: the one way into the bridge's
    /// log. `message` and `metadata` are only evaluated when there is a handler, so logging
    /// costs nothing without one.
    func log(
        _ level: RedisBridge.LogRecord.Level, _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> [String: String] = [:], error: RedisBridgeError? = nil
    ) {
        guard let logHandler else { return }
        logHandler(RedisBridge.LogRecord(level: level, message: message(), metadata: metadata(), error: error))
    }

    /// Reports `error` to ``errorHandler`` and logs it: every component of a bridge reports
    /// through this, so that the log sees every error the handler sees.
    func report(_ error: RedisBridgeError) {
        errorHandler(error)
        log(error.logLevel, error.description, metadata: error.logMetadata, error: error)
    }
}

extension RedisBridgeError {
    /// How much the error matters to an operator.
    var logLevel: RedisBridge.LogRecord.Level {
        switch code {
        case .stoppedWithUnpublishedEvents, .consumerGroupLost, .startFailed, .invalidConfiguration,
            .duplicateWireName, .alreadyStarted, .outboxUnavailable, .outboxDamaged, .outboxEntriesExpired:
            .error
        default:
            .warning
        }
    }

    /// The error's facts as separate fields; `error` names the kind of error. Built from the
    /// facts the error has, so that an error of a new code is logged with its facts too.
    var logMetadata: [String: String] {
        var fields = ["error": code.description]
        fields["key"] = key
        fields["type"] = type
        fields["id"] = id
        fields["source"] = source
        fields["reason"] = reason ?? cloudEventError?.description
        fields["capacity"] = capacity.map(String.init)
        fields["cause"] = cause?.description
        fields["stream"] = stream
        fields["group"] = group
        fields["count"] = unpublishedCount.map(String.init)
        fields["path"] = path
        return fields
    }
}
