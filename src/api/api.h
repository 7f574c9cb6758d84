/*
 * Conventions of the API layer (the only layer that knows the MPI calling convention).
 *
 * Each MPI function is written once, as PMPI_Name, and exported; MPI_Name is a weak alias of
 * it, so a profiling tool can define MPI_Name and call PMPI_Name (MPI-3.1 §14.2). Inside the
 * library, code never calls an MPI_ name — only internal functions — so interposing a tool
 * never changes what the library does.
 */
#ifndef METAMPI_API_H
#define METAMPI_API_H

#include <mpi.h>

#include "core/comm.h"
#include "core/errors.h"
#include "core/lock.h"
#include "core/state.h"

#define API_EXPORT __attribute__((visibility("default")))

/* The first line of every MPI function (but MPI_Wtime and MPI_Wtick, which touch no state):
 * takes the core lock when it is on (MPI_THREAD_MULTIPLE, the progress thread) and releases
 * it on every return (core/lock.h). One predictable branch when it is off. */
static inline void api_lock_leave(const int *taken)
{
    core_lock_exit(*taken);
}
#define API_ENTER()                                                                            \
    int api_lock_taken_ __attribute__((cleanup(api_lock_leave))) = core_lock_enter()

#define API_WEAK_ALIAS(name)                                                                   \
    extern __typeof__(PMPI_##name) MPI_##name                                                  \
        __attribute__((weak, alias("PMPI_" #name), visibility("default")));

/* MPI_ERR_COMM (on MPI_COMM_WORLD) for a handle that is not a usable communicator, with a
 * message that tells MPI_COMM_NULL, a communicator MPI_Comm_idup is still creating and an
 * invalid handle apart. */
int api_raise_bad_comm(MPI_Comm comm, const char *func);

/* Looks up comm, raising MPI_ERR_COMM (from function func) when it is not a communicator. */
#define API_GET_COMM(var, comm, func)                                                          \
    comm_t *var = comm_lookup(comm);                                                           \
    if (!var)                                                                                  \
        return api_raise_bad_comm(comm, func);

/* API_GET_COMM for local calls that neither communicate nor need the context id (names,
 * hints, handlers, attributes, queries of the groups and the topology): they also accept a
 * communicator whose MPI_Comm_idup has not completed, as MPICH and Open MPI do (mpi4py sets
 * the handler of a new communicator before waiting for Comm.Idup). */
#define API_GET_COMM_LOCAL(var, comm, func)                                                    \
    comm_t *var = comm_lookup_pending(comm);                                                   \
    if (!var)                                                                                  \
        return api_raise_bad_comm(comm, func);

#define API_CHECK_PTR(ptr, comm, func, argname)                                                \
    do {                                                                                       \
        if (!(ptr))                                                                            \
            return err_raise(comm, MPI_ERR_ARG, func, "argument %s is NULL", argname);         \
    } while (0)

#endif
