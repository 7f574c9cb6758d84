/*
 * Process groups (MPI-3.1 §6.3): ordered sets of job (world) ranks, reference counted and
 * shared by communicators.
 *
 * Invariants:
 *  - refs counts every holder: each communicator that uses the group as local or remote
 *    group, and each outstanding user handle (user_refs of them). The last release frees the
 *    group; the predefined groups (world, self, empty) are static and never reach 0.
 *  - handle is a live handle exactly while user_refs > 0. MPI_Comm_group and the group
 *    constructors hand out a reference to the same handle (MPI_Group_free drops one), so a
 *    group whose user references are all freed is no longer reachable through any handle
 *    even while communicators still use it. MPI_GROUP_EMPTY is immortal and not counted.
 *  - world[i] are distinct job ranks; rank is the position of this process, or MPI_UNDEFINED.
 */
#ifndef METAMPI_GROUP_H
#define METAMPI_GROUP_H

#include <mpi.h>

typedef struct group {
    MPI_Group handle;   /* MPI_GROUP_NULL while the group has no user handle */
    int refs;
    int size;
    int rank;           /* this process's rank in the group, or MPI_UNDEFINED */
    int *world;         /* world[i]: job rank of member i; NULL means the identity (world group) */
    int user_refs;      /* user handles outstanding (see above) */
} group_t;

/* Registers MPI_GROUP_EMPTY; called once by MPI_Init (after the job is known). */
void group_init(int world_rank, int world_size);
/* Drops every remaining group and the handle table (MPI_Finalize). */
void group_finalize(void);

/* The group behind a handle (MPI_GROUP_EMPTY included), or NULL. */
group_t *group_lookup(MPI_Group h);
/* A new group of n members with the given world ranks (copied); NULL on no memory. The
 * caller owns the one reference (n == 0 gives the empty group). */
group_t *group_new(int n, const int *world_ranks);
/* The predefined groups: empty (for results with no members; never counted), the world
 * group (identity map) and the group of MPI_COMM_SELF. */
group_t *group_empty(void);
group_t *group_world(void);
group_t *group_self(void);
void group_retain(group_t *g);
void group_release(group_t *g);
/* A user handle for g taking over one reference the caller holds (returns MPI_GROUP_NULL
 * and keeps the reference when out of memory). */
MPI_Group group_publish(group_t *g);
/* MPI_Group_free: drops one user reference (the handle dies with the last one). */
void group_unpublish(group_t *g);

static inline int group_world_rank(const group_t *g, int rank)
{
    return g->world ? g->world[rank] : rank;
}

/* Position of job rank w in g, or MPI_UNDEFINED (linear; see group_rank_map for many). */
int group_find(const group_t *g, int w);
/* map[w] = position of job rank w in g, or MPI_UNDEFINED, for every job rank w (those of other
 * parts met so far included: runtime/procs.h); NULL on no
 * memory. The caller frees it. */
int *group_rank_map(const group_t *g);

/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL (MPI-3.1 §6.3.1). */
int group_compare(const group_t *a, const group_t *b);

/* Set operations (MPI-3.1 §6.3.2) and selections by (already validated) ranks; each returns
 * a new group with one reference, or NULL when out of memory. */
typedef enum { GROUP_UNION, GROUP_INTERSECTION, GROUP_DIFFERENCE } group_setop_t;
group_t *group_setop(const group_t *a, const group_t *b, group_setop_t op);
group_t *group_incl(const group_t *g, int n, const int *ranks);
group_t *group_excl(const group_t *g, int n, const int *ranks);

#endif
