import Foundation
import RedisServerSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-connection TCP server that plays a misbehaving Redis: it accepts one client, answers
/// each of its requests (each read of request bytes) with the next of `replies`, and then
/// either closes the connection or holds it open until the client hangs up.
package final class FakeRedisServer: Sendable {
    package let port: Int
    private let listener: Int32
    private let finished = DispatchSemaphore(value: 0)

    package init(replies: [[UInt8]], thenClose: Bool) throws {
        let (listener, port) = try TestSocket.listen()
        self.listener = listener
        self.port = port
        let finished = finished
        Thread.detachNewThread {
            defer { finished.signal() }
            guard let client = TestSocket.acceptClient(listener, milliseconds: 5_000) else { return }
            defer { TestSocket.closeDescriptor(client) }
            var request = [UInt8](repeating: 0, count: 4096)
            for reply in replies {
                guard TestSocket.waitReadable(client, milliseconds: 5_000) else { return }
                _ = request.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                TestSocket.writeAll(client, reply)
            }
            if !thenClose {
                // Hold the connection open until the client hangs up (or 5 s pass).
                _ = TestSocket.waitReadable(client, milliseconds: 5_000)
            }
        }
    }

    deinit {
        TestSocket.closeDescriptor(listener)
        _ = finished.wait(timeout: .now() + 6)
    }
}
