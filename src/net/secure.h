/*
 * A secure stream: TLS 1.3 (OpenSSL libssl) over a connection that has just passed the
 * authenticated handshake (handshake.h), for every link that leaves a site — the gateways'
 * WAN streams, the rendezvous protocol, --direct-wan connections (docs/wan-security.md).
 *
 * Keys: no certificates. Both sides hold the key of the connection's purpose (auth.h) and the
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
 *   - a read returns less than asked only when the socket is empty: nothing decrypted stays
 *     behind in OpenSSL's buffers that no poll would announce;
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
/* Advances the handshake: 1 done, 0 call again when fd has *wants (POLLIN or POLLOUT), -1
 * failed (err). Non-blocking, so that two processes that each wait for a handshake of the
 * other's never wait for each other (a process drives all of its handshakes from one loop). */
int net_secure_step(net_secure_t *s, short *wants, char *err, int errlen);
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
