/*
 * The TCP transport's own state and the functions its files share (tcp.c: the ops; connect.c:
 * our connections, opened on first use; accept.c: the peers' connections; peer.c: a peer's
 * connection once it is up). Nothing outside transport/tcp/ includes this.
 *
 * Connections and their states: a connector's attempt goes RETRY -> CONNECTING ->
 * WAIT_CHALLENGE -> WAIT_WELCOME -> UP; an accepted one WAIT_HELLO -> UP, or REFUSING (it
 * answered DUPLICATE, and closes once that is written); either goes through SECURING to UP
 * when the peer is at another site (TLS). A SECURING connection the acceptor took whose
 * connector sends no ClientHello within TCP_HELLO_TIMEOUT_MS is closed (accept.c), as an
 * unproven one is; a connector whose SECURING connection is closed opens a new one (connect.c),
 * as before its WELCOME. Only the acceptor, before the ClientHello, times the TLS handshake:
 * the connector finishes first, so a deadline after that could close a connection its
 * connector already uses. Invariant: a peer has at most one
 * connection in state UP, frames to it travel only on that connection, in the order send()
 * took them (they wait in the peer's queue until then), so a duplicate can neither reorder
 * nor duplicate a frame.
 */
#ifndef METAMPI_TCP_INT_H
#define METAMPI_TCP_INT_H

#include "transport/tcp/card.h"
#include "transport/transport.h"

#include "net/accept.h"
#include "net/hsio.h"
#include "net/notes.h"
#include "net/outq.h"
#include "net/retry.h"
#include "net/rx.h"

#include <stdint.h>

enum {
    TCP_MAX_FRAME = (4 << 20) + 256,   /* DATA chunks of up to 4 MiB plus their header */
    TCP_MAX_COMPLETIONS = 256,
    TCP_FRAMES_PER_POLL = 64,
    TCP_RX_BUFFER = 256 << 10,
    TCP_HELLO_TIMEOUT_MS = 10000,      /* an accepted connection must prove the key by then,
                                        * and then begin TLS (a peer at another site) */
    TCP_PENDING_MAX = 256,             /* unproven accepted connections kept at once; beyond, */
    TCP_EVICT_GRACE_MS = 250,          /* the oldest goes once it had this long to answer */
    TCP_RETRY_MIN_MS = 10,             /* our attempt was closed in the handshake: a new one */
    TCP_RETRY_MAX_MS = 1000,           /* after this long, doubling up to this */
    TCP_RETRY_GIVE_UP_MIN = 3,         /* attempts closed at once in a row before we give up */
};

enum tcp_conn_state {
    C_RETRY,           /* connector: closed in the handshake; a new attempt at retry_at */
    C_CONNECTING,      /* connector: connect() in progress */
    C_WAIT_CHALLENGE,  /* connector: reading the acceptor's CHALLENGE */
    C_WAIT_WELCOME,    /* connector: HELLO sent, reading the WELCOME */
    A_WAIT_HELLO,      /* acceptor: CHALLENGE sent, reading the HELLO */
    A_REFUSING,        /* acceptor: answered DUPLICATE; closes once that is written */
    SECURING,          /* either: proven, the peer is at another site: TLS handshake */
    UP,                /* authenticated: carries frames */
};

typedef struct tcp_conn {
    int fd, state;
    int peer;                    /* -1 until an accepted connection's HELLO names it */
    int addr_i;                  /* connector: index of the card address being tried */
    int accepted;                /* we accepted it (the TLS server), not opened it */
    long long tls_deadline;      /* accepted, SECURING: the ClientHello is due by then (ms) */
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE];
    net_hs_io_t hs;              /* the handshake's messages */
    net_pending_t pending;       /* acceptor: until the HELLO is proven */
    long long t_start;           /* accepted, or this attempt started (ms) */
    long long retry_at;          /* C_RETRY: when the next attempt starts */
    net_retry_t retry;           /* connector: attempts closed at once in a row */
    net_addr_t remote;
    uint32_t events;             /* registered with epoll */
    struct tcp_conn *next;       /* connector: the retry list */
} tcp_conn_t;

typedef struct tcp_peer {
    tcp_conn_t *c;               /* our connection to the peer (any state), or the UP one */
    int lost_race;               /* our connection lost to the peer's: wait for it */
    int closed;                  /* the peer said BYE and closed */
    net_outq_t out;              /* frames waiting for the connection or the socket */
    net_rx_t rx;                 /* valid while c is UP */
    net_secure_t *sec;           /* TLS on c (a peer at another site), or NULL */
    tcp_card_t card;
    int have_card;
    int backlog;                 /* rx holds frames not yet handled (the budget ran out):
                                  * epoll will not report them, progress() must come back */
} tcp_peer_t;

typedef struct tcp_state {
    int active;                  /* the job spans hosts, or it grew (transport.h) */
    int rank, size;
    int part_size;               /* ranks of this part (size before any grow) */
    int dynamic;                 /* it grew: HELLOs and WELCOMEs name job-wide numbers */
    int (*peer_id)(int r);       /* tr_boot_t's, NULL until the first grow */
    int (*peer_of_id)(int id);
    int (*kv_get_peer)(int r, const char *prefix, char *value, int vallen, char *err,
                       int errlen);
    const int *host_of;
    const int *site_of;          /* the ranks' sites: TLS between two (wan_tls) */
    int wan_tls;                 /* METAMPI_WAN_ENCRYPT */
    int x509;                    /* METAMPI_WAN_X509: certificates between sites, not the PSK */
    const char *hostname;
    int (*kv_get)(const char *key, char *value, int vallen, char *err, int errlen);
    net_rx_ops_t rx_ops;
    auth_key_t key;              /* the TCP transport's, derived from the ranks' key */
    int have_key;
    int ep;
    int lfd[TCP_CARD_MAX_ADDRS]; /* one listener per chosen local address */
    tcp_addr_t local[TCP_CARD_MAX_ADDRS];
    int nlocal;
    int timeout_s;               /* METAMPI_PEER_TIMEOUT */
    tcp_peer_t *peers;
    net_acceptor_t acc;          /* accepted connections before their HELLO */
    tcp_conn_t *retrying;        /* our attempts in C_RETRY */
    net_completion_t done[TCP_MAX_COMPLETIONS];
    int ndone;
    unsigned freed;              /* connections freed so far (invalidates epoll events) */
    int nconn;                   /* connections whose socket is in the epoll set (any state;
                                  * the listeners aside) */
    int last_up;                 /* the peer whose connection came up last, or -1 */
    unsigned direct_passes;      /* progress passes since the last epoll_wait (tcp.c) */
    int nbacklog;                /* peers with backlog set */
    long long next_check;        /* coarse ms: the next silence check */
    net_notes_t notes;           /* dropped-connection lines */
} tcp_state_t;

extern tcp_state_t tcp_g;

/* The job-wide number of rank r: what HELLO and WELCOME name (r itself in a job of one part). */
static inline int tcp_id(int r)
{
    return tcp_g.peer_id ? tcp_g.peer_id(r) : r;
}

/* wan_x509.c: loads this rank's site's certificate when METAMPI_WAN_X509 is set (and TLS
 * between sites is on). 0, or -1 with one line in err. */
int tcp_wan_x509_init(char *err, int errlen);

/* peer.c */
const char *tcp_peer_host(int r);
int tcp_set_events(tcp_conn_t *c, uint32_t ev);
/* Adds c's socket to the epoll set (counted in nconn); tcp_conn_drop_fd takes it out and
 * closes it (c stays); tcp_conn_free does that too and frees c. */
int tcp_conn_add(tcp_conn_t *c, uint32_t ev);
void tcp_conn_drop_fd(tcp_conn_t *c);
void tcp_conn_free(tcp_conn_t *c);
/* The connection options of ours and accepted ones (net_stream_options, buffer sizes). */
int tcp_socket_options(int fd);
/* "lost the connection to rank R (host H): why", where a connection the kernel gave up on
 * (e: ETIMEDOUT) says what that means. */
void tcp_lost_text(char *err, int errlen, int r, int e);
/* Writes what the peer's UP connection can take; EPOLLOUT while something is left. */
int tcp_peer_flush(tcp_peer_t *p, char *err, int errlen);
/* c carries the peer's frames from now on; to a peer at another site after a TLS handshake
 * (state SECURING; net/secure.h, keyed from the handshake's nonces; server: we accepted c),
 * which tcp_peer_securing advances, from the progress loop like every other event. */
int tcp_peer_up(tcp_peer_t *p, tcp_conn_t *c, int server, char *err, int errlen);
/* An event on a SECURING connection: 1 progress, 0 none, -1 failure (err). */
int tcp_peer_securing(tcp_conn_t *c, char *err, int errlen);
/* Frees the TLS state and receive buffer of the peer's connection (SECURING or UP). */
void tcp_peer_tls_reset(tcp_peer_t *p);
/* Frames in from rank r: the number handled, or -1 (err). */
int tcp_peer_readable(int r, char *err, int errlen);
/* Flushes, says BYE and waits (bounded) for each peer's end of stream. */
void tcp_close_peers(void);

/* connect.c */
int tcp_fetch_card(int r, char *err, int errlen);
/* The peer's connection is needed: start one unless one exists or the peer's is coming. */
int tcp_ensure_connection(int r, char *err, int errlen);
/* Our connection's state changed or has input: 1 progress, 0 none, -1 failure. */
int tcp_connector_event(tcp_conn_t *c, uint32_t ev, char *err, int errlen);
/* Starts the attempts whose time has come: 1 if any did, 0, -1 on failure. */
int tcp_retry_due(char *err, int errlen);
void tcp_retry_unlink(tcp_conn_t *c);
/* Our SECURING connection was closed by the acceptor: a new attempt later (1), or -1. */
int tcp_connector_tls_closed(tcp_conn_t *c, const char *why, char *err, int errlen);

/* accept.c */
void tcp_acceptor_init(void);
/* Takes the connections waiting on listener lfd (net/accept.h): the events, never fails. */
int tcp_accept_all(int lfd);
int tcp_acceptor_event(tcp_conn_t *c, uint32_t ev, char *err, int errlen);
/* Drops the unproven connections past their deadline (after a pass's events). */
void tcp_expire_pending(void);
/* Our SECURING connection from the peer was closed by its connector: forgotten (it opens a
 * new one). 1, or -1 when frames wait for the peer and no connection of ours starts (err). */
int tcp_acceptor_tls_closed(tcp_conn_t *c, char *err, int errlen);
/* Closes the accepted SECURING connections whose ClientHello is past its deadline (after a
 * pass's events): 0, or -1 as tcp_acceptor_tls_closed. */
int tcp_expire_securing(char *err, int errlen);
/* Frees the unproven connections (close). */
void tcp_acceptor_close(void);
/* The summary line of dropped connections held back, when the window is over. */
void tcp_notes_roll(long long now);

#endif
