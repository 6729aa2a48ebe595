// The system OpenSSL (3.x) for the EventsRedisTLS transport, plus functions for what OpenSSL
// spells as macros, which Swift cannot call.
#ifndef EVENTS_REDIS_OPENSSL_SHIM_H
#define EVENTS_REDIS_OPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

static inline int events_redis_ssl_ctx_require_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

// A write may be split over several calls and retried with the bytes at a new address.
static inline void events_redis_ssl_ctx_set_write_modes(SSL_CTX *context) {
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

static inline int events_redis_ssl_set_server_name_indication(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// Takes ownership of `certificate` on success.
static inline int events_redis_ssl_ctx_add_chain_certificate(SSL_CTX *context, X509 *certificate) {
    return (int)SSL_CTX_add_extra_chain_cert(context, certificate);
}

#endif
