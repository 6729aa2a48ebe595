// Named events ride on the same registry and dispatch loop as typed events. Listeners of a name
// live in the list of `.name(rawValue)`, listeners of every name in the list of `.anyName`; every
// record in both is a `TypedListenerRecord<NamedEvent>`, so `deliver` can walk a merge of the two.
// Owners, keys, duplicate detection, `once`, sender filters and removal all work per list key,
// exactly as for event types: the nine rules of `EventCenter` hold with "event type" read as
// "event name". For rule 9, a dispatch by name looks at two lists: its name's and every name's.

extension EventCenter {
    // MARK: Listening to a name

    /// Calls `handler` with every event dispatched under `name`, until the returned subscription
    /// is cancelled or deinitialized.
    ///
    /// ```swift
    /// let subscription = center.listen(to: .rectangleCreated) { event in
    ///     print(event.name, "from", event.sender?.description ?? "nobody")
    /// }
    /// center.dispatch(.rectangleCreated, from: plane)
    /// ```
    ///
    /// The rules of typed listeners apply (see ``EventCenter``): the handler runs synchronously
    /// on the dispatching thread, higher priority first, ties in registration order; listeners of
    /// every name (`listenToAllNames`) take part in that order.
    ///
    /// - Parameters:
    ///   - name: The name to hear; only events dispatched under exactly this name arrive.
    ///   - delivery: Where the handler runs; see ``Delivery``. Defaults to the dispatching thread.
    ///   - sender: When given, only events dispatched `from:` this very object are heard (like the
    ///     `object:` of `NotificationCenter.addObserver`). Held weakly; once it deinitializes the
    ///     listener ends.
    ///   - priority: Higher runs earlier; ties run in registration order. Defaults to 0.
    ///   - once: When true, the listener ends after its first event (even under concurrent dispatch).
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    ///   - handler: Receives each event.
    public func listen(
        to name: EventName,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (NamedEvent) throws -> Void
    ) -> Subscription {
        registerNamed(
            .name(name.rawValue), owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery.kind
        ) { _, event in try handler(event) }
    }

    /// Calls `handler` with every event dispatched under `name` for as long as `owner` lives.
    ///
    /// The owner is held weakly and handed to the handler, so nothing needs capturing:
    ///
    /// ```swift
    /// center.listen(to: .rectangleCreated, owner: self) { controller, event in
    ///     controller.addView(for: event)
    /// }
    /// ```
    ///
    /// The listener ends when the owner deinitializes, when the returned subscription is
    /// cancelled, or on ``remove(_:)``, `remove(_:for:)` with the name, and their keyed variants.
    /// Dropping the subscription does not end it.
    ///
    /// With a `key`, a registration with the same owner, key, name and sender as a live one is
    /// ignored and returns the existing subscription, so it is safe from code that runs
    /// repeatedly (a `viewWillAppear`, for example):
    ///
    /// ```swift
    /// center.listen(to: .rectangleCreated, owner: self, key: "canvas") { controller, event in ... }
    /// center.listen(to: .rectangleCreated, owner: self, key: "canvas") { controller, event in ... }
    /// // still one listener
    /// center.remove(self, key: "canvas", for: .rectangleCreated)
    /// ```
    @discardableResult
    public func listen<Owner: AnyObject & Sendable>(
        to name: EventName,
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, NamedEvent) throws -> Void
    ) -> Subscription {
        registerNamedOwned(
            .name(name.rawValue), owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority,
            once: once, callSite: CallSite(fileID: file, line: line), delivery: delivery.kind, handler: handler)
    }

    // MARK: Listening to every name

    /// Calls `handler` with every named event, whatever its name, until the returned subscription
    /// is cancelled or deinitialized: what `NotificationCenter` does for an observer with a nil
    /// name. Useful for logging and for forwarding names elsewhere.
    ///
    /// ```swift
    /// let log = center.listenToAllNames { event in print("event:", event.name) }
    /// ```
    ///
    /// Rules:
    /// - A dispatch under any name reaches these listeners too, merged with the listeners of that
    ///   name into one order: higher priority first, ties in registration order across both.
    /// - They hear named events only, never typed events.
    /// - `from:`, `priority` and `once` work as for one name; a `once` listener hears one event
    ///   in total.
    public func listenToAllNames(
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (NamedEvent) throws -> Void
    ) -> Subscription {
        registerNamed(
            .anyName, owner: nil, key: nil, sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery.kind
        ) { _, event in try handler(event) }
    }

    /// Calls `handler` with every named event for as long as `owner` lives.
    ///
    /// With a `key`, a repeated registration with the same owner, key and sender is ignored.
    /// End it early with ``removeListenersToAllNames(of:)`` or ``remove(_:)``.
    @discardableResult
    public func listenToAllNames<Owner: AnyObject & Sendable>(
        owner: Owner,
        key: some Hashable & Sendable = Never?.none,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, NamedEvent) throws -> Void
    ) -> Subscription {
        registerNamedOwned(
            .anyName, owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), delivery: delivery.kind, handler: handler)
    }

    /// Registers an owner-bound `NamedEvent` listener under `eventKey`. A function of its own,
    /// generic over the owner alone, so that the wrapper closure it builds, called on every
    /// delivery, does not carry the generic context of the caller's key.
    private func registerNamedOwned<Owner: AnyObject & Sendable>(
        _ eventKey: EventKey, owner: Owner, key: ListenerKey?, sender: AnyObject?, priority: Priority, once: Bool,
        callSite: CallSite, delivery: Delivery.Kind, handler: @escaping @Sendable (Owner, NamedEvent) throws -> Void
    ) -> Subscription {
        registerNamed(
            eventKey, owner: owner, key: key, sender: sender, priority: priority, once: once, callSite: callSite,
            delivery: delivery
        ) { owner, event in
            // Unchecked: a checked cast is a runtime call for every such listener of every
            // dispatch. Safe because the owner handed to a handler is the one loaded from the
            // listener's own record (by the dispatch loop, or when a queued delivery's turn
            // comes), which holds the `Owner` given at registration, and it is handed on only
            // when it is not nil.
            try handler(unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self), event)
        }
    }

    /// Registers a `NamedEvent` listener under `eventKey` (a name, or every name).
    private func registerNamed(
        _ eventKey: EventKey,
        owner: (any AnyObject & Sendable)?,
        key: ListenerKey?,
        sender: AnyObject?,
        priority: Priority,
        once: Bool,
        callSite: CallSite,
        delivery: Delivery.Kind,
        handler: @escaping @Sendable (AnyObject?, NamedEvent) throws -> Void
    ) -> Subscription {
        register(
            NamedEvent.self, eventKey: eventKey, owner: owner, key: key, sender: sender, priority: priority,
            once: once, callSite: callSite, delivery: delivery
        ) { owner, event, _ in try handler(owner, event) }
    }

    // MARK: Dispatching by name

    /// Delivers an event named `name` to the listeners of that name and of every name,
    /// synchronously on this thread, and returns how many received it.
    ///
    /// ```swift
    /// center.dispatch(.postWritten, from: self)                      // no data
    /// center.dispatch(.postWritten, from: self, data: post)          // one value
    /// center.dispatch(.opacityChanged, from: self, payload: Payload(.uniqueID, id).setting(.opacity, to: 0.5))
    /// ```
    ///
    /// - Parameters:
    ///   - name: The event's name.
    ///   - sender: The object dispatching it, if any (`NotificationCenter`'s `object`): listeners
    ///     registered `from:` another object do not hear it, and every listener can read it as
    ///     ``NamedEvent/sender``.
    ///   - data: One value, read with ``NamedEvent/data(as:)``.
    ///   - payload: Keyed values, read with a ``PayloadKey``.
    ///   - file: The file of the call, recorded by diagnostics; leave the default.
    ///   - line: The line of the call, likewise.
    /// - Returns: The number of handlers that were called (nested dispatches not included).
    @discardableResult
    public func dispatch(
        _ name: EventName,
        from sender: AnyObject? = nil,
        data: (any Sendable)? = nil,
        payload: Payload = Payload(),
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Int {
        dispatchNamed(
            name, from: sender, data: data.map { .value($0) }, payload: payload,
            callSite: CallSite(fileID: file, line: line))
    }

    /// Dispatches a copy of `event` (its name, data and payload) from `sender`: to pass a named
    /// event on, to another center for example.
    ///
    /// ```swift
    /// let relay = center.listenToAllNames { event in archive.dispatch(event) }
    /// ```
    ///
    /// The new event's sender is `sender`, not the original one: the original sender is not
    /// handed out by ``Sender``, so it cannot be dispatched again.
    @discardableResult
    public func dispatch(
        _ event: NamedEvent, from sender: AnyObject? = nil, file: StaticString = #fileID, line: UInt = #line
    ) -> Int {
        dispatchNamed(
            event.name, from: sender, data: event.data, payload: event.payload,
            callSite: CallSite(fileID: file, line: line))
    }

    /// Dispatches an event named `name` and returns once every listener, in every context, has
    /// finished with it; as `dispatchAndWait(_:from:)` does for typed events.
    ///
    /// ```swift
    /// let report = await center.dispatchAndWait(.rectangleCreated, from: plane)
    /// ```
    @discardableResult
    public func dispatchAndWait(
        _ name: EventName,
        from sender: AnyObject? = nil,
        data: (any Sendable)? = nil,
        payload: Payload = Payload(),
        isolation: isolated (any Actor)? = #isolation
    ) async -> DispatchReport {
        let collector = ReportCollector()
        dispatch(name, from: sender, data: data, payload: payload, reportingTo: collector)
        return await collector.wait()
    }

    /// Dispatches an event named `name`, reporting every handler's outcome to `collector`.
    func dispatch(
        _ name: EventName, from sender: AnyObject?, data: (any Sendable)?, payload: Payload,
        reportingTo collector: ReportCollector
    ) {
        let listeners = registry.namedSnapshot(for: name)
        guard listeners != nil || isObserved else { return }
        let event = NamedEvent(
            name: name, sender: sender.map(Sender.init), data: data.map { .value($0) }, payload: payload)
        if isObserved {
            _ = observedDispatch(event, to: listeners, from: sender, callSite: nil, collector: collector)
        } else if let listeners {
            _ = deliver(event, to: listeners, from: sender, collector: collector)
        }
    }

    @discardableResult
    func dispatchNamed(
        _ name: EventName, from sender: AnyObject?, data: Payload.Entry?, payload: Payload, callSite: CallSite? = nil
    ) -> Int {
        let listeners = registry.namedSnapshot(for: name)
        if isObserved {
            let event = NamedEvent(name: name, sender: sender.map(Sender.init), data: data, payload: payload)
            return observedDispatch(event, to: listeners, from: sender, callSite: callSite).delivered
        }
        guard let listeners else { return 0 }
        let event = NamedEvent(name: name, sender: sender.map(Sender.init), data: data, payload: payload)
        return deliver(event, to: listeners, from: sender)
    }

    // MARK: Removing

    /// Ends the listeners that `owner` registered for `name`, whatever their key. Its listeners of
    /// every name and of other names stay.
    public func remove(_ owner: AnyObject, for name: EventName) {
        removeListeners(of: owner, in: .name(name.rawValue)) { _ in true }
    }

    /// Ends the listener that `owner` registered with `key` for `name`.
    public func remove(_ owner: AnyObject, key: some Hashable & Sendable, for name: EventName) {
        let key = ListenerKey(key)
        removeListeners(of: owner, in: .name(name.rawValue)) { $0.key == key }
    }

    /// Ends the listeners to every name (`listenToAllNames(owner:)`) that `owner` registered,
    /// whatever their key. Its listeners of single names stay.
    ///
    /// ```swift
    /// center.listenToAllNames(owner: self) { logger, event in logger.record(event) }
    /// center.removeListenersToAllNames(of: self)
    /// ```
    public func removeListenersToAllNames(of owner: AnyObject) {
        removeListeners(of: owner, in: .anyName) { _ in true }
    }

    /// Ends the listener to every name that `owner` registered with `key`; its other listeners
    /// stay.
    public func removeListenersToAllNames(of owner: AnyObject, key: some Hashable & Sendable) {
        let key = ListenerKey(key)
        removeListeners(of: owner, in: .anyName) { $0.key == key }
    }

    /// Ends the listeners to every name that `owner` registered, whatever their key.
    @available(*, deprecated, renamed: "removeListenersToAllNames(of:)")
    public func removeAllNamesListeners(of owner: AnyObject) {
        removeListenersToAllNames(of: owner)
    }

    /// Ends the listener to every name that `owner` registered with `key`.
    @available(*, deprecated, renamed: "removeListenersToAllNames(of:key:)")
    public func removeAllNamesListeners(of owner: AnyObject, key: some Hashable & Sendable) {
        removeListenersToAllNames(of: owner, key: key)
    }

    // MARK: Inspecting

    /// How many listeners would currently receive an event named `name` from some sender: the
    /// listeners of that name plus the listeners of every name.
    public func listenerCount(for name: EventName) -> Int {
        liveListenerCount(for: .name(name.rawValue)) + liveListenerCount(for: .anyName)
    }

    /// Whether any listener would currently receive an event named `name`.
    public func hasListeners(for name: EventName) -> Bool {
        listenerCount(for: name) > 0
    }

    /// How many listeners of every name are currently registered.
    public var allNamesListenerCount: Int {
        liveListenerCount(for: .anyName)
    }
}

extension Registry {
    /// The listeners of `name` and of every name, merged into delivery order (higher priority
    /// first, ties by ascending sequence, which is registration order across both lists), or nil
    /// when there are none. Each list is snapshotted atomically; they are read one after the
    /// other, which is indistinguishable from a registration that raced with the dispatch.
    func namedSnapshot(for name: EventName) -> ContiguousArray<ListenerRecord>? {
        let ofName = snapshot(for: .name(name.rawValue))
        guard let ofAll = snapshot(for: .anyName) else { return ofName }
        guard let ofName else { return ofAll }
        var merged = ContiguousArray<ListenerRecord>()
        merged.reserveCapacity(ofName.count + ofAll.count)
        var i = ofName.startIndex
        var j = ofAll.startIndex
        while i < ofName.endIndex, j < ofAll.endIndex {
            let a = ofName[i]
            let b = ofAll[j]
            if a.priority > b.priority || (a.priority == b.priority && a.sequence < b.sequence) {
                merged.append(a)
                i += 1
            } else {
                merged.append(b)
                j += 1
            }
        }
        merged.append(contentsOf: ofName[i...])
        merged.append(contentsOf: ofAll[j...])
        return merged
    }
}
