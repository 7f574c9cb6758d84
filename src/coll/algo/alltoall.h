/*
 * Alltoall(v,w) over a communicator (algo/alltoall.c): the sides of an exchange and the
 * algorithms of the selection table (coll/table.c: linear, pairwise, bruck).
 *  linear    every send and receive posted at once (starting with the neighbours at distance
 *            1, 2, ...), then the own block copied. Small and medium blocks.
 *  pairwise  n - 1 rounds; in round k send to me + k and receive from me - k, one round at a
 *            time (bounded traffic for large blocks).
 *  bruck     (Alltoall only) ceil(log2 n) rounds through packed temporaries: round d sends
 *            every block whose (rotated) index has bit d set to me + d. Tiny blocks, many
 *            ranks: log2(n) messages instead of n - 1.
 * Data moves typed straight between the users' buffers, except for MPI_IN_PLACE, where the
 * receive buffer's contents are first packed into a temporary they are then sent from.
 */
#ifndef METAMPI_COLL_ALGO_ALLTOALL_H
#define METAMPI_COLL_ALGO_ALLTOALL_H

#include "coll/move.h"

/* One side of an exchange: how block i (to or from peer i) is laid out. */
enum { SIDE_UNIFORM, SIDE_V, SIDE_W, SIDE_PACKED };
typedef struct side {
    int kind;
    char *base;
    dtype_t *dt;                 /* UNIFORM, V */
    size_t count;                /* UNIFORM: elements per block */
    const int *counts, *displs;  /* V (displacements in extents), W (in bytes) */
    dtype_t *const *types;       /* W */
    const size_t *off;           /* PACKED: block i is bytes off[i] .. off[i+1]-1 */
} side_t;

/* Block i of side x (to or from peer i). */
p2p_data_t a2a_blk(const side_t *x, int i);
/* MPI_IN_PLACE: the receive side's blocks packed into a temporary, which becomes the send
 * side (sd). Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int a2a_pack_in_place(icoll_sched_t *s, int n, const side_t *rd, side_t *sd);
/* Linear or pairwise (algo: COLL_A2A_*) exchange over an intra- or inter-communicator
 * (between groups always linear). */
void a2a_exchange(icoll_sched_t *s, comm_t *c, const side_t *sd, const side_t *rd, int algo);
/* Bruck over an intra-communicator, uniform sides of bb-byte blocks. */
int a2a_bruck(icoll_sched_t *s, comm_t *c, const side_t *sd, const side_t *rd, size_t bb);

#endif
