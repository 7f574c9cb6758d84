/*
 * One connection in its handshake (handshake.h): the message being read and the one being
 * written, on a non-blocking socket. Reads stop at exactly the message's size — what follows
 * belongs to the frames, and an acceptor reads nothing but the HELLO before it has verified
 * it. Used by every owner of the handshake, acceptor and connector alike.
 */
#ifndef METAMPI_NET_HSIO_H
#define METAMPI_NET_HSIO_H

#include "net/handshake.h"

#include <stddef.h>

typedef struct net_hs_io {
    unsigned char in[NET_HS_MSG_MAX];
    size_t got;                     /* bytes of the message being read */
    unsigned char out[NET_HS_MSG_MAX];
    size_t out_len, out_off;        /* bytes still to write: [out_off, out_len) */
    int last_errno;                 /* the last failed read's error (0: end of stream) */
} net_hs_io_t;

/* Reads until in holds want bytes (at most NET_HS_MSG_MAX), never more: 1 complete, 0 not
 * yet, -1 end of stream or error (last_errno). Start each message with got = 0. */
int net_hs_read(net_hs_io_t *h, int fd, size_t want);

/* Queues the message (n bytes; replaces one fully written) and writes what the socket takes:
 * 1 all written, 0 the socket is full (net_hs_flush when it is writable), -1 an error
 * (errno). */
int net_hs_send(net_hs_io_t *h, int fd, const void *msg, size_t n);
/* Writes the rest: as net_hs_send. */
int net_hs_flush(net_hs_io_t *h, int fd);

static inline int net_hs_sending(const net_hs_io_t *h)
{
    return h->out_off < h->out_len;
}

#endif
