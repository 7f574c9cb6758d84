/* One direction of a WAN link between two sites: random loss, a token-bucket shaper with a
 * bounded queue, then a constant propagation delay.
 *
 * Invariant: a packet's departure time is fixed when it arrives (the shaper is FIFO and the
 * delay constant), so the packets of a link are queued in arrival order and that order is
 * also departure order; the emulator only has to watch the head of each link. Late wake-ups
 * of the emulator delay packets but never cost throughput: the bucket's state is virtual
 * (computed from arrival times), not the time the emulator happened to run. */
#ifndef WANEMU_LINK_H
#define WANEMU_LINK_H

#include <stddef.h>
#include <stdint.h>

typedef struct wan_params {
    uint64_t delay_ns;      /* one-way propagation delay */
    uint64_t rate_bps;      /* bit/s; 0: unlimited */
    uint64_t burst_bytes;   /* bucket depth */
    uint64_t queue_ns;      /* longest wait in the shaper's queue; later arrivals are dropped */
    double loss;            /* probability that a packet is dropped on arrival */
} wan_params_t;

typedef struct pkt {
    struct pkt *next;
    uint64_t due_ns;        /* when it leaves the link */
    size_t wire_bytes;      /* what it costs the link (packet.h) */
    size_t len;             /* of data, as read from the device */
    unsigned char data[];
} pkt_t;

typedef struct link_stats {
    uint64_t in, out, out_bytes, lost, overflow;
} link_stats_t;

typedef struct link {
    int src, dst;           /* sites */
    pkt_t *head, *tail;
    uint64_t release_ns;    /* when the previous packet left the shaper */
    double tokens;          /* bytes in the bucket at release_ns */
    link_stats_t st;
} link_t;

void link_init(link_t *l, int src, int dst, const wan_params_t *p);

/* Whether an arriving packet is lost, given u uniform in [0, 1). */
int link_lost(const wan_params_t *p, double u);

/* Admits the packet (sets its due_ns and queues it) or returns 0 when the shaper's queue
 * is full (the caller frees it). */
int link_admit(link_t *l, const wan_params_t *p, pkt_t *k, uint64_t now_ns);

/* The head packet if it is due at now_ns (removed from the link), else NULL. */
pkt_t *link_due(link_t *l, uint64_t now_ns);

#endif
