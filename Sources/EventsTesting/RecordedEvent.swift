public import Events
import Synchronization

/// One event an ``EventRecorder`` recorded: the event, who sent it, and where it came in the
/// order of everything recorded.
///
/// ```swift
/// let recorder = EventRecorder(of: PostWritten.self, in: center)
/// center.dispatch(PostWritten(title: "Hi"), from: editor)
/// let first = try await recorder.nextRecord()
/// #expect(first.event.title == "Hi")
/// #expect(first.wasSent(by: editor))
/// ```
///
/// Rules:
/// - ``index`` counts the events of one recorder from 0, in the order they were recorded.
/// - ``sequence`` orders the events of every recorder in the process: of two records, from
///   any recorders, the one with the smaller sequence was recorded first. Use it to check the
///   order of events of different types or names.
/// - The sender is not retained: the record keeps its identity and type name only, so a
///   recorder never extends an object's life. (A `NamedEvent` carries its own sender, as
///   every listener sees it.)
public struct RecordedEvent<E: Event>: Sendable, CustomStringConvertible {
    /// The event as the recorder's listener received it.
    public let event: E
    /// The position of the event among those of its recorder, from 0.
    public let index: Int
    /// The position of the event among those of every recorder in the process.
    public let sequence: Int
    /// The object that dispatched the event (its `from:`), or nil when it had none.
    public let sender: RecordedSender?

    init(event: E, index: Int, sequence: Int, sender: RecordedSender?) {
        self.event = event
        self.index = index
        self.sequence = sequence
        self.sender = sender
    }

    /// Whether the event was dispatched `from:` exactly `object` (identity).
    ///
    /// An object that died after sending can share its address with a later one: compare with
    /// an object that is still alive, as the sender of the event usually is in a test.
    public func wasSent(by object: AnyObject) -> Bool {
        sender?.id == ObjectIdentifier(object)
    }

    /// `#index event`, then ` from Type@address` when it had a sender.
    public var description: String {
        let from = sender.map { " from \($0)" } ?? ""
        return "#\(index) \(event)\(from)"
    }
}

extension RecordedEvent: Equatable where E: Equatable {}

/// Who dispatched a recorded event, kept without retaining it: its identity and type name.
public struct RecordedSender: Sendable, Hashable, CustomStringConvertible {
    /// The identity of the sending object.
    public let id: ObjectIdentifier
    /// The name of the sending object's dynamic type, as `String(describing:)` spells it.
    public let typeName: String

    init(_ sender: Sender) {
        self.id = sender.id
        self.typeName = String(describing: sender.type)
    }

    /// Whether this is the identity of `object`.
    public func isIdentical(to object: AnyObject) -> Bool {
        id == ObjectIdentifier(object)
    }

    /// `Type@0xaddress`, as `Sender` spells it.
    public var description: String {
        "\(typeName)@0x\(String(UInt(bitPattern: id), radix: 16))"
    }
}

/// The process-wide order of recorded events, shared by every recorder.
let recordingSequence = Atomic<Int>(0)
