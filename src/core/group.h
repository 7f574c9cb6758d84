/*
 * Process groups (MPI-3.1 §6.3): ordered sets of job (world) ranks, reference counted and
 * shared by communicators.
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
} group_t;

/* The group behind a handle (MPI_GROUP_EMPTY included), or NULL. */
group_t *group_lookup(MPI_Group h);
/* A new group of n members with the given world ranks (copied); NULL on no memory. */
group_t *group_new(int n, const int *world_ranks);
void group_retain(group_t *g);
void group_release(group_t *g);
static inline int group_world_rank(const group_t *g, int rank)
{
    return g->world ? g->world[rank] : rank;
}

#endif
