/*
 * Where the bytes queued for one of the gateway's ranks came from: a FIFO of spans (link,
 * bytes) that mirrors the rank's outgoing queue byte for byte, so that the bytes the socket
 * takes can be credited to the links that brought them (link.h, "Flow control"). Bytes the
 * gateway makes itself (STOP, GO) are spans of no link (-1).
 */
#ifndef GATEWAY_ORIGINS_H
#define GATEWAY_ORIGINS_H

#include <stddef.h>

typedef struct gw_span {
    int link;                     /* the remote site whose link brought the bytes; -1 none */
    size_t left;
} gw_span_t;

typedef struct gw_origins {
    gw_span_t *span;              /* ring of cap entries, n used from first */
    size_t cap, first, n;
} gw_origins_t;

/* Called for each run of bytes of one link that left the queue. */
typedef void (*gw_origins_fn)(void *ctx, int link, size_t bytes);

/* Appends n bytes from link (merged with the last span when it is the same link). 0, or -1
 * out of memory. */
int gw_origins_push(gw_origins_t *o, int link, size_t n);
/* The oldest n bytes left the queue: fn for each link's share, oldest first (none for -1). */
void gw_origins_take(gw_origins_t *o, size_t n, gw_origins_fn fn, void *ctx);
/* Everything left the queue (written or dropped): fn for each span, then the FIFO is empty. */
void gw_origins_take_all(gw_origins_t *o, gw_origins_fn fn, void *ctx);
void gw_origins_free(gw_origins_t *o);

#endif
