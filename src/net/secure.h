/*
 * A secure stream: TLS 1.3 (OpenSSL libssl) over a connection that has just passed the
 * authenticated handshake (handshake.h), for every link that leaves a site — the gateways'
 * WAN streams, the rendezvous protocol, --direct-wan connections (docs/wan-security.md).
 *
 * Keys (the default): no certificates. Both sides hold the key of the connection's purpose (auth.h) and the
 * two nonces of the handshake they have just completed; the TLS external PSK is
 *     PSK = HMAC-SHA256(purpose key, "tls-psk " kind || Na || Nc)
 * so it differs per kind of link and per connection, and a TLS session is bound to the proven
 * handshake before it. TLS 1.3's psk_dhe_ke mode adds an ECDHE share (forward secrecy: the
 * job key later found does not open recorded traffic). Authentication is mutual: only a
 * holder of the PSK completes the handshake.
 *
 * Integrity: every record is AEAD-sealed (AES-128-GCM, or ChaCha20-Poly1305 without AES
 * instructions) with a per-direction sequence number in its nonce, so an altered, replayed,
 * reordered, dropped or injected record fails to open: the read reports EBADMSG and
 * net_secure_error says why; nothing of that record or after it is delivered.
 *
 * I/O has readv / sendmsg semantics on a non-blocking socket, so rx.c and outq.c use it in
 * place of the socket (their `sec` field). Two rules keep that true:
 *   - a read returns less than asked only when nothing stays behind in OpenSSL's buffers
 *     (no record, decrypted or not, nor part of one) that no poll would announce: what else
 *     there is waits in the socket, and a level-triggered poll reports it;
 *   - a write that found the socket full has sealed a record OpenSSL keeps: the writer must
 *     offer the same bytes again (outq does: unwritten bytes stay at its head).
 */
#ifndef METAMPI_NET_SECURE_H
#define METAMPI_NET_SECURE_H

#include "net/auth.h"

#include <stddef.h>
#include <sys/uio.h>

typedef struct net_secure net_secure_t;

enum { NET_SECURE_PSK = 32 };

/* The connection's PSK (above); kind names the link ("gw-link", "rdv", "tcp"). */
void net_secure_psk(const auth_key_t *k, const char *kind, const unsigned char na[AUTH_NONCE],
                    const unsigned char nc[AUTH_NONCE], unsigned char psk[NET_SECURE_PSK]);

/* Starts TLS on the non-blocking socket fd (the acceptor of the authenticated handshake is the
 * TLS server): the secure stream, or NULL with the reason in err. fd stays the caller's. */
net_secure_t *net_secure_start(int fd, int server, const unsigned char psk[NET_SECURE_PSK],
                               char *err, int errlen);
/* X.509 per site, in place of the PSK (docs/wan-security.md, "X.509 per site"): this
 * process's certificate (chain) and key, and the CA its peers' certificates must chain to,
 * all PEM files; a key with a passphrase is refused. crl (NULL: none) is a PEM file of CRLs:
 * then every certificate of a peer's chain must be covered by a current CRL of its issuer
 * in it and not be revoked (X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL). Once per
 * process, before net_secure_start_x509. 0, or -1 with one line in err naming the file and
 * what is wrong. */
int net_secure_x509_load(const char *cert, const char *key, const char *ca, const char *crl,
                         char *err, int errlen);
/* As net_secure_start, authenticated by certificates both ways: the peer's must chain to the
 * loaded CA (and pass its CRLs) and name peer_name (a subjectAltName DNS or IP entry, or
 * without one the subject's CN; an IP address is matched as an address). peer_name NULL: any
 * name, for a server that learns only later whom the peer claims to be (then
 * net_secure_peer_names). TLS 1.3 with a fresh ECDHE share; no PSK (TLS 1.3 does not
 * combine the two). */
net_secure_t *net_secure_start_x509(int fd, int server, const char *peer_name, char *err,
                                    int errlen);
/* After the handshake of net_secure_start_x509: 1 when the peer's (verified) certificate
 * names `name` (as above), else 0. subject (NULL: not wanted) gets the certificate's subject,
 * for messages. */
int net_secure_peer_names(const net_secure_t *s, const char *name, char *subject, size_t cap);
/* Once a certificate was refused (the failure of net_secure_step, or with TLS 1.3 of the
 * connector's first read), trying again will not help: NET_SECURE_REFUSED_HERE, the peer's
 * (the error says why: another CA, another name, expired ...), or NET_SECURE_REFUSED_THERE,
 * ours by the peer (its alert says little: the peer's own error says why); else 0. */
enum { NET_SECURE_REFUSED_HERE = 1, NET_SECURE_REFUSED_THERE = 2 };
int net_secure_refused(const net_secure_t *s);

/* Advances the handshake: 1 done, 0 call again when fd has *wants (POLLIN or POLLOUT), -1
 * failed (err). Non-blocking, so that two processes that each wait for a handshake of the
 * other's never wait for each other (a process drives all of its handshakes from one loop). */
int net_secure_step(net_secure_t *s, short *wants, char *err, int errlen);
/* After net_secure_step failed: whether the peer closed the connection (an end of stream or
 * a reset in the handshake) rather than refusing it; a closed handshake may be tried again on
 * a new connection. */
int net_secure_closed(const net_secure_t *s);
/* A server's: whether the client's first handshake message (its ClientHello) has come. Until
 * it has, the client cannot have finished its side: closing is safe for both. */
int net_secure_heard(const net_secure_t *s);
/* Both, waiting until deadline (net_now_ms): for tests. */
net_secure_t *net_secure_open(int fd, int server, const unsigned char psk[NET_SECURE_PSK],
                              long long deadline, char *err, int errlen);

/* As readv: bytes read (> 0), 0 at the peer's end of stream, -1 with errno: EAGAIN nothing
 * there now, EBADMSG a record failed its integrity check (net_secure_error), else the
 * socket's error. */
long net_secure_readv(net_secure_t *s, const struct iovec *iov, int n);

/* As net_sendv: the bytes written (possibly 0: the socket is full), or -1 with errno. */
long net_secure_writev(net_secure_t *s, const struct iovec *iov, int n);

/* Why the last call failed with EBADMSG ("" otherwise). */
const char *net_secure_error(const net_secure_t *s);

/* The cipher suite the handshake chose (e.g. "TLS_AES_128_GCM_SHA256"). */
const char *net_secure_cipher(const net_secure_t *s);

/* Frees the stream (not the socket). NULL is accepted. */
void net_secure_free(net_secure_t *s);

#endif
