/*
 * The incoming side of one connection: reads the byte stream and cuts it into frames
 * (wire.h). A frame that fits the buffer is delivered in place (zero-copy: the pointer is
 * into the buffer, valid during the call); a frame whose body the layer above places
 * (transport.h, "Placement") is read straight into the iovecs it names, with no copy
 * between; a larger frame is read into a buffer of its own.
 *
 * Invariant: between calls the state is one of
 *   HDR     the next byte in the buffer (or on the socket) starts a frame header;
 *   PLACED  body_left bytes of a placed body are still to be read into the sink;
 *   BIG     a frame larger than the buffer is being read into `big`.
 */
#ifndef METAMPI_TCP_RX_H
#define METAMPI_TCP_RX_H

#include "transport/tcp/wire.h"
#include "transport/transport.h"

#include <stddef.h>
#include <sys/uio.h>

enum { TCP_RX_IOV = 64 };

typedef struct tcp_rx {
    unsigned char *buf;
    size_t cap, start, end;     /* buffered, unprocessed bytes: [start, end) */
    int state;
    tcp_frame_hdr_t h;
    tr_sink_t sink;             /* PLACED */
    size_t body_left;
    struct iovec iov[TCP_RX_IOV];
    int niov, iovi;
    unsigned char *big;         /* BIG */
    size_t big_got;
    int bye;                    /* the peer said BYE */
} tcp_rx_t;

typedef struct tcp_rx_ops {
    tr_deliver_fn deliver;
    tr_place_fn place;          /* NULL: nothing is placed */
    size_t place_min;           /* smallest body offered to place */
    size_t max_frame;
} tcp_rx_ops_t;

/* 0, or -1 when out of memory. */
int tcp_rx_init(tcp_rx_t *rx, size_t cap);
void tcp_rx_free(tcp_rx_t *rx);

/* Reads what fd has and handles up to budget frames from rank src. Returns the frames
 * handled; -1 with a message in err on a socket error or a malformed frame. *eof is set when
 * the peer closed its end (a frame cut short by it is an error). */
int tcp_rx_run(tcp_rx_t *rx, int fd, int src, const tcp_rx_ops_t *ops, int budget, int *eof,
               char *err, int errlen);

/* The same parser over bytes already in memory, for the fuzz target: feeds data (as if read
 * from a socket in pieces of at most `piece` bytes) and handles every frame. -1 with err on
 * a malformed stream, else the frames handled. Placed bodies are copied into the sink. */
int tcp_rx_feed(tcp_rx_t *rx, const void *data, size_t len, size_t piece, int src,
                const tcp_rx_ops_t *ops, char *err, int errlen);

#endif
