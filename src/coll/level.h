/*
 * The levels of the collectives and what they share (docs/collectives.md, "Levels").
 *
 * A collective call meets the levels in one order: inter (inter-communicators, red_inter.c
 * and the families' *_inter), direct (two members, blocking, no schedule: direct.c,
 * red_direct.c), sites (several sites: sites.c, site_*.c), hier (several hosts: level/hier.c,
 * level/hier_red.c), shm (one host's shared area: shm/), p2p (a point-to-point algorithm of
 * algo/ over the whole communicator). The entry point of each collective (bcast.c, ...)
 * asks them in that order; a level calls only the levels after it and the algorithms, never
 * an entry point, and an algorithm calls neither (src/layers.txt checks the circles).
 *
 * A level that is asked for a call either serves it (MPI_SUCCESS or an error class) or
 * answers COLL_DECLINED: it does not serve this call, has appended and sent nothing and took
 * no sequence number, and the entry asks the next level. Whether a level declines depends
 * only on what is the same at every member (arguments MPI requires to be consistent, the
 * environment, the communicator's layout), so every member runs the same level.
 */
#ifndef METAMPI_COLL_LEVEL_H
#define METAMPI_COLL_LEVEL_H

/* Not served, nothing done: ask the next level. Distinct from MPI_SUCCESS and every error
 * class. */
#define COLL_DECLINED (-2)

#endif
