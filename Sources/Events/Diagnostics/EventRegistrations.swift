/// Who listens to what in a center, at one moment: ``EventCenter/registrations()``.
///
/// Print it for an aligned table, one row per live listener, grouped by event:
///
/// ```swift
/// print(center.registrations())
/// // EVENT        OWNER              KEY  PRIORITY  CONTEXT         REGISTERED AT     RECEIVED  FAILED
/// // PostWritten  FeedViewModel      -    default   main actor      App/Feed.swift:31       12       0
/// // PostWritten  -                  -    high      posting thread  App/Log.swift:9         12       1
/// ```
///
/// or encode it (it is `Codable`) for a tool of your own. ``Listener/received`` is counted
/// only while ``EventDiagnostics/countsDeliveries`` is on; failures are always counted.
public struct EventRegistrations: Sendable, Hashable, Codable, CustomStringConvertible {
    /// One live listener.
    public struct Listener: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The event: a type name, a named event's name in quotes, or "every named event".
        public let event: String
        /// The type of the owner (or isolating actor), for an owner-bound listener.
        public let ownerType: String?
        /// The listener's key, as text, if it was registered with one.
        public let key: String?
        /// Its priority, as text ("default", "high", "low" or a number).
        public let priority: String
        /// Where its handler runs: "posting thread", "main actor", "queue com.app.db", ...
        public let context: String
        /// The type of the sender it filters on, if it was registered `from:` one.
        public let senderType: String?
        /// Whether it ends after one event.
        public let isOnce: Bool
        /// The `#fileID` of the `listen` call.
        public let fileID: String
        /// The line of the `listen` call.
        public let line: Int
        /// How many events it received while ``EventDiagnostics/countsDeliveries`` was on; nil
        /// when deliveries are not being counted.
        public let received: Int?
        /// How many times its handler threw.
        public let failures: Int

        /// Where the listener was registered, as "file:line".
        public var location: String { "\(fileID):\(line)" }

        public var description: String {
            var parts = ["listener to \(event)"]
            if let ownerType { parts.append("owned by \(ownerType)") }
            parts.append("registered at \(location)")
            parts.append("on \(context)")
            return parts.joined(separator: ", ")
        }
    }

    /// Every live listener, grouped by event (events sorted by name), each event's listeners
    /// in the order they receive it.
    public let listeners: [Listener]

    /// The number of listeners.
    public var count: Int { listeners.count }

    /// The listeners of `event` (a type name, or a named event's name in quotes).
    public func listeners(to event: String) -> [Listener] {
        listeners.filter { $0.event == event }
    }

    public var description: String { table }

    /// An aligned text table, one row per listener.
    public var table: String {
        let header = ["EVENT", "OWNER", "KEY", "PRIORITY", "CONTEXT", "REGISTERED AT", "RECEIVED", "FAILED"]
        let rows = listeners.map { listener in
            [
                listener.event + (listener.isOnce ? " (once)" : ""),
                listener.ownerType ?? "-",
                listener.key ?? "-",
                listener.priority,
                listener.context + (listener.senderType.map { ", from \($0)" } ?? ""),
                listener.location,
                listener.received.map(String.init) ?? "-",
                String(listener.failures),
            ]
        }
        guard !rows.isEmpty else { return "no listeners" }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        let rightAligned: Set<Int> = [6, 7]
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }
            .joined(separator: "  ")
            .trimmingSuffixSpaces()
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}

extension String {
    fileprivate func trimmingSuffixSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
