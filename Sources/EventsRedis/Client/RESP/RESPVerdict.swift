/// A reply reduced to whether the command was carried out: for callers that read nothing else
/// from it (an `XADD`'s new entry id, a `PUBLISH`'s count of receivers).
enum RESPVerdict: Sendable, Hashable {
    case accepted
    /// An error reply, with its text.
    case refused(String)

    init(_ reply: RESPValue) {
        if case .error(let text) = reply { self = .refused(text) } else { self = .accepted }
    }

    /// The verdict of one complete, validated reply given as its RESP bytes: an error reply
    /// starts with `-` and ends with CRLF.
    init(reply bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.first == UInt8(ascii: "-"), bytes.count >= 3 else {
            self = .accepted
            return
        }
        self = .refused(String(decoding: UnsafeBufferPointer(rebasing: bytes[1..<bytes.count - 2]), as: UTF8.self))
    }
}
