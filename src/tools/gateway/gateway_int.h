/*
 * The gateway daemon's own state and what its files share (gateway.h says what the daemon
 * does): gateway.c is the loop, its start and its end, and the one-line reports;
 * handshake.c the listener and every connection before it is proven (the other gateways' WAN
 * streams we open, the ranks' and the lower sites' streams we accept); ranks.c this site's
 * ranks (reading their frames onto the links, writing the links' frames to them, STOP and GO);
 * streams.c the WAN streams (reading them into the links, writing the links' frames, heartbeats,
 * silence); reconnect.c a link whose streams broke (closing them, dialling again, the outage
 * limit). Nothing outside tools/gateway/ includes this.
 */
#ifndef GATEWAY_INT_H
#define GATEWAY_INT_H

#include "config.h"
#include "evloop.h"
#include "link.h"
#include "origins.h"

#include "net/accept.h"
#include "net/hsio.h"
#include "net/notes.h"
#include "net/gw_wire.h"
#include "net/retry.h"

#include <netinet/in.h>
#include <stdint.h>

enum {
    RANK_MAX_FRAME = (4 << 20) + 256,  /* = the gw transport's max_frame */
    FRAMES_PER_EVENT = 64,
    /* A rank's frames read per event, in bytes (at least one frame): the loop must come
     * round to the WAN streams, credit and STOP while a rank sends a burst of large frames
     * (ranks.c, rank_read) */
    RANK_BYTES_PER_EVENT = 1 << 20,
    CONNECT_TIMEOUT_MS = 60000,        /* the other gateway must listen by then */
};

enum hs_state { HS_NONE, HS_CONNECTING, HS_CHALLENGE, HS_WELCOME };

/* A connection whose HELLO has not been read yet (we accepted it), or a stream we open. */
typedef struct hs {
    int fd, state;
    int site, stream;               /* our stream being opened; -1 for an accepted one */
    uint32_t gen;                   /* ours: the link's generation it opens (lconn_t) */
    int again;                      /* ours: the link was open before (a reconnection): no
                                     * failure is final, the outage limit bounds it */
    net_retry_t retry;              /* ours, again: the backoff between attempts */
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE];
    net_hs_io_t io;
    net_pending_t pending;          /* accepted: until its HELLO */
    long long deadline, retry_at;   /* ours: the last try's, the next */
    long long step_deadline;        /* ours: the other gateway's answer to this step */
    long long silent_since;         /* ours, first opening: since when its kernel has taken
                                     * our connections and its process answered none (0: it
                                     * answered, or nothing was taken yet) */
    struct sockaddr_storage from;
    struct hs *next;
} hs_t;

typedef struct rconn {
    int rank, fd;
    int bye, gone;                  /* said BYE / its connection ended */
    int blocked;                    /* not read: its next frame's link is full */
    int backlog;                    /* frames may wait in rx */
    net_rx_t rx;
    net_outq_t out;
    gw_origins_t from;              /* the link each byte of out came from (its credit) */
} rconn_t;

typedef struct sref {
    int site, stream;
} sref_t;

/* The connection state of one link (reconnect.c; link.h has its frames' side). */
typedef struct lconn {
    uint32_t gen;                   /* its streams' generation: the dialling side counts its
                                     * breaks, the other adopts the count of the HELLOs */
    int opened;                     /* it was up once (the other gateway's first RESUME) */
    int down;                       /* broken, not resumed yet */
    long long alive_at;             /* ms: the last frame the other gateway sent, or when the
                                     * link broke: the outage counts from there */
    long long down_at;              /* ms: when it broke */
    long long ack_due;              /* ms: frames taken must be acknowledged by then; 0:
                                     * none waits */
    char cause[200];                /* why it broke (the first failure since it was up) */
    char last[200];                 /* the last attempt's failure, since */
} lconn_t;

typedef struct gwd {
    const gw_config_t *c;
    gw_keys_t keys;                 /* derived from the job key (net/auth.h) */
    ev_loop_t loop;
    int lfd, sigfd;
    uint32_t size;
    gw_link_t *links;               /* nsites; links[own site] unused */
    lconn_t *conn;                    /* nsites, likewise */
    unsigned char instance[GW_INSTANCE]; /* this gateway's, drawn at its start (link.h) */
    net_notes_t link_notes;         /* broken and resumed links' lines */
    sref_t *srefs;                  /* nsites * streams */
    hs_t *hs;                       /* handshakes in progress */
    net_acceptor_t acc;             /* the accepted ones among them, oldest first */
    net_notes_t notes;              /* dropped-connection lines */
    long long last_pass;            /* when the loop last ran (a suspended gateway) */
    rconn_t *ranks;                 /* per rank of the job; used for this site's */
    unsigned char *stopped;         /* per rank of the job: our ranks were told STOP for it */
    uint32_t *stopped_list, nstopped; /* those ranks */
    net_rx_ops_t rank_ops, wan_ops;
    rconn_t *cur;                   /* the rank being read (deliver callback) */
    gw_link_t *cur_link;            /* the link being read */
    char cur_err[256];
    int cur_bad;
    int ending;
    long long rate_at;
    long long t_start;
    int links_checked;              /* the links the lower sites open are all up */
    const char *congestion;         /* the WAN streams' TCP congestion control; NULL: the
                                     * kernel's default */
    size_t rank_read_max;           /* the most bytes of frames one read of a rank began
                                     * (rank_read; the stats line's rank_read_max) */
} gwd_t;

extern gwd_t gwd;

/* gateway.c: reports. fail: the one line on --report-fd, then exit 1; note: a diagnostic on
 * stderr that does not end the job. */
_Noreturn void gwd_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gwd_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "the WAN link to site B (10.0.2.1:7000)" */
const char *gwd_link_text(int s);
const char *gwd_site_name(int s);

static inline int gwd_my_site(void)
{
    return gwd.c->site;
}

/* Whether this gateway opens the link to site s (the lower site, unless one of the two is
 * unreachable: then that one). */
static inline int gwd_dials(int s)
{
    return gw_config_dialer(gwd.c, gwd_my_site(), s) == gwd_my_site();
}

/* handshake.c */
void gwd_hs_init(void);
void gwd_listen(void);
/* Opens the streams of the links this gateway dials (gwd_dials). */
void gwd_open_links(void);
/* Unproven connections past their deadline, our attempts due or timed out. */
void gwd_hs_after_pass(long long now);
/* Opens the streams of the link to site (one this gateway dials) again, in the link's generation:
 * attempts under way are dropped. */
void gwd_redial(int site);
/* The cause of an attempt that failed, for the link's report (reconnect.c). */
void gwd_attempt_failed(int site, const char *why);

/* reconnect.c */
/* Stream i of the link to site failed (why, which names the stream): the link breaks (every stream is closed, the
 * higher site dials again), or, when the link is ending (BYE) or this gateway is, the stream
 * is closed quietly. */
void gwd_link_lost(int site, int i, const char *why);
/* An authenticated HELLO of generation gen for the link to site (which dials it): a newer
 * generation breaks the streams of the last. 1 when the stream may be accepted, 0 when it is
 * of an older generation. */
int gwd_link_generation(int site, uint32_t gen);
/* Per pass: links resumed (a line), links down longer than the outage limit (the end). */
void gwd_links_after_pass(long long now);
/* Closes fd with a reset: the other gateway sees the stream fail, not end (an end of stream
 * without BYE is a gateway that died). */
void gwd_close_reset(int fd);

/* streams.c */
void gwd_streams_init(void);
void gwd_choose_congestion(void);
/* Options of our sockets; wan: a WAN stream's (congestion control, buffer sizes). */
void gwd_socket_options(int fd, int wan);
/* Stream i of the link to site is proven on fd (we accepted it: server; na, nc the
 * handshake's nonces): TLS starts on it when the job encrypts (net/secure.h), then it carries
 * WAN frames. */
void gwd_stream_up(int site, int i, int fd, int server, const unsigned char na[AUTH_NONCE],
                   const unsigned char nc[AUTH_NONCE]);
/* Per pass: rates, streams left with frames, forwarding, credit, batches, heartbeats,
 * silence. Returns nonzero when frames were left that no event will announce. */
int gwd_streams_after_pass(long long now);
/* The links' forwarded frames that wait for this site's ranks. */
int gwd_forward_link(int site);
/* SIGTERM: BYE on every stream, flush, the peers' end of stream (bounded). */
void gwd_end_links(void);
/* After a pass that came long after the last: every stream's silence starts again. */
void gwd_streams_clocks_restart(long long now);

/* grow.c: watches --control-fd, where the helper announces spawned ranks, and grows the
 * per-rank tables for them. */
void gwd_grow_init(void);

/* ranks.c */
void gwd_ranks_init(void);
/* Rank r is proven on fd: 0, or -1 (out of memory; fd is the caller's to close). */
int gwd_rank_up(rconn_t *r, int fd);
/* Per pass: queued frames out, ranks left unread in. Nonzero when frames were left. */
int gwd_ranks_after_pass(void);
/* STOP and GO for the ranks whose frames the links park (link.h, "Flow control"). */
void gwd_go_if_unparked(void);
/* Frames from link l for this site's ranks (gw_link_forward's callback). */
int gwd_forward(void *ctx, const gw_frame_t *h, unsigned char *f, size_t n, int owned,
                char *err, int errlen);

#endif
