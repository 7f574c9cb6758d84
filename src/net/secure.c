#include "net/secure.h"

#include "net/clock.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    RECORD_MAX = 16384,            /* TLS's largest plaintext record */
};

static const unsigned char PSK_IDENTITY[] = "metampi-job";

struct net_secure {
    SSL *ssl;
    unsigned char psk[NET_SECURE_PSK];
    size_t pending;                /* a record of this many bytes is sealed but not yet on
                                    * the socket: the next write offers them again */
    unsigned char stage[RECORD_MAX]; /* small segments gathered into one record */
    int x509;                      /* authenticated by certificates (net_secure_start_x509) */
    int refused;                   /* NET_SECURE_REFUSED_HERE / _THERE, or 0 */
    int closed;                    /* the handshake failed: the peer closed the connection */
    char peer[256];                /* x509: the name the peer's certificate must carry ("":
                                    * any, net_secure_peer_names judges it later) */
    char revoked[300];             /* x509: the revoked certificate the verification met */
    char why[600];
};

static SSL_CTX *x509_ctx;          /* net_secure_x509_load's */
static char x509_ca[256];          /* its CA file, for messages */
static char x509_crl[256];         /* its CRL file ("" none), for messages */
static STACK_OF(X509_CRL) *x509_crls; /* the CRLs loaded from it (their entries' reasons) */

void net_secure_psk(const auth_key_t *k, const char *kind, const unsigned char na[AUTH_NONCE],
                    const unsigned char nc[AUTH_NONCE], unsigned char psk[NET_SECURE_PSK])
{
    char label[64];
    snprintf(label, sizeof label, "tls-psk %s", kind);
    auth_mac(k, label, na, nc, 0, psk);
}

/* The session that carries the PSK: TLS 1.3, a SHA-256 suite (both offered suites use it). */
static SSL_SESSION *psk_session(SSL *ssl)
{
    net_secure_t *s = SSL_get_app_data(ssl);
    static const unsigned char aes128gcm[2] = { 0x13, 0x01 };
    const SSL_CIPHER *c = SSL_CIPHER_find(ssl, aes128gcm);
    SSL_SESSION *sess = SSL_SESSION_new();
    if (!c || !sess || !SSL_SESSION_set1_master_key(sess, s->psk, sizeof s->psk) ||
        !SSL_SESSION_set_cipher(sess, c) || !SSL_SESSION_set_protocol_version(sess, TLS1_3_VERSION)) {
        SSL_SESSION_free(sess);
        return NULL;
    }
    return sess;
}

static int use_psk(SSL *ssl, const EVP_MD *md, const unsigned char **id, size_t *idlen,
                   SSL_SESSION **sess)
{
    (void)md;
    *sess = psk_session(ssl);
    *id = PSK_IDENTITY;
    *idlen = sizeof PSK_IDENTITY - 1;
    return *sess != NULL;
}

static int find_psk(SSL *ssl, const unsigned char *id, size_t idlen, SSL_SESSION **sess)
{
    *sess = NULL;
    if (idlen != sizeof PSK_IDENTITY - 1 || memcmp(id, PSK_IDENTITY, idlen) != 0)
        return 1; /* not ours: no PSK, and without a certificate the handshake fails */
    *sess = psk_session(ssl);
    return *sess != NULL;
}

/* What every context has: TLS 1.3 only, the suites, no resumption, the I/O modes. */
static void configure(SSL_CTX *c)
{
    SSL_CTX_set_min_proto_version(c, TLS1_3_VERSION);
    SSL_CTX_set_max_proto_version(c, TLS1_3_VERSION);
    /* AES-GCM first (AES instructions make it the fastest); ChaCha20 for the rest. */
    SSL_CTX_set_ciphersuites(c, "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256");
    SSL_CTX_set_num_tickets(c, 0);         /* one connection, one session: nothing to resume */
    SSL_CTX_set_session_cache_mode(c, SSL_SESS_CACHE_OFF);
    /* The protocols above TLS end with a BYE of their own, inside the records: an end of
     * stream without TLS's close_notify is theirs to judge, not an error here. */
    SSL_CTX_set_options(c, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(c, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(c, 1);         /* several records per read() */
    SSL_CTX_set_default_read_buffer_len(c, 4 * (RECORD_MAX + 512));
}

static SSL_CTX *context(void)
{
    static SSL_CTX *ctx;
    if (ctx)
        return ctx;
    SSL_CTX *c = SSL_CTX_new(TLS_method());
    if (!c)
        return NULL;
    configure(c);
    SSL_CTX_set_psk_use_session_callback(c, use_psk);
    SSL_CTX_set_psk_find_session_callback(c, find_psk);
    ctx = c;
    return ctx;
}

static void ssl_reason(char *out, size_t len, const char *what)
{
    unsigned long e = ERR_get_error();
    char r[160] = "no reason given";
    if (e)
        ERR_error_string_n(e, r, sizeof r);
    ERR_clear_error();
    snprintf(out, len, "%s: %s", what, r);
}

/* A key file with a passphrase is refused, never asked for on a terminal. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf, (void)size, (void)rwflag, (void)u;
    return 0;
}

/* 0 when path can be opened for reading, else -1 with the reason in err. */
static int readable(const char *what, const char *path, char *err, int errlen)
{
    FILE *f = fopen(path, "r");
    if (f) {
        fclose(f);
        return 0;
    }
    snprintf(err, (size_t)errlen, "cannot read the %s '%s': %s", what, path, strerror(errno));
    return -1;
}

/* The reason code of a CRL entry, as RFC 5280 §5.3.1 names it. */
static const char *crl_reason(const X509_REVOKED *rev)
{
    static const char *const names[] = { "unspecified", "keyCompromise", "cACompromise",
                                         "affiliationChanged", "superseded",
                                         "cessationOfOperation", "certificateHold", "(7)",
                                         "removeFromCRL", "privilegeWithdrawn", "aACompromise" };
    ASN1_ENUMERATED *e = X509_REVOKED_get_ext_d2i(rev, NID_crl_reason, NULL, NULL);
    long r = e ? ASN1_ENUMERATED_get(e) : 0;
    ASN1_ENUMERATED_free(e);
    return r >= 0 && r < (long)(sizeof names / sizeof *names) ? names[r] : "unknown";
}

/* "serial S, subject N, reason R, revoked at T" of cert, as the loaded CRLs list it. */
static void describe_revoked(X509 *cert, char *out, size_t len)
{
    char subject[128] = "?", serial[80] = "?", when[40] = "?", reason[32] = "unspecified";
    X509_NAME_oneline(X509_get_subject_name(cert), subject, sizeof subject);
    BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), NULL);
    char *hex = bn ? BN_bn2hex(bn) : NULL;
    if (hex)
        snprintf(serial, sizeof serial, "%s", hex);
    OPENSSL_free(hex);
    BN_free(bn);
    for (int i = 0; i < sk_X509_CRL_num(x509_crls); i++) {
        X509_REVOKED *rev = NULL;
        if (X509_CRL_get0_by_cert(sk_X509_CRL_value(x509_crls, i), &rev, cert) != 1 || !rev)
            continue;
        struct tm tm;
        if (ASN1_TIME_to_tm(X509_REVOKED_get0_revocationDate(rev), &tm))
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
        snprintf(reason, sizeof reason, "%s", crl_reason(rev));
        break;
    }
    snprintf(out, len, "serial %s, subject %s, reason %s, revoked at %s", serial, subject,
             reason, when);
}

/* The verification's callback: notes which certificate a CRL revoked, and why, for the one
 * line that reports the refusal (refusal()). It decides nothing: ok stays OpenSSL's. */
static int verify_note(int ok, X509_STORE_CTX *x)
{
    if (!ok && X509_STORE_CTX_get_error(x) == X509_V_ERR_CERT_REVOKED) {
        SSL *ssl = X509_STORE_CTX_get_ex_data(x, SSL_get_ex_data_X509_STORE_CTX_idx());
        net_secure_t *s = ssl ? SSL_get_app_data(ssl) : NULL;
        X509 *cert = X509_STORE_CTX_get_current_cert(x);
        if (s && cert && !s->revoked[0])
            describe_revoked(cert, s->revoked, sizeof s->revoked);
    }
    return ok;
}

/* Adds the CRLs of the PEM file crl to c's store and turns on their check for every
 * certificate of a peer's chain (CRL_CHECK | CRL_CHECK_ALL). 0, or -1 with what in `what`. */
static int load_crls(SSL_CTX *c, const char *crl, char *what, size_t len)
{
    FILE *f = fopen(crl, "r");
    if (!f) {
        snprintf(what, len, "cannot read the CRL '%s': %s", crl, strerror(errno));
        return -1;
    }
    STACK_OF(X509_CRL) *list = sk_X509_CRL_new_null();
    X509_STORE *store = SSL_CTX_get_cert_store(c);
    X509_CRL *x;
    int n = 0;
    while (list && (x = PEM_read_X509_CRL(f, NULL, NULL, NULL))) {
        if (!X509_STORE_add_crl(store, x) || !sk_X509_CRL_push(list, x)) {
            X509_CRL_free(x);
            break;
        }
        n++;
    }
    fclose(f);
    /* the end of the file shows as "no start line"; anything else is a broken CRL */
    unsigned long e = ERR_peek_last_error();
    int end = ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE;
    if (!list || n == 0 || !end) {
        sk_X509_CRL_pop_free(list, X509_CRL_free);
        snprintf(what, len, n == 0 && end ? "the CRL '%s' holds no PEM CRL"
                                          : "the CRL '%s' is not a PEM CRL (list)", crl);
        return -1;
    }
    ERR_clear_error();
    X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
    sk_X509_CRL_pop_free(x509_crls, X509_CRL_free);
    x509_crls = list;
    return 0;
}

int net_secure_x509_load(const char *cert, const char *key, const char *ca, const char *crl,
                         char *err, int errlen)
{
    if (readable("certificate", cert, err, errlen) || readable("key", key, err, errlen) ||
        readable("CA", ca, err, errlen) || (crl && readable("CRL", crl, err, errlen)))
        return -1;
    SSL_CTX *c = SSL_CTX_new(TLS_method());
    if (!c) {
        snprintf(err, (size_t)errlen, "cannot set up TLS: out of memory");
        return -1;
    }
    configure(c);
    SSL_CTX_set_default_passwd_cb(c, no_passphrase);
    char what[400];
    ERR_clear_error();
    if (SSL_CTX_use_certificate_chain_file(c, cert) != 1)
        snprintf(what, sizeof what, "the certificate '%s' is not a PEM certificate (chain)",
                 cert);
    else if (SSL_CTX_use_PrivateKey_file(c, key, SSL_FILETYPE_PEM) != 1)
        snprintf(what, sizeof what, "the key '%s' is not an unencrypted PEM private key", key);
    else if (SSL_CTX_check_private_key(c) != 1)
        snprintf(what, sizeof what, "the key '%s' does not belong to the certificate '%s'",
                 key, cert);
    else if (SSL_CTX_load_verify_locations(c, ca, NULL) != 1)
        snprintf(what, sizeof what, "the CA '%s' holds no PEM certificate", ca);
    else if (crl && load_crls(c, crl, what, sizeof what) != 0)
        ;
    else
        what[0] = '\0';
    if (what[0]) {
        ssl_reason(err, (size_t)errlen, what);
        SSL_CTX_free(c);
        return -1;
    }
    /* both ends show a certificate: the acceptor asks for the connector's and insists */
    SSL_CTX_set_verify(c, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, verify_note);
    SSL_CTX_free(x509_ctx);
    x509_ctx = c;
    snprintf(x509_ca, sizeof x509_ca, "%s", ca);
    snprintf(x509_crl, sizeof x509_crl, "%s", crl ? crl : "");
    return 0;
}

static net_secure_t *start(SSL_CTX *ctx, int fd, int server, char *err, int errlen)
{
    net_secure_t *s = calloc(1, sizeof *s);
    if (!ctx || !s) {
        free(s);
        snprintf(err, (size_t)errlen, "cannot set up TLS: out of memory");
        return NULL;
    }
    ERR_clear_error();
    s->ssl = SSL_new(ctx);
    if (!s->ssl || !SSL_set_fd(s->ssl, fd)) {
        ssl_reason(err, (size_t)errlen, "cannot set up TLS");
        net_secure_free(s);
        return NULL;
    }
    SSL_set_app_data(s->ssl, s);
    if (server)
        SSL_set_accept_state(s->ssl);
    else
        SSL_set_connect_state(s->ssl);
    return s;
}

net_secure_t *net_secure_start(int fd, int server, const unsigned char psk[NET_SECURE_PSK],
                               char *err, int errlen)
{
    net_secure_t *s = start(context(), fd, server, err, errlen);
    if (s)
        memcpy(s->psk, psk, sizeof s->psk);
    return s;
}

net_secure_t *net_secure_start_x509(int fd, int server, const char *peer_name, char *err,
                                    int errlen)
{
    if (!x509_ctx) {
        snprintf(err, (size_t)errlen, "cannot set up TLS: no certificate loaded");
        return NULL;
    }
    net_secure_t *s = start(x509_ctx, fd, server, err, errlen);
    if (!s)
        return NULL;
    s->x509 = 1;
    if (!peer_name)
        return s; /* any name: the owner asks net_secure_peer_names once it knows which */
    snprintf(s->peer, sizeof s->peer, "%s", peer_name);
    /* the peer's certificate must name it (subjectAltName DNS or IP, else the subject's CN;
     * an IP address is matched as one: SSL_set1_host) */
    SSL_set_hostflags(s->ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (SSL_set1_host(s->ssl, peer_name) != 1) {
        ssl_reason(err, (size_t)errlen, "cannot set up TLS");
        net_secure_free(s);
        return NULL;
    }
    return s;
}

int net_secure_peer_names(const net_secure_t *s, const char *name, char *subject, size_t cap)
{
    X509 *cert = s->x509 ? SSL_get0_peer_certificate(s->ssl) : NULL;
    if (subject && cap) {
        subject[0] = '\0';
        if (cert)
            X509_NAME_oneline(X509_get_subject_name(cert), subject, (int)cap);
    }
    return cert && X509_check_host(cert, name, 0, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS,
                                   NULL) == 1;
}

/* Nonzero when the alert the peer sent (an error's reason from SSL_AD_REASON_OFFSET on)
 * says it refused our certificate. */
static int certificate_alert(unsigned long e)
{
    int r = ERR_GET_REASON(e) - SSL_AD_REASON_OFFSET;
    return r == SSL3_AD_BAD_CERTIFICATE || r == SSL3_AD_UNSUPPORTED_CERTIFICATE ||
           r == SSL3_AD_CERTIFICATE_REVOKED || r == SSL3_AD_CERTIFICATE_EXPIRED ||
           r == SSL3_AD_CERTIFICATE_UNKNOWN || r == TLS1_AD_UNKNOWN_CA ||
           r == TLS1_AD_ACCESS_DENIED || r == TLS13_AD_CERTIFICATE_REQUIRED;
}

/* Whether a verification error is about revocation: the CRL's verdict, or no usable CRL. */
static int crl_error(long v)
{
    return v == X509_V_ERR_CERT_REVOKED || v == X509_V_ERR_UNABLE_TO_GET_CRL ||
           v == X509_V_ERR_CRL_HAS_EXPIRED || v == X509_V_ERR_CRL_NOT_YET_VALID ||
           v == X509_V_ERR_CRL_SIGNATURE_FAILURE ||
           v == X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE ||
           v == X509_V_ERR_ERROR_IN_CRL_LAST_UPDATE_FIELD ||
           v == X509_V_ERR_ERROR_IN_CRL_NEXT_UPDATE_FIELD ||
           v == X509_V_ERR_UNABLE_TO_GET_CRL_ISSUER || v == X509_V_ERR_DIFFERENT_CRL_SCOPE ||
           v == X509_V_ERR_CRL_PATH_VALIDATION_ERROR;
}

/* x509: why the handshake or the first read failed, when a certificate was refused (here:
 * the verification result; there: its alert); 0 when it was something else. */
static int refusal(net_secure_t *s, char *out, size_t len)
{
    if (!s->x509)
        return 0;
    long v = SSL_get_verify_result(s->ssl);
    unsigned long e = ERR_peek_error();
    char whose[300], who[300];
    if (s->peer[0])
        snprintf(whose, sizeof whose, "the certificate of '%s'", s->peer);
    else
        snprintf(whose, sizeof whose, "the peer's certificate");
    if (s->peer[0])
        snprintf(who, sizeof who, "'%s'", s->peer);
    else
        snprintf(who, sizeof who, "the peer");
    if (v == X509_V_ERR_CERT_REVOKED) {
        s->refused = NET_SECURE_REFUSED_HERE;
        snprintf(out, len, "refused %s: certificate revoked (%s; by the CRL '%s')", whose,
                 s->revoked[0] ? s->revoked : "a certificate of its chain", x509_crl);
    } else if (crl_error(v)) {
        /* no trustworthy CRL for a certificate of its chain: refused, as OpenSSL says */
        s->refused = NET_SECURE_REFUSED_HERE;
        snprintf(out, len, "refused %s: %s (checked against the CRL '%s', which must hold a "
                 "current CRL of every CA of the chain)", whose,
                 X509_verify_cert_error_string(v), x509_crl);
    } else if (v != X509_V_OK) {
        s->refused = NET_SECURE_REFUSED_HERE;
        if (s->peer[0])
            snprintf(out, len, "refused %s: %s (expected one that chains to the CA '%s' and "
                     "names '%s')", whose, X509_verify_cert_error_string(v), x509_ca, s->peer);
        else
            snprintf(out, len, "refused %s: %s (expected one that chains to the CA '%s')",
                     whose, X509_verify_cert_error_string(v), x509_ca);
    } else if (e && certificate_alert(e)) {
        s->refused = NET_SECURE_REFUSED_THERE;
        char r[160];
        ERR_error_string_n(e, r, sizeof r);
        int revoked = ERR_GET_REASON(e) - SSL_AD_REASON_OFFSET == SSL3_AD_CERTIFICATE_REVOKED;
        snprintf(out, len, "%s refused this end's certificate (%s: %s)", who, r,
                 revoked ? "a CRL there revokes it"
                         : "it does not chain to the CA there, or does not name this end");
    } else {
        return 0;
    }
    ERR_clear_error();
    return 1;
}

int net_secure_refused(const net_secure_t *s)
{
    return s->refused;
}

int net_secure_step(net_secure_t *s, short *wants, char *err, int errlen)
{
    errno = 0;
    int rc = SSL_do_handshake(s->ssl);
    if (rc == 1)
        return 1;
    int e = SSL_get_error(s->ssl, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        *wants = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
        return 0;
    }
    if (e == SSL_ERROR_SSL && refusal(s, err, (size_t)errlen))
        return -1;
    if (e == SSL_ERROR_SYSCALL || e == SSL_ERROR_ZERO_RETURN) {
        /* (the kernel giving up on the peer, ETIMEDOUT, is not a close) */
        s->closed = errno == 0 || errno == ECONNRESET || errno == EPIPE;
        snprintf(err, (size_t)errlen, "the peer closed the connection in the TLS handshake "
                 "(%s)", errno ? strerror(errno) : "end of stream");
    } else
        ssl_reason(err, (size_t)errlen, "the TLS handshake failed (not the same job key?)");
    return -1;
}

int net_secure_closed(const net_secure_t *s)
{
    return s->closed;
}

int net_secure_heard(const net_secure_t *s)
{
    return SSL_get_state(s->ssl) != TLS_ST_BEFORE;
}

net_secure_t *net_secure_open(int fd, int server, const unsigned char psk[NET_SECURE_PSK],
                              long long deadline, char *err, int errlen)
{
    net_secure_t *s = net_secure_start(fd, server, psk, err, errlen);
    short wants;
    int rc;
    while (s && (rc = net_secure_step(s, &wants, err, errlen)) != 1) {
        long long left = deadline - net_now_ms();
        if (rc < 0 || left <= 0) {
            if (rc == 0)
                snprintf(err, (size_t)errlen, "the TLS handshake did not finish in time");
            net_secure_free(s);
            return NULL;
        }
        struct pollfd p = { .fd = fd, .events = wants };
        poll(&p, 1, left > 1000 ? 1000 : (int)left);
    }
    return s;
}

/* errno for an SSL call that did not succeed; EBADMSG records why. */
static int fail_errno(net_secure_t *s, int rc, int *eof)
{
    int e = SSL_get_error(s->ssl, rc);
    *eof = 0;
    switch (e) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        return EAGAIN;
    case SSL_ERROR_ZERO_RETURN:
        *eof = 1;
        return 0;
    case SSL_ERROR_SYSCALL:
        ERR_clear_error();
        return errno ? errno : ECONNRESET;
    default:
        if (refusal(s, s->why, sizeof s->why))
            return EBADMSG; /* TLS 1.3: the connector learns it on its first read */
        /* a reason from SSL_AD_REASON_OFFSET on is the peer's alert: it found the fault */
        ssl_reason(s->why, sizeof s->why,
                   ERR_GET_REASON(ERR_peek_error()) >= SSL_AD_REASON_OFFSET
                       ? "integrity check failed at the other end: it received a record "
                         "altered, replayed or injected in transit"
                       : "integrity check failed: a record was altered, replayed or injected "
                         "in transit");
        return EBADMSG;
    }
}

long net_secure_readv(net_secure_t *s, const struct iovec *iov, int n)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        size_t off = 0;
        while (off < iov[i].iov_len) {
            size_t got = 0;
            int rc = SSL_read_ex(s->ssl, (char *)iov[i].iov_base + off, iov[i].iov_len - off,
                                 &got);
            if (rc == 1) {
                off += got;
                total += got;
                /* OpenSSL holds nothing more (not even part of a record): the rest, if any,
                 * is in the socket, whose readiness the caller's poll reports. One more
                 * SSL_read would mostly be a read() that fails with EAGAIN: counted on the
                 * gateways' ping-pong, one such syscall per record received. */
                if (!SSL_has_pending(s->ssl))
                    return (long)total;
                continue;
            }
            int eof, e = fail_errno(s, rc, &eof);
            if (total && (eof || e == EAGAIN))
                return (long)total; /* less than asked: the socket is empty (or ended) */
            if (eof)
                return 0;
            errno = e;
            return -1;
        }
    }
    return (long)total;
}

/* Gathers up to RECORD_MAX bytes of iov from byte `from` on into stage; their number. A lone
 * large segment is not copied: *p points into it. */
static size_t gather(net_secure_t *s, const struct iovec *iov, int n, size_t from,
                     const unsigned char **p)
{
    size_t got = 0;
    for (int i = 0; i < n && got < RECORD_MAX; i++) {
        size_t l = iov[i].iov_len;
        if (from >= l) {
            from -= l;
            continue;
        }
        const unsigned char *b = (const unsigned char *)iov[i].iov_base + from;
        size_t k = l - from < RECORD_MAX - got ? l - from : RECORD_MAX - got;
        if (got == 0 && k == RECORD_MAX) {
            *p = b;
            return k;
        }
        memcpy(s->stage + got, b, k);
        got += k;
        from = 0;
    }
    *p = s->stage;
    return got;
}

long net_secure_writev(net_secure_t *s, const struct iovec *iov, int n)
{
    size_t total = 0;
    for (;;) {
        const unsigned char *p;
        size_t len = gather(s, iov, n, total, &p);
        if (len == 0 || len < s->pending)
            return (long)total; /* all written / the sealed record's bytes are not all here */
        if (s->pending)
            len = s->pending; /* exactly the sealed record: OpenSSL writes it out, no more */
        size_t w = 0;
        int rc = SSL_write_ex(s->ssl, p, len, &w);
        if (rc == 1) {
            s->pending = 0;
            total += w;
            continue;
        }
        int eof, e = fail_errno(s, rc, &eof);
        if (e == EAGAIN) {
            /* OpenSSL keeps the record it sealed (at most RECORD_MAX of these bytes) */
            if (!s->pending)
                s->pending = len;
            return (long)total;
        }
        errno = eof ? EPIPE : e;
        return -1;
    }
}

const char *net_secure_error(const net_secure_t *s)
{
    return s->why;
}

const char *net_secure_cipher(const net_secure_t *s)
{
    return SSL_get_cipher_name(s->ssl);
}

void net_secure_free(net_secure_t *s)
{
    if (!s)
        return;
    SSL_free(s->ssl);
    OPENSSL_cleanse(s->psk, sizeof s->psk);
    free(s);
}
