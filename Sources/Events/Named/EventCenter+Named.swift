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
    /// every name (`listen(to: NamedEvent.self)`) take part in that order.
    ///
    /// - Parameters:
    ///   - name: The name to hear; only events dispatched under exactly this name arrive.
    ///   - delivery: Where the handler runs; see ``Delivery``. Defaults to the dispatching thread.
    ///   - sender: When given, only events dispatched `from:` this very object are heard (like the
    ///     `object:` of `NotificationCenter.addObserver`). Held weakly; once it deinitializes the
    ///     listener ends.
    ///   - priority: Higher runs earlier; ties run in registration order. Defaults to 0.
    ///   - once: When true, the listener ends after its first event (even under concurrent dispatch).
    ///   - receivingCurrent: When true, the listener first receives the name's current values
    ///     (kept by `dispatch(_:keepingCurrent:)`) in its own context,
    ///     before any newer event. A listener of every name receives those of every name.
    ///   - coalescing: Merges bursts of events into fewer deliveries; see ``Coalescing``. Needs
    ///     another context than the posting thread: with `on: .postingThread` (the default) and
    ///     a non-nil value the program stops with a precondition failure, so pass
    ///     `on: .background`, `.queue(_:)` or `.operationQueue(_:)`. Defaults to nil.
    ///   - file: The call site, recorded for diagnostics. Leave the default.
    ///   - line: The call site, recorded for diagnostics. Leave the default.
    ///   - handler: Receives each event.
    public func listen(
        to name: EventName,
        on delivery: Delivery = .postingThread,
        from sender: AnyObject? = nil,
        priority: Priority = .default,
        once: Bool = false,
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (NamedEvent) throws -> Void
    ) -> Subscription {
        let options = ListenerOptions(
            sender: sender, priority: priority, once: once, callSite: CallSite(fileID: file, line: line),
            receivingCurrent: receivingCurrent, coalescing: coalescing)
        return registerEvents(
            NamedEvent.self, eventKey: .name(name.rawValue), options: options, place: .delivery(delivery.kind)
        ) { _, event, _ in try handler(event) }
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
        receivingCurrent: Bool = false,
        coalescing: Coalescing? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, NamedEvent) throws -> Void
    ) -> Subscription {
        let options = ListenerOptions(
            owner: owner, key: ListenerKey.given(key), sender: sender, priority: priority, once: once,
            callSite: CallSite(fileID: file, line: line), receivingCurrent: receivingCurrent, coalescing: coalescing)
        return registerEvents(
            NamedEvent.self, eventKey: .name(name.rawValue), options: options, place: .delivery(delivery.kind)
        ) { owner, event, _ in try handler(Self.typedOwner(owner, as: Owner.self), event) }
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
    ///   - scope: When given, the event becomes the current value of its name
    ///     (``CurrentValueScope``), for listeners that register later with `receivingCurrent: true`.
    ///   - hold: When given and no listener receives the event, it is held for the first listener
    ///     that registers (``EventHold``). Pass one of `scope` and `hold` at most.
    ///   - file: The file of the call, recorded by diagnostics; leave the default.
    ///   - line: The line of the call, likewise.
    /// - Returns: The number of handlers that were called (nested dispatches not included).
    @discardableResult
    public func dispatch(
        _ name: EventName,
        from sender: AnyObject? = nil,
        data: (any Sendable)? = nil,
        payload: Payload = Payload(),
        keepingCurrent scope: CurrentValueScope? = nil,
        holdingIfUnheard hold: EventHold? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> Int {
        dispatchNamed(
            name, from: sender, data: data.map { .value($0) }, payload: payload, keepingCurrent: scope,
            holdingIfUnheard: hold, callSite: CallSite(fileID: file, line: line))
    }

    /// `dispatch(name)` with its options: keeping the event as the current value, or holding it
    /// until heard.
    func dispatchNamed(
        _ name: EventName, from sender: AnyObject?, data: Payload.Entry?, payload: Payload,
        keepingCurrent scope: CurrentValueScope?, holdingIfUnheard hold: EventHold?, callSite: CallSite
    ) -> Int {
        precondition(scope == nil || hold == nil, Self.keepOrHold)
        if let scope {
            return dispatchNamed(
                name, from: sender, data: data, payload: payload, keepingCurrent: scope, callSite: callSite)
        }
        if let hold {
            return dispatchNamed(
                name, from: sender, data: data, payload: payload, holdingIfUnheard: hold, callSite: callSite)
        }
        return dispatchNamed(name, from: sender, data: data, payload: payload, callSite: callSite)
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
        dispatch(name, from: sender, data: data.map { .value($0) }, payload: payload, reportingTo: collector)
        return await collector.wait()
    }

    /// Dispatches an event named `name`, reporting every handler's outcome to `collector`.
    func dispatch(
        _ name: EventName, from sender: AnyObject?, data: Payload.Entry?, payload: Payload,
        reportingTo collector: ReportCollector
    ) {
        let listeners = registry.namedSnapshot(for: name)
        guard listeners != nil || needsSlowDispatch else { return }
        let event = NamedEvent(name: name, sender: sender.map(Sender.init), data: data, payload: payload)
        if needsSlowDispatch {
            _ = slowDispatch(event, to: listeners, from: sender, callSite: nil, collector: collector)
        } else if let listeners {
            _ = deliver(event, to: listeners, from: sender, collector: collector)
        }
    }

    @discardableResult
    func dispatchNamed(
        _ name: EventName, from sender: AnyObject?, data: Payload.Entry?, payload: Payload, callSite: CallSite? = nil
    ) -> Int {
        let listeners = registry.namedSnapshot(for: name)
        if needsSlowDispatch {
            let event = NamedEvent(name: name, sender: sender.map(Sender.init), data: data, payload: payload)
            return slowDispatch(event, to: listeners, from: sender, callSite: callSite).delivered
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
