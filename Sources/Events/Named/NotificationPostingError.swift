public import Foundation

/// What a bridge posting named events to `NotificationCenter` left out of a notification it
/// posted, because the notification had no place for it or the event never carried it.
///
/// The bridge (``EventCenter/postNotifications(for:to:as:from:priority:file:line:)``) posts the
/// notification first, then throws this error as its listener's failure: the center hands it to
/// its ``EventCenter/errorHandler``, and `dispatchAndWait` counts it in its report.
///
/// ```swift
/// center.errorHandler = { failure in
///     if let error = failure.error as? NotificationPostingError { print(error) }
///     // Named event "saved" was posted as notification "saved" without its payload value for
///     // key "data" (Int), whose userInfo key the event's data took.
/// }
/// ```
///
/// Two things are left out:
/// - a payload value under ``NotificationBridge/dataKey`` when the event also has data, which
///   the notification carries under that key;
/// - values a forwarding bridge could not carry into the event (``Payload/unbridgedValues``, or
///   data it did not carry): the event has only their type names, so there is nothing to post.
public struct NotificationPostingError: Error, Hashable, CustomStringConvertible {
    /// The name of the event that was posted.
    public let eventName: EventName
    /// The name of the notification posted for it.
    public let notificationName: Notification.Name
    /// The type of the payload value under ``NotificationBridge/dataKey`` that the event's data
    /// replaced in the `userInfo`, or nil when there was none.
    public let payloadValueReplacedByData: String?
    /// The payload values a bridge could not carry into the event, and so could not be posted:
    /// key name to type name.
    public let uncarriedValues: [String: String]
    /// The type of the event's data when a bridge could not carry it, or nil.
    public let uncarriedData: String?

    init(
        eventName: EventName, notificationName: Notification.Name, payloadValueReplacedByData: String?,
        uncarriedValues: [String: String], uncarriedData: String?
    ) {
        self.eventName = eventName
        self.notificationName = notificationName
        self.payloadValueReplacedByData = payloadValueReplacedByData
        self.uncarriedValues = uncarriedValues
        self.uncarriedData = uncarriedData
    }

    /// Whether anything was left out.
    var isEmpty: Bool {
        payloadValueReplacedByData == nil && uncarriedValues.isEmpty && uncarriedData == nil
    }

    /// One sentence that names the event, the notification and each value left out.
    public var description: String {
        var omissions: [String] = []
        if let replaced = payloadValueReplacedByData {
            omissions.append(
                "its payload value for key \"\(NotificationBridge.dataKey)\" (\(replaced)), whose userInfo key the "
                    + "event's data took")
        }
        var uncarried = uncarriedValues.keys.sorted().map { "\"\($0)\" (\(uncarriedValues[$0]!))" }
        if let uncarriedData { uncarried.append("the data (\(uncarriedData))") }
        if !uncarried.isEmpty {
            omissions.append("the values a bridge could not carry into the event: " + uncarried.joined(separator: ", "))
        }
        return "Named event \"\(eventName.rawValue)\" was posted as notification \"\(notificationName.rawValue)\" "
            + "without " + omissions.joined(separator: "; and without ") + "."
    }
}
