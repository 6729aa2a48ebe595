import CEventsRedisOpenSSL
import EventsRedisClient
import Foundation

/// OpenSSL's view of the transport's socket: a BIO that reads with `recv` and writes with `send`.
///
/// OpenSSL's own socket BIO writes with `write(2)`, which raises SIGPIPE when the server has
/// hung up, and Linux has no per-socket way to turn that off; this one writes with the client's
/// `SocketShim.sendWithoutSIGPIPE`, which passes `MSG_NOSIGNAL` (on Darwin the socket carries `SO_NOSIGPIPE`).
/// It never blocks: when the socket would block it says "retry", OpenSSL reports
/// `SSL_ERROR_WANT_READ` or `SSL_ERROR_WANT_WRITE`, and the transport waits in `poll()` with its
/// deadline. The descriptor belongs to the transport's socket; the BIO never closes it.
enum SocketBIO {
    /// A BIO over `descriptor`, or `nil` when OpenSSL cannot allocate one.
    static func make(descriptor: Int32) -> OpaquePointer? {
        guard let method = method.pointer, let bio = BIO_new(method) else { return nil }
        // The descriptor is kept in the data pointer, offset by one so that 0 is not nil.
        BIO_set_data(bio, UnsafeMutableRawPointer(bitPattern: Int(descriptor) + 1))
        BIO_set_init(bio, 1)
        return bio
    }

    private static let method = Method()

    /// The BIO method table, made once per process.
    // @unchecked Sendable: `pointer` is written once, in `init`, before the value is shared
    // (the `static let` initializer runs once, guarded by the runtime), and OpenSSL only reads
    // a method table afterwards.
    private struct Method: @unchecked Sendable {
        let pointer: OpaquePointer?

        init() {
            let type = BIO_get_new_index() | Int32(BIO_TYPE_SOURCE_SINK)
            guard let method = BIO_meth_new(type, "EventsRedis socket") else {
                pointer = nil
                return
            }
            BIO_meth_set_write_ex(method, socketWrite)
            BIO_meth_set_read_ex(method, socketRead)
            BIO_meth_set_ctrl(method, socketControl)
            pointer = method
        }
    }
}

private let retryFlags = Int32(BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY)

private func descriptor(of bio: OpaquePointer) -> Int32 {
    Int32(Int(bitPattern: BIO_get_data(bio)) - 1)
}

private func wouldBlock(_ code: Int32) -> Bool {
    code == EAGAIN || code == EWOULDBLOCK
}

private func socketWrite(
    _ bio: OpaquePointer?, _ bytes: UnsafePointer<CChar>?, _ count: Int, _ written: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let bio, let bytes, let written else { return 0 }
    BIO_clear_flags(bio, retryFlags)
    while true {
        let sent = SocketShim.sendWithoutSIGPIPE(descriptor(of: bio), bytes, count)
        if sent >= 0 {
            written.pointee = sent
            return 1
        }
        let code = errno
        if code == EINTR { continue }
        if wouldBlock(code) { BIO_set_flags(bio, Int32(BIO_FLAGS_WRITE | BIO_FLAGS_SHOULD_RETRY)) }
        return 0
    }
}

private func socketRead(
    _ bio: OpaquePointer?, _ bytes: UnsafeMutablePointer<CChar>?, _ count: Int, _ read: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let bio, let bytes, let read else { return 0 }
    BIO_clear_flags(bio, retryFlags)
    while true {
        let received = recv(descriptor(of: bio), bytes, count, 0)
        if received > 0 {
            read.pointee = received
            return 1
        }
        if received == 0 { return 0 }  // the server closed: no retry, OpenSSL reports the end
        let code = errno
        if code == EINTR { continue }
        if wouldBlock(code) { BIO_set_flags(bio, Int32(BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)) }
        return 0
    }
}

/// Nothing is buffered in the BIO, so a flush always succeeds; every other control is unsupported.
private func socketControl(_ bio: OpaquePointer?, _ command: Int32, _ number: Int, _ pointer: UnsafeMutableRawPointer?)
    -> Int
{
    command == BIO_CTRL_FLUSH ? 1 : 0
}
