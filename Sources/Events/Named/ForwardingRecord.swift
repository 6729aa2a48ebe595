import Foundation

/// A `NotificationCenter` observer registration, removed by the bridge's subscription.
final class FoundationObserver: @unchecked Sendable {
    // Why @unchecked is safe: both properties are immutable, and `token` is only ever handed to
    // `NotificationCenter.removeObserver(_:)`, which is safe from any thread.
    private let token: any NSObjectProtocol
    private let notificationCenter: NotificationCenter

    init(token: any NSObjectProtocol, notificationCenter: NotificationCenter) {
        self.token = token
        self.notificationCenter = notificationCenter
    }

    func remove() {
        notificationCenter.removeObserver(token)
    }
}

/// The listener record of a forwarding bridge: besides its handler it owns the Foundation
/// observer, and removes it when the bridge's subscription is cancelled.
final class ForwardingRecord: TypedListenerRecord<NotificationForwarding>, @unchecked Sendable {
    // Why @unchecked is safe: `handler` is immutable; `observer` is only touched inside `lock`,
    // and removing the observer happens outside it.
    let handler: @Sendable (AnyObject?, NotificationForwarding, Sender?) throws -> Void
    private let lock = Lock()
    private var observer: FoundationObserver?
    private var cancelled = false

    init(
        registry: Registry, callSite: CallSite,
        handler: @escaping @Sendable (AnyObject?, NotificationForwarding, Sender?) throws -> Void
    ) {
        self.handler = handler
        super.init(
            registry: registry, shape: ListenerRecord.Shape.general.withCancelHook, once: false, callSite: callSite,
            details: nil)
    }

    override func invoke(_ owner: AnyObject?, _ event: NotificationForwarding, _ sender: Sender?) throws {
        try handler(owner, event, sender)
    }

    /// Hands the record its observer; removes it at once if the bridge was already cancelled.
    func attach(_ observer: FoundationObserver) {
        let removeNow: Bool = lock.withLock {
            if cancelled { return true }
            self.observer = observer
            return false
        }
        if removeNow { observer.remove() }
    }

    override func didCancel() {
        let observer: FoundationObserver? = lock.withLock {
            cancelled = true
            defer { self.observer = nil }
            return self.observer
        }
        observer?.remove()
    }
}
