public import Foundation

/// The keys and rules shared by the bridges between an ``EventCenter`` and Foundation's
/// `NotificationCenter`.
///
/// Four bridges, each a ``Subscription`` (keep it to keep bridging; cancel or drop it to stop,
/// which is why the result cannot be discarded):
///
/// | direction | call |
/// |---|---|
/// | notification → named event | ``EventCenter/forwardNotifications(named:from:object:as:keys:file:line:)`` |
/// | notification → typed event | ``EventCenter/forwardNotifications(named:from:object:file:line:as:)`` |
/// | typed event → notification | ``EventCenter/postNotifications(for:to:named:from:priority:file:line:userInfo:)`` |
/// | named event → notification | ``EventCenter/postNotifications(for:to:as:from:priority:file:line:)`` |
///
/// ```swift
/// // Old code still posts and observes in NotificationCenter; new code uses the event center.
/// let inbound = center.forwardNotifications(named: .rectangleCreated, keys: [PayloadKeys.uniqueID])
/// let outbound = center.postNotifications(for: PostWritten.self, named: .postWritten)
/// ```
///
/// ## What crosses, and how
/// A `Notification`'s `object` and `userInfo` are not `Sendable`, while events travel to any
/// thread. So the bridges carry only what is known to be `Sendable`, and report the rest:
/// - The notification's `object`, when it is a class instance, becomes the event's sender
///   (``NamedEvent/sender``; listeners `from:` that object hear it). ``Sender`` hands the object
///   out only as a `Sendable` type. When `object` is a value, it becomes the event's data under
///   the same rule as a `userInfo` value.
/// - A `userInfo` value is carried when the bridge was given a ``PayloadKey`` of that name whose
///   `Sendable` value type the value casts to, or else when its dynamic type is exactly one of
///   `String`, `Bool`, `Int`, `Double`, `Float`, the sized integers, `Date`, `URL`, `UUID`,
///   `Data`, `Decimal`, arrays of `String`, `Int`, `Double` or `Bool`, `[String: String]`, or any
///   ``Event``. When several keys of that name were given, each is tried, the last given first.
/// - Keys that are not strings are carried under their description (a deeply nested one cut
///   short with `…`). When keys print alike (the `Int` 5 and the `String` "5", an `NSString` and
///   a `String`, an enum and its raw value), the name belongs to the `String` key, else to the
///   `NSString`, else to nobody; each other key of that name is reported as not carried under
///   its name and type, `5 (key of type Int)` (`5 (key of type Int) #2` when that is taken). So
///   no value ever replaces another.
/// - Every other value is not carried but recorded, with its type, in
///   ``Payload/unbridgedValues``; reading it throws a ``NamedEventError`` that says why it was
///   not carried (its type, the type of the key given for it, or its key) and what would carry
///   it. Every `userInfo` entry is either carried or recorded: nothing disappears without a trace.
/// - In the other direction a notification is posted on the dispatching thread, inside the
///   dispatch, with the dispatch's sender as `object`: exactly what the dispatcher would have
///   posted itself. What a named event's notification cannot hold is reported after the post,
///   as a ``NotificationPostingError``, to the center's error handler.
///
/// ## Rules
/// - Forwarded notifications are dispatched synchronously on the posting thread, inside `post`.
/// - After a bridge's `cancel()` returns (or it is deinitialized), it forwards or posts nothing
///   more, and a forwarding bridge's `NotificationCenter` observer has been removed.
/// - Bridges do not echo. A notification a center's posting bridge posts is not forwarded back
///   into that center by its forwarding bridge of the same name and `NotificationCenter`, and an
///   event such a forwarding bridge dispatches is not posted back by a posting bridge of the same
///   name and `NotificationCenter`. So both directions of one name can be bridged at once during
///   a migration, and each side sees each event once.
public enum NotificationBridge {
    /// The `userInfo` key under which ``EventCenter/postNotifications(for:to:named:from:priority:file:line:userInfo:)``
    /// posts the typed event by default: `"event"`.
    public static let eventKey = "event"

    /// The `userInfo` key under which ``EventCenter/postNotifications(for:to:as:from:priority:file:line:)``
    /// posts a named event's single value (``NamedEvent/data(as:)``): `"data"`. It replaces a
    /// payload value with the same key, and the bridge reports that as a
    /// ``NotificationPostingError``.
    public static let dataKey = "data"

    /// A notification's `object` when it is a class instance (which can be a sender); nil for a value.
    static func senderObject(_ object: Any?) -> AnyObject? {
        guard let object, type(of: object) is AnyClass else { return nil }
        return object as AnyObject
    }

    /// `value` as a `Sendable` value: through the keys of its name (the last listed first), else
    /// when its dynamic type is one of the well-known value types or an `Event`; otherwise
    /// unbridged, with the reason.
    static func entry(for value: Any, keys: [PayloadKeys]) -> Payload.Entry {
        for key in keys.reversed() {
            if let carried = key.sendableValue(from: value) { return .value(carried) }
        }
        if let carried = wellKnownValue(value) { return .value(carried) }
        let typeName = String(describing: type(of: value))
        guard !keys.isEmpty else { return .unbridged(typeName: typeName) }
        var keyTypes: [String] = []
        for key in keys where !keyTypes.contains(key.valueTypeName) { keyTypes.append(key.valueTypeName) }
        let number = (value as? NSNumber).map { String(describing: $0) }
        return .unbridged(typeName: typeName, reason: .notOfKeyTypes(keyTypes, number: number))
    }

    private static func wellKnownValue(_ value: Any) -> (any Sendable)? {
        // Exact dynamic types only, so that a value never changes type on the way (an NSNumber
        // is not guessed to be an Int or a Bool; pass a PayloadKey to say which).
        func exactly<T: Sendable>(_ type: T.Type) -> (any Sendable)? {
            Swift.type(of: value) == type ? value as? T : nil
        }
        if let event = value as? any Event { return event }
        return exactly(String.self) ?? exactly(Bool.self) ?? exactly(Int.self) ?? exactly(Double.self)
            ?? exactly(Float.self) ?? exactly(Int8.self) ?? exactly(Int16.self) ?? exactly(Int32.self)
            ?? exactly(Int64.self) ?? exactly(UInt.self) ?? exactly(UInt8.self) ?? exactly(UInt16.self)
            ?? exactly(UInt32.self) ?? exactly(UInt64.self) ?? exactly(Date.self) ?? exactly(URL.self)
            ?? exactly(UUID.self) ?? exactly(Data.self) ?? exactly(Decimal.self) ?? exactly([String].self)
            ?? exactly([Int].self) ?? exactly([Double].self) ?? exactly([Bool].self)
            ?? exactly([String: String].self)
    }

    /// The sender, data and payload of a forwarded notification.
    static func carry(
        _ notification: Notification, keys: [String: [PayloadKeys]]
    ) -> (sender: AnyObject?, data: Payload.Entry?, payload: Payload) {
        var payload = Payload()
        if let userInfo = notification.userInfo { payload.entries = entries(of: userInfo, keys: keys) }
        let sender = senderObject(notification.object)
        let data = sender == nil ? notification.object.map { entry(for: $0, keys: []) } : nil
        return (sender, data, payload)
    }

    // MARK: Naming userInfo keys

    /// How strongly a `userInfo` key claims its name: a `String` is its name; an `NSString` is
    /// one in another type; any other key only prints as it.
    private enum Claim: Comparable {
        case string
        case bridgedString
        case printed
    }

    /// A `userInfo` key's name, and how strongly it claims it.
    private static func name(of key: AnyHashable) -> (name: String, claim: Claim) {
        if let string = key.base as? String {
            return (string, type(of: key.base) == String.self ? .string : .bridgedString)
        }
        return (BoundedDescription.describing(key.base), .printed)
    }

    /// One slot for every `userInfo` entry: its value (or the report that it was not carried)
    /// under its key's name, unless another key has that name too.
    ///
    /// Keys that print alike (the `Int` 5 and the `String` "5") would share a slot, and one
    /// value would silently replace the other. So a name belongs to the one key with the
    /// strongest claim to it (a `String` over an `NSString` over a key that only prints as the
    /// name), and to nobody when two keys claim it equally; every other key of that name is
    /// reported as not carried, under its name and type, `5 (key of type Int)` (with ` #2`, ` #3`
    /// ... when that is taken too, by a key or by another such name).
    static func entries(of userInfo: [AnyHashable: Any], keys: [String: [PayloadKeys]]) -> [String: Payload.Entry] {
        var entries: [String: Payload.Entry] = [:]
        entries.reserveCapacity(userInfo.count)
        for (key, value) in userInfo {
            let name = name(of: key).name
            // Almost every userInfo has distinct names; the rare one that does not is sorted out
            // from scratch.
            guard entries[name] == nil else { return entriesSharingNames(of: userInfo, keys: keys) }
            entries[name] = entry(for: value, keys: keys[name] ?? [])
        }
        return entries
    }

    private static func entriesSharingNames(
        of userInfo: [AnyHashable: Any], keys: [String: [PayloadKeys]]
    ) -> [String: Payload.Entry] {
        typealias Claimant = (claim: Claim, keyType: String, value: Any)
        var claimants: [String: [Claimant]] = [:]
        for (key, value) in userInfo {
            let (name, claim) = name(of: key)
            claimants[name, default: []].append((claim, String(describing: type(of: key.base)), value))
        }
        var entries: [String: Payload.Entry] = [:]
        var unplaced: [(name: String, claimant: Claimant)] = []
        for (name, claims) in claimants {
            let strongest = claims.map(\.claim).min()!
            let owners = claims.filter { $0.claim == strongest }
            for claimant in claims {
                if owners.count == 1, claimant.claim == strongest {
                    entries[name] = entry(for: claimant.value, keys: keys[name] ?? [])
                } else {
                    unplaced.append((name, claimant))
                }
            }
        }
        // In name and type order, so that the same userInfo always gets the same names (keys
        // that print alike and have one type too are numbered in no promised order).
        unplaced.sort { ($0.name, $0.claimant.keyType) < ($1.name, $1.claimant.keyType) }
        for (name, claimant) in unplaced {
            let base = "\(name) (key of type \(claimant.keyType))"
            var reported = base
            var number = 2
            while entries[reported] != nil || claimants[reported] != nil {
                reported = "\(base) #\(number)"
                number += 1
            }
            entries[reported] = .unbridged(
                typeName: String(describing: type(of: claimant.value)),
                reason: .lookalikeKey(keyType: claimant.keyType, printedAs: name))
        }
        return entries
    }
}

// MARK: - Echo suppression

/// A bridge crossing in progress on this thread: which center, which `NotificationCenter`, which
/// name, and which way. Posting and forwarding bridges of the same center, `NotificationCenter`
/// and name check for each other's crossing, so that neither sends back what the other brought.
struct BridgeCrossing: Hashable, Sendable {
    enum Direction: Hashable, Sendable {
        case forwarding
        case posting
    }

    let center: ObjectIdentifier
    let notificationCenter: ObjectIdentifier
    let name: String
    let direction: Direction

    /// The crossings in progress on this thread (outside tasks, task-locals are thread-bound).
    @TaskLocal static var inProgress: Set<BridgeCrossing> = []

    /// The crossing in the other direction, which this one must not undo.
    var reverse: BridgeCrossing {
        BridgeCrossing(
            center: center, notificationCenter: notificationCenter, name: name,
            direction: direction == .forwarding ? .posting : .forwarding)
    }

    /// Runs `body` as this crossing, unless it would send back what the reverse crossing brought.
    func perform(_ body: () -> Void) {
        let active = Self.inProgress
        guard !active.contains(reverse) else { return }
        Self.$inProgress.withValue(active.union([self]), operation: body)
    }
}

/// The internal event a forwarding bridge's listener record receives: one notification, on the
/// posting thread.
struct NotificationForwarding: Event, @unchecked Sendable {
    // Why @unchecked is safe: created inside the NotificationCenter observer block and consumed
    // by `deliver`, synchronously, on the same thread; never stored, never handed to another one.
    let notification: Notification
}

// MARK: - Bridges

extension EventCenter {
    /// Dispatches every notification named `notificationName` posted to `notificationCenter` as a
    /// named event in this center, until the returned subscription is cancelled or deinitialized.
    ///
    /// ```swift
    /// extension PayloadKeys {
    ///     static let uniqueID = PayloadKey<String>("uniqueID")
    ///     static let color = PayloadKey<RGBColor>("color")
    /// }
    /// let bridge = center.forwardNotifications(named: .rectangleColorChanged, keys: [PayloadKeys.color])
    /// let subscription = center.listen(to: "rectangleColorChanged") { event in
    ///     let color = try? event[.color]   // carried: the bridge was given its key
    /// }
    /// ```
    ///
    /// The event's sender is the notification's `object` (when it is an object), its payload the
    /// `userInfo` values that can cross (see ``NotificationBridge`` for the rule; the others are
    /// reported, never dropped silently). It is dispatched on the posting thread, inside `post`.
    ///
    /// - Parameters:
    ///   - notificationName: The notifications to forward.
    ///   - notificationCenter: Where they are posted. Defaults to `NotificationCenter.default`.
    ///   - object: When given, only notifications posted with this object are forwarded (as with
    ///     `addObserver`'s `object:`, which holds it weakly).
    ///   - name: The event name to dispatch under; defaults to the notification name's string.
    ///   - keys: Keys whose values to carry with their type, for `userInfo` values whose type the
    ///     bridge does not know to be `Sendable` (your own structs, an `NSNumber` read as `Int`).
    ///     Several keys may share a name: each is tried, the last first.
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    public func forwardNotifications(
        named notificationName: Notification.Name,
        from notificationCenter: NotificationCenter = .default,
        object: AnyObject? = nil,
        as name: EventName? = nil,
        keys: [PayloadKeys] = [],
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Subscription {
        let eventName = name ?? EventName(notificationName.rawValue)
        // Every key listed for a name is tried, the last listed first (so when the value casts to
        // several, the last one wins).
        let keysByName = Dictionary(grouping: keys, by: \.name)
        return forward(notificationName, from: notificationCenter, object: object, file: file, line: line) {
            center, notification in
            let (sender, data, payload) = NotificationBridge.carry(notification, keys: keysByName)
            // Diagnostics show the bridge's own registration as the dispatcher.
            center.dispatchNamed(
                eventName, from: sender, data: data, payload: payload, callSite: CallSite(fileID: file, line: line))
        }
    }

    /// Dispatches an event of your own type for every notification named `notificationName`, made
    /// by `transform`, until the returned subscription is cancelled or deinitialized.
    ///
    /// ```swift
    /// struct AppBecameActive: Event {}
    /// let bridge = center.forwardNotifications(named: .appDidBecomeActive) { _ in AppBecameActive() }
    /// ```
    ///
    /// `transform` runs on the posting thread, inside `post`, and is the one place that reads the
    /// notification: copy what the event needs into it (it is `Sendable`). Return nil to skip a
    /// notification. The event is dispatched from the notification's `object` when that is an
    /// object.
    public func forwardNotifications<E: Event>(
        named notificationName: Notification.Name,
        from notificationCenter: NotificationCenter = .default,
        object: AnyObject? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        as transform: @escaping @Sendable (Notification) -> E?
    ) -> Subscription {
        forward(notificationName, from: notificationCenter, object: object, file: file, line: line) {
            center, notification in
            guard let event = transform(notification) else { return }
            center.dispatch(event, from: NotificationBridge.senderObject(notification.object), file: file, line: line)
        }
    }

    /// Observes `notificationName` in `notificationCenter` and hands each notification to `body`,
    /// through a listener record: its subscription removes the observer, and its atomic claim
    /// makes "nothing is forwarded after `cancel()` returns" hold as for any listener.
    private func forward(
        _ notificationName: Notification.Name,
        from notificationCenter: NotificationCenter,
        object: AnyObject?,
        file: StaticString,
        line: UInt,
        _ body: @escaping @Sendable (EventCenter, Notification) -> Void
    ) -> Subscription {
        let crossing = BridgeCrossing(
            center: ObjectIdentifier(self), notificationCenter: ObjectIdentifier(notificationCenter),
            name: notificationName.rawValue, direction: .forwarding)
        // The record lives in the list of `NotificationForwarding`, an internal type nobody else
        // dispatches; only the observer below delivers to it.
        let record = ForwardingRecord(
            registry: registry, callSite: CallSite(fileID: file, line: line)
        ) { [weak self] _, forwarding, _ in
            guard let self else { return }
            crossing.perform { body(self, forwarding.notification) }
        }
        let subscription = register(record)
        let token = notificationCenter.addObserver(forName: notificationName, object: object, queue: nil) {
            [weak self] notification in
            _ = self?.deliver(NotificationForwarding(notification: notification), to: [record], from: nil)
        }
        record.attach(FoundationObserver(token: token, notificationCenter: notificationCenter))
        return subscription
    }

    /// Posts a notification named `notificationName` to `notificationCenter` for every event of
    /// type `E` dispatched in this center, until the returned subscription is cancelled or
    /// deinitialized: for code that still observes there.
    ///
    /// ```swift
    /// let bridge = center.postNotifications(for: PostWritten.self, named: .postWritten) { post in
    ///     ["title": post.title]
    /// }
    /// ```
    ///
    /// The notification is posted on the dispatching thread, inside the dispatch, as one of the
    /// event's listeners (with `priority`); its `object` is the dispatch's sender, its `userInfo`
    /// what `userInfo` returns (by default the event itself under ``NotificationBridge/eventKey``).
    ///
    /// - Parameters:
    ///   - type: The event type to publish.
    ///   - notificationCenter: Where to post. Defaults to `NotificationCenter.default`.
    ///   - notificationName: The name to post under.
    ///   - sender: When given, only events dispatched from this object are posted.
    ///   - priority: The bridge's place among the event's listeners.
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    ///   - userInfo: Builds the notification's `userInfo` from the event.
    public func postNotifications<E: Event>(
        for type: E.Type,
        to notificationCenter: NotificationCenter = .default,
        named notificationName: Notification.Name,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        file: StaticString = #fileID,
        line: UInt = #line,
        userInfo: @escaping @Sendable (E) -> [AnyHashable: Any]? = { [NotificationBridge.eventKey: $0] }
    ) -> Subscription {
        let crossing = BridgeCrossing(
            center: ObjectIdentifier(self), notificationCenter: ObjectIdentifier(notificationCenter),
            name: notificationName.rawValue, direction: .posting)
        let options = ListenerOptions(
            sender: sender, priority: priority, once: false, callSite: CallSite(fileID: file, line: line))
        return registerEvents(type, eventKey: EventKey(type), options: options, place: .delivery(.postingThread)) {
            _, event, eventSender in
            crossing.perform {
                notificationCenter.post(name: notificationName, object: eventSender?.object, userInfo: userInfo(event))
            }
        }
    }

    /// Posts a notification to `notificationCenter` for every event dispatched under `name` in
    /// this center, until the returned subscription is cancelled or deinitialized.
    ///
    /// ```swift
    /// let bridge = center.postNotifications(for: .rectangleCreated)
    /// // NotificationCenter.default observers of Notification.Name("rectangleCreated") hear it
    /// ```
    ///
    /// The notification is posted on the dispatching thread, inside the dispatch; its `object` is
    /// the dispatch's sender; its `userInfo` holds the payload's values under their key names and
    /// the single value, if any, under ``NotificationBridge/dataKey``.
    ///
    /// What the notification cannot hold (a payload value under ``NotificationBridge/dataKey``
    /// when the event has data too, values a forwarding bridge did not carry into the event) is
    /// reported after the post as a ``NotificationPostingError``: the bridge's listener throws
    /// it, so it reaches the center's ``EventCenter/errorHandler``.
    ///
    /// - Parameters:
    ///   - name: The event name to publish.
    ///   - notificationCenter: Where to post. Defaults to `NotificationCenter.default`.
    ///   - notificationName: The notification name to post; defaults to the event name's string.
    ///   - sender: When given, only events dispatched from this object are posted.
    ///   - priority: The bridge's place among the name's listeners.
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    public func postNotifications(
        for name: EventName,
        to notificationCenter: NotificationCenter = .default,
        as notificationName: Notification.Name? = nil,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Subscription {
        let notificationName = notificationName ?? Notification.Name(name.rawValue)
        let crossing = BridgeCrossing(
            center: ObjectIdentifier(self), notificationCenter: ObjectIdentifier(notificationCenter),
            name: notificationName.rawValue, direction: .posting)
        return listen(to: name, from: sender, priority: priority, file: file, line: line) { event in
            var leftOut: NotificationPostingError?
            crossing.perform {
                var userInfo: [AnyHashable: Any] = [:]
                var uncarried: [String: String] = [:]
                for (key, entry) in event.payload.entries {
                    switch entry {
                    case .value(let value): userInfo[key] = value
                    case .unbridged(let typeName, _): uncarried[key] = typeName
                    }
                }
                var replaced: String?
                var uncarriedData: String?
                switch event.data {
                case .value(let value)?:
                    replaced = userInfo.updateValue(value, forKey: NotificationBridge.dataKey).map {
                        String(describing: type(of: $0))
                    }
                case .unbridged(let typeName, _)?: uncarriedData = typeName
                case nil: break
                }
                notificationCenter.post(
                    name: notificationName, object: event.sender?.object, userInfo: userInfo.isEmpty ? nil : userInfo)
                let report = NotificationPostingError(
                    eventName: event.name, notificationName: notificationName, payloadValueReplacedByData: replaced,
                    uncarriedValues: uncarried, uncarriedData: uncarriedData)
                if !report.isEmpty { leftOut = report }
            }
            // After the post, so that what could be posted was: the report goes to the center's
            // error handler as this listener's failure.
            if let leftOut { throw leftOut }
        }
    }
}

extension EventName {
    /// The name of the notification with this name's string.
    public init(_ notificationName: Notification.Name) {
        self.init(notificationName.rawValue)
    }

    /// The `Notification.Name` with this name's string.
    public var notificationName: Notification.Name {
        Notification.Name(rawValue)
    }
}
