import Foundation

/// The observed dispatches running on one thread, innermost last: what nesting depth, a
/// trace's parent and the topology's "this listener dispatched that event" are read from.
/// Only observed dispatches (diagnostics on, or a tracer installed) push frames.
final class DispatchFrames {
    struct Frame {
        let dispatchID: UInt64
        /// The listener whose handler runs right now in this dispatch, if any.
        var listener: ListenerRecord?
        /// The center that owns the dispatch: frames of another center on the same thread are
        /// not this one's parents.
        let center: ObjectIdentifier
        /// A queued delivery running in its context rather than a dispatch: it names the
        /// listener that dispatches from inside it, but is no level of nesting.
        var isQueuedDelivery = false
    }

    // Unchecked exclusivity: an observed dispatch touches these several times per listener,
    // and the runtime's check of each access (a lookup in a thread-local set) was a tenth of a
    // traced dispatch's instructions. It cannot find a conflict here: the object belongs to one
    // thread (it lives in that thread's specific storage), and every access is one read, write,
    // append or removal that calls no code that could reach the object again.
    @exclusivity(unchecked) var frames: [Frame] = []
    /// Set by a main-actor delivery that ran inline in the dispatch, read by the dispatch loop.
    @exclusivity(unchecked) var ranInline = false
    /// Set when a handler's error is reported, read by the observed dispatch loop.
    @exclusivity(unchecked) var failed = false
    /// The listener-trace array of this thread's last traced dispatch, kept for the next one
    /// to fill again. A tracer that lets its trace go leaves it uniquely referenced, so
    /// emptying it keeps its storage; one that keeps the trace keeps the array, and the next
    /// dispatch starts a new one.
    @exclusivity(unchecked) private var spareTraces: [ListenerTrace] = []

    /// An empty array with room for `count` traces, to collect a traced dispatch's listener
    /// traces in. A nested dispatch finds the spare taken and starts its own.
    func takeTraceBuffer(reserving count: Int) -> [ListenerTrace] {
        var buffer: [ListenerTrace] = []
        swap(&buffer, &spareTraces)
        // `removeAll(keepingCapacity:)` rather than popping each trace: when a tracer kept the
        // last trace, the array is shared, and popping would first copy every trace in it;
        // this empties an unshared array in place and replaces a shared one with new storage.
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(count)
        return buffer
    }

    /// Keeps a finished dispatch's trace array for the next one, unless it is large: a thread
    /// that once traced a dispatch to thousands of listeners should not hold their room forever.
    func returnTraceBuffer(_ buffer: consuming [ListenerTrace]) {
        if buffer.capacity <= Self.spareTraceCapacity { spareTraces = buffer }
    }

    private static let spareTraceCapacity = 64

    /// This thread's frames, created on first use and freed when the thread exits.
    static var current: DispatchFrames {
        let key = threadKey
        if let existing = pthread_getspecific(key) {
            return Unmanaged<DispatchFrames>.fromOpaque(existing).takeUnretainedValue()
        }
        let created = DispatchFrames()
        pthread_setspecific(key, Unmanaged.passRetained(created).toOpaque())
        return created
    }

    /// The innermost frame of `center` on this thread.
    func innermost(of center: ObjectIdentifier) -> Frame? {
        frames.last { $0.center == center }
    }

    func depth(in center: ObjectIdentifier) -> Int {
        frames.count { $0.center == center && !$0.isQueuedDelivery }
    }

    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        // The destructor's parameter is optional on some platforms and not on others: a
        // function taking an optional accepts both.
        let status = pthread_key_create(&key) { pointer in release(pointer) }
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// Frees a thread's frames when the thread exits.
    private static func release(_ pointer: UnsafeMutableRawPointer?) {
        if let pointer { Unmanaged<DispatchFrames>.fromOpaque(pointer).release() }
    }
}
