import CEventsRedisOpenSSL
import EventsRedisClient
import Foundation

/// TLS over the client's non-blocking socket, with OpenSSL: the transport of
/// ``EventsRedisClient/RedisTransportFactory/tls``.
///
/// OpenSSL never blocks here: `SSL_connect`, `SSL_read` and `SSL_write` run over a socket BIO
/// that says "retry" when the socket would block, and the transport then waits in the socket's
/// `poll()` for readability or writability (as OpenSSL asks) until the call's deadline. So every
/// wait keeps its deadline, and ``interruption`` (a `shutdown(2)` of the socket) wakes a blocked
/// read at once, as it does for plain TCP.
///
/// Not thread-safe: one owner at a time, as ``EventsRedis/RedisTransport`` requires.
final class RedisTLSTransport: RedisTransport {
    private let socket: RedisSocket
    private var ssl: OpaquePointer?
    private let host: String
    private let port: Int
    /// Whether application data has arrived: until then a TLS error is the server refusing the
    /// connection (in TLS 1.3 a server rejects a client certificate after the client's side of
    /// the handshake is done, on the first read), reported as a failed connect.
    private var hasReceivedData = false
    private var hasFailed = false

    private init(socket: RedisSocket, ssl: OpaquePointer, host: String, port: Int) {
        self.socket = socket
        self.ssl = ssl
        self.host = host
        self.port = port
    }

    deinit {
        close()
    }

    /// Connects to the configuration's server and completes the TLS handshake, verifying the
    /// server, within the configuration's connect timeout.
    static func connect(_ configuration: RedisConfiguration) throws(RedisError) -> RedisTLSTransport {
        let tls = configuration.tls ?? RedisConfiguration.TLS()
        let deadline = ContinuousClock.now + configuration.connectTimeout
        // Settings that cannot be used fail before anything goes over the network.
        let context = try TLSContext.make(tls)
        defer { SSL_CTX_free(context) }  // each SSL holds its own reference
        let socket = try RedisSocket.connect(host: configuration.host, port: configuration.port, until: deadline)
        guard let ssl = SSL_new(context) else {
            socket.close()
            throw .connectFailed(
                host: configuration.host, port: configuration.port,
                reason: "TLS: \(OpenSSLErrors.take().description(or: "cannot create a session"))")
        }
        // From here the transport owns the socket and the session; deinit releases both.
        let transport = RedisTLSTransport(socket: socket, ssl: ssl, host: configuration.host, port: configuration.port)
        guard let bio = SocketBIO.make(descriptor: socket.descriptor) else {
            throw transport.connectFailure("TLS: cannot create the socket BIO")
        }
        SSL_set_bio(ssl, bio, bio)
        SSL_set_connect_state(ssl)
        try transport.name(
            tls.serverName ?? configuration.host, verifying: tls.trust != .dangerouslyAcceptAnyCertificate)
        try transport.handshake(until: deadline)
        return transport
    }

    /// Sends `name` as SNI (unless it is an IP address, which SNI does not carry) and, when
    /// verifying, requires the server's certificate to name it.
    private func name(_ name: String, verifying: Bool) throws(RedisError) {
        guard let ssl else { throw .connectionClosed }
        let isAddress = Self.isIPAddress(name)
        if !isAddress && events_redis_ssl_set_server_name_indication(ssl, name) != 1 {
            throw connectFailure("TLS: cannot send the server name '\(name)'")
        }
        guard verifying else { return }
        let accepted =
            isAddress
            ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1
            : SSL_set1_host(ssl, name) == 1
        guard accepted else { throw connectFailure("TLS: cannot verify the server name '\(name)'") }
        SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
    }

    private static func isIPAddress(_ name: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, name, &address) == 1 || inet_pton(AF_INET6, name, &address) == 1
    }

    private func handshake(until deadline: ContinuousClock.Instant) throws(RedisError) {
        guard let ssl else { throw .connectionClosed }
        while true {
            ERR_clear_error()
            let status = SSL_connect(ssl)
            if status == 1 { return }
            switch SSL_get_error(ssl, status) {
            case SSL_ERROR_WANT_READ:
                guard try socket.waitUntilReadable(until: deadline) else { throw fail(.timedOut("connect")) }
            case SSL_ERROR_WANT_WRITE:
                guard try socket.waitUntilWritable(until: deadline) else { throw fail(.timedOut("connect")) }
            default:
                throw fail(handshakeFailure())
            }
        }
    }

    // MARK: RedisTransport

    var isOpen: Bool { ssl != nil && !hasFailed && socket.isOpen }

    func write(_ bytes: UnsafeRawBufferPointer, until deadline: ContinuousClock.Instant) throws(RedisError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            guard isOpen, let ssl else { throw .connectionClosed }
            ERR_clear_error()
            var written = 0
            let status = SSL_write_ex(ssl, base + offset, bytes.count - offset, &written)
            if status == 1 {
                offset += written
                continue
            }
            // A retry passes the same remaining bytes, as OpenSSL requires after WANT_*.
            switch SSL_get_error(ssl, Int32(status)) {
            case SSL_ERROR_WANT_WRITE:
                guard try socket.waitUntilWritable(until: deadline) else { throw fail(.timedOut("write")) }
            case SSL_ERROR_WANT_READ:
                guard try socket.waitUntilReadable(until: deadline) else { throw fail(.timedOut("write")) }
            default:
                throw fail(writeFailure())
            }
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, until deadline: ContinuousClock.Instant)
        throws(RedisError) -> Int?
    {
        while true {
            guard isOpen, let ssl else { throw .connectionClosed }
            ERR_clear_error()
            var count = 0
            // Decrypted bytes may already wait inside OpenSSL: read before polling the socket.
            let status = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count)
            if status == 1 {
                hasReceivedData = true
                return count
            }
            switch SSL_get_error(ssl, Int32(status)) {
            case SSL_ERROR_WANT_READ:
                guard try socket.waitUntilReadable(until: deadline) else { return nil }
            case SSL_ERROR_WANT_WRITE:
                guard try socket.waitUntilWritable(until: deadline) else { return nil }
            default:
                throw fail(streamFailure())
            }
        }
    }

    func hasInputOrHangUp() -> Bool {
        guard isOpen, let ssl else { return true }
        if SSL_pending(ssl) > 0 { return true }
        guard socket.hasInputOrHangUp() else { return false }
        // Bytes arrived, but they may be TLS records without data (session tickets, key
        // updates), which an idle connection does receive: let OpenSSL consume them, and
        // count only data, a close or an error.
        ERR_clear_error()
        var byte: UInt8 = 0
        var count = 0
        let status = SSL_peek_ex(ssl, &byte, 1, &count)
        if status == 1 { return true }
        let verdict = SSL_get_error(ssl, Int32(status)) != SSL_ERROR_WANT_READ
        ERR_clear_error()
        return verdict
    }

    var interruption: RedisTransportInterruption { socket.interruption }

    func shutDown() {
        hasFailed = true
        socket.shutDown()
    }

    func close() {
        guard let ssl else { return }
        if isOpen {
            // Tell the server the stream ends here (close_notify), without waiting for its answer;
            // the socket never blocks, so this cannot hang.
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
        }
        SSL_free(ssl)  // frees the BIO too, which leaves the descriptor to the socket
        self.ssl = nil
        socket.close()
    }

    // MARK: Failures

    /// Marks the transport broken and passes `error` through.
    private func fail(_ error: RedisError) -> RedisError {
        hasFailed = true
        socket.shutDown()
        return error
    }

    private func connectFailure(_ reason: String) -> RedisError {
        let errors = OpenSSLErrors.take()
        let detail = errors.isEmpty ? "" : ": \(errors.description(or: ""))"
        return .connectFailed(host: host, port: port, reason: reason + detail)
    }

    /// Why `SSL_connect` failed, in words a user can act on.
    private func handshakeFailure() -> RedisError {
        guard let ssl else { return .connectionClosed }
        let verification = SSL_get_verify_result(ssl)
        if verification != X509_V_OK {
            let reason = String(cString: X509_verify_cert_error_string(verification))
            ERR_clear_error()
            return .connectFailed(
                host: host, port: port,
                reason: "TLS handshake failed: the server's certificate was rejected (\(reason)); check tls.trust and "
                    + "tls.serverName")
        }
        return refusal(OpenSSLErrors.take(), during: "TLS handshake failed")
    }

    /// A TLS error from an established stream: before any data arrived, the server refusing
    /// the connection (see ``hasReceivedData``), afterwards a broken connection.
    private func streamFailure() -> RedisError {
        let errors = OpenSSLErrors.take()
        guard !hasReceivedData, !errors.isEmpty else { return .connectionClosed }
        return refusal(errors, during: "the server refused the TLS connection")
    }

    /// A failed write before any data arrived most likely met a server that refused the
    /// connection and hung up: read its alert, without waiting, to say why.
    private func writeFailure() -> RedisError {
        _ = OpenSSLErrors.take()
        guard !hasReceivedData, let ssl else { return .connectionClosed }
        ERR_clear_error()
        var byte: UInt8 = 0
        var count = 0
        let status = SSL_read_ex(ssl, &byte, 1, &count)
        if status == 1 {
            hasReceivedData = true
            return .connectionClosed
        }
        return streamFailure()
    }

    private func refusal(_ errors: OpenSSLErrors, during what: String) -> RedisError {
        var reason = "\(what): \(errors.description(or: "the connection closed"))"
        if errors.reasons.contains(Int32(SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED)) {
            reason += "; the server requires a client certificate: set tls.clientCertificate"
        } else if errors.reasons.contains(where: { Self.clientCertificateRejections.contains($0) }) {
            reason += "; the server did not accept the client certificate (tls.clientCertificate)"
        }
        return .connectFailed(host: host, port: port, reason: reason)
    }

    private static let clientCertificateRejections: Set<Int32> = [
        Int32(SSL_R_TLSV1_ALERT_UNKNOWN_CA), Int32(SSL_R_SSLV3_ALERT_BAD_CERTIFICATE),
    ]
}

// A transport is owned by one thread at a time; it must not be shared.
@available(*, unavailable)
extension RedisTLSTransport: Sendable {}
