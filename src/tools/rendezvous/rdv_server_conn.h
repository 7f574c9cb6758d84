/* The rendezvous server's inner parts (rdv_server.h is its interface): a connection of a part
 * and the server's state, shared by the loop (rdv_server.c), the connections' output and the
 * log (rdv_server_conn.c) and the decisions on JOINs (rdv_server_join.c). Single-threaded. */
#ifndef RDV_SERVER_CONN_H
#define RDV_SERVER_CONN_H

#include "rdv_server.h"
#include "rdv_wire.h"

#include "net/accept.h"
#include "net/notes.h"
#include "net/secure.h"
#include "net/sock.h"

#include <stddef.h>
#include <stdint.h>

/* C_TLS: the key is proven (VERDICT ACCEPT sent in clear); TLS is being set up, and from
 * then on every byte both ways goes through c->sec (docs/wan-security.md). */
/* C_SERVING: the part has its layout and keeps the connection while its ranks run
 * (spawning: rdv_server_serve.c). */
typedef enum { C_HELLO, C_TLS, C_JOIN, C_WAITING, C_SERVING, C_CLOSING } cstate_t;

typedef struct conn {
    int fd;
    cstate_t state;
    char peer[NET_ADDR_TEXT]; /* "address:port", for the log */
    net_pending_t pending;    /* HELLO, TLS and JOIN: in the handshake */
    net_secure_t *sec;        /* from C_TLS on */
    short tls_wants;          /* C_TLS: what the TLS handshake waits for */
    unsigned char na[AUTH_NONCE];
    rdv_mac_ctx_t rx, tx;
    unsigned char *in;
    size_t inlen, incap;
    rdv_buf_t out;
    size_t outoff;
    int wrote_eof;            /* CLOSING: the output is flushed and shut down */
    int broken;               /* a write failed: the peer did not get everything */
    int delivered;            /* C_SERVING: the layout has left entirely */
    long long t_closing;      /* when it entered CLOSING */
    int site;                 /* the site it joined, -1 */
    unsigned char *join;      /* its JOIN body; j points into it */
    size_t joinlen;
    rdv_join_t j;
} conn_t;

typedef struct srv {
    const rdv_server_config_t *cfg;
    conn_t **c;
    int n, cap;
    conn_t **site_conn;       /* per site of the description: the part that joined */
    int joined;
    long long deadline;       /* 0 until the first JOIN */
    enum { RUNNING, HANDED_OUT, CALLED_OFF } end;
    long long t_end;
    int undelivered;          /* a LAYOUT could not be written */
    long long accept_at;      /* the listener is not read before (the handshakes are full) */
    net_acceptor_t acc;       /* the connections in the handshake (HELLO, JOIN) */
    net_notes_t notes;        /* "dropped" lines */
    uint32_t next_id;         /* the next job-wide number to hand out (spawning) */
    struct numbers *asked;    /* numbers handed out whose gateways have not all answered */
    int nasked;
} srv_t;

/* A log line (cfg->log), printf-style. */
void rdv_srv_log(srv_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A "dropped a connection" line, at most NET_NOTES_MAX a minute (net/notes.h). */
void rdv_srv_drop_note(srv_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void rdv_conn_free(conn_t *c);
/* Forgets c (and frees it); a joined part's site is missing again. */
void rdv_conn_drop(srv_t *s, conn_t *c);
/* Writes c's pending output as far as the socket takes it now. */
void rdv_conn_flush(conn_t *c);
/* The last frame to c: flushed, then the output shut down (rdv_server_conn.c). */
void rdv_conn_close_after(srv_t *s, conn_t *c, long long now);
void rdv_conn_send_text(conn_t *c, uint8_t type, const char *text);
/* REFUSED with the reason to c (logged), then closed after it. */
void rdv_conn_refuse(srv_t *s, conn_t *c, const char *site, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "a, b and c" of the sites not joined yet. */
void rdv_srv_missing(const srv_t *s, char *buf, size_t cap);
/* Every site is there: the layout goes to each part; the pending handshakes are dropped. */
void rdv_srv_hand_out(srv_t *s, long long now);
/* The job will not start: every waiting part is told why. */
void rdv_srv_call_off(srv_t *s, long long now, const char *why);
/* Handles c's JOIN. 0, or -1 when c was dropped. */
int rdv_srv_on_join(srv_t *s, conn_t *c, const unsigned char *body, size_t len,
                    long long now);

/* rdv_server_serve.c: a running job's frames (NUMBERS, GW_OK) from serving part c; 0, or -1
 * when c was dropped (it broke the protocol). */
int rdv_srv_on_frame(srv_t *s, conn_t *c, uint8_t type, const unsigned char *body,
                     size_t len);
/* Serving part c is going: the gateway answers still awaited from it are given as ready
 * (its ranks have ended, its gateway with them); what it asked for is forgotten. */
void rdv_srv_part_gone(srv_t *s, const conn_t *c);
void rdv_srv_serve_free(srv_t *s);

#endif
