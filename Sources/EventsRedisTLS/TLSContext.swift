import CEventsRedisOpenSSL
import EventsRedisClient

/// Builds the OpenSSL context (`SSL_CTX`) for a configuration's TLS settings: TLS 1.2 or later,
/// the trusted authorities, peer verification and the client certificate.
///
/// A context is made for every connection, so certificate files are read again at each
/// reconnect and a renewed certificate needs no restart. Connecting is rare next to the
/// traffic over a connection, and the handshake costs far more than reading a few files.
enum TLSContext {
    /// A new context, owned by the caller (`SSL_CTX_free`). Throws
    /// ``RedisError/invalidConfiguration(_:)`` when a certificate, key or file cannot be used.
    static func make(_ tls: RedisConfiguration.TLS) throws(RedisError) -> OpaquePointer {
        ERR_clear_error()
        guard let method = TLS_client_method(), let context = SSL_CTX_new(method) else {
            throw invalid("cannot create an OpenSSL context")
        }
        do throws(RedisError) {
            try configure(context, tls)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        return context
    }

    private static func configure(_ context: OpaquePointer, _ tls: RedisConfiguration.TLS) throws(RedisError) {
        guard events_redis_ssl_ctx_require_tls12(context) == 1 else { throw invalid("cannot require TLS 1.2") }
        events_redis_ssl_ctx_set_write_modes(context)
        switch tls.trust {
        case .system:
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw invalid("cannot load the system's trusted certificates")
            }
        case .certificateAuthorityFile(let path):
            guard SSL_CTX_load_verify_file(context, path) == 1 else {
                throw invalid("cannot use the certificate authority file '\(path)' (tls.trust)")
            }
        case .certificateAuthorityPEM(let text):
            let certificates = try readCertificates(text, what: "the certificate authority PEM text (tls.trust)")
            let store = SSL_CTX_get_cert_store(context)
            for certificate in certificates {
                defer { X509_free(certificate) }
                guard X509_STORE_add_cert(store, certificate) == 1 else {
                    throw invalid("cannot add a certificate authority from the PEM text (tls.trust)")
                }
            }
        case .dangerouslyAcceptAnyCertificate:
            break
        }
        let verifies = tls.trust != .dangerouslyAcceptAnyCertificate
        SSL_CTX_set_verify(context, verifies ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)

        switch tls.clientCertificate {
        case nil:
            return
        case .files(let certificate, let key)?:
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
                throw invalid("cannot use the client certificate file '\(certificate)' (tls.clientCertificate)")
            }
            guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else {
                throw invalid("cannot use the client key file '\(key)' (tls.clientCertificate)")
            }
        case .pem(let certificate, let key)?:
            try useCertificateChain(certificate, in: context)
            try usePrivateKey(key, in: context)
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw invalid("the client key does not belong to the client certificate (tls.clientCertificate)")
        }
    }

    private static func useCertificateChain(_ text: String, in context: OpaquePointer) throws(RedisError) {
        var certificates = try readCertificates(text, what: "the client certificate PEM text (tls.clientCertificate)")
        let leaf = certificates.removeFirst()
        defer { X509_free(leaf) }
        guard SSL_CTX_use_certificate(context, leaf) == 1 else {
            certificates.forEach { X509_free($0) }
            throw invalid("cannot use the client certificate PEM text (tls.clientCertificate)")
        }
        for (index, intermediate) in certificates.enumerated() {
            // On success the context owns the certificate.
            guard events_redis_ssl_ctx_add_chain_certificate(context, intermediate) == 1 else {
                certificates[index...].forEach { X509_free($0) }
                throw invalid("cannot use an intermediate of the client certificate (tls.clientCertificate)")
            }
        }
    }

    private static func usePrivateKey(_ text: String, in context: OpaquePointer) throws(RedisError) {
        let key: OpaquePointer? = withMemoryBIO(text) { bio in PEM_read_bio_PrivateKey(bio, nil, nil, nil) }
        guard let key else { throw invalid("cannot read the client key PEM text (tls.clientCertificate)") }
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(context, key) == 1 else {
            throw invalid("cannot use the client key PEM text (tls.clientCertificate)")
        }
    }

    /// Every certificate in `text`, at least one; the caller frees them.
    private static func readCertificates(_ text: String, what: String) throws(RedisError) -> [OpaquePointer] {
        let certificates: [OpaquePointer] =
            withMemoryBIO(text) { bio in
                var found: [OpaquePointer] = []
                while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) { found.append(certificate) }
                return found
            } ?? []
        // Reading stops with a "no start line" error at the end of the text: not a failure.
        ERR_clear_error()
        guard !certificates.isEmpty else { throw invalid("no certificate found in \(what)") }
        return certificates
    }

    private static func withMemoryBIO<T>(_ text: String, _ body: (OpaquePointer) -> T?) -> T? {
        var text = text
        return text.withUTF8 { bytes -> T? in
            guard let base = bytes.baseAddress, let bio = BIO_new_mem_buf(base, Int32(clamping: bytes.count)) else {
                return nil
            }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    private static func invalid(_ what: String) -> RedisError {
        let errors = OpenSSLErrors.take()
        return .invalidConfiguration("TLS: \(what): \(errors.description(or: "no detail from OpenSSL"))")
    }
}
