/* Two-phase collective I/O (twophase.c): the aggregator's side (aggregate.c). */
#ifndef METAMPI_IO_TWOPHASE_H
#define METAMPI_IO_TWOPHASE_H

#include <stddef.h>
#include <stdint.h>

/* A piece of file data at an aggregator, its bytes at data. */
typedef struct io_ref {
    int64_t off, len;
    unsigned char *data;
} io_ref_t;

/* The aggregator's file access: pieces sorted by offset, adjacent ones in one
 * pwritev/preadv (at most 1024 iovecs). Overlapping pieces of a write are written in order
 * (the later wins, as MPI leaves it undefined); of a read, each is read in full; a read past
 * the end of the file leaves the rest as it was. MPI_SUCCESS or an error class. */
int io_aggregate(int fd, io_ref_t *refs, size_t n, int write);

#endif
