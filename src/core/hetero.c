#include "core/hetero.h"

#include "core/errors.h"

static int is_bytes(MPI_Datatype t)
{
    return t == MPI_BYTE || t == MPI_CHAR || t == MPI_SIGNED_CHAR || t == MPI_UNSIGNED_CHAR;
}

int hetero_check_unlike_peer(const comm_t *c, int peer, MPI_Datatype type, const char *func)
{
    if (peer < 0 || is_bytes(type))
        return MPI_SUCCESS;
    int world = comm_peer_world_rank(c, peer);
    const arch_desc_t *theirs = peer_arch(world);
    if (arch_same(theirs, arch_local()))
        return MPI_SUCCESS;
    char a[96], b[96];
    return err_raise(c->handle, MPI_ERR_TYPE, func,
                     "datatype %#x cannot travel between rank %d (%s) and rank %d (%s) of "
                     "another architecture: conversion of data is not supported yet, only "
                     "bytes (MPI_BYTE, MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR)",
                     (unsigned)type, c->rank, arch_describe(arch_local(), a, sizeof a), peer,
                     arch_describe(theirs, b, sizeof b));
}
