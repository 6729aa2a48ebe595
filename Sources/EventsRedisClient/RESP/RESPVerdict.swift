/// A reply reduced to whether the command was carried out: for callers that read nothing else
/// from it (an `XADD`'s new entry id, a `PUBLISH`'s count of receivers).
package enum RESPVerdict: Sendable, Hashable {
    case accepted
    /// An integer reply, with its value (a `WAIT`'s count of replicas, say): accepted too.
    case counted(Int)
    /// An error reply, with its text.
    case refused(String)

    init(_ reply: RESPValue) {
        switch reply {
        case .error(let text): self = .refused(text)
        case .integer(let value): self = .counted(value)
        default: self = .accepted
        }
    }

    /// The verdict of one complete, validated reply given as its RESP bytes: an error reply
    /// starts with `-` and ends with CRLF.
    init(reply bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.first == UInt8(ascii: ":"), bytes.count >= 3,
            let value = Int(String(decoding: UnsafeBufferPointer(rebasing: bytes[1..<bytes.count - 2]), as: UTF8.self))
        {
            self = .counted(value)
            return
        }
        guard bytes.first == UInt8(ascii: "-"), bytes.count >= 3 else {
            self = .accepted
            return
        }
        self = .refused(String(decoding: UnsafeBufferPointer(rebasing: bytes[1..<bytes.count - 2]), as: UTF8.self))
    }
}
