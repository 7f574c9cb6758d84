/*
 * The tools interface (MPI-3.1 §14.3), shared by api/mpit_*.c: control variables are the
 * entries of the tunables registry (runtime/tunables.def), performance variables are the
 * core's counters (core/traffic.h, core/wan_stats.h, core/match.h), categories group both.
 *
 * Invariants:
 *  - Every MPI_T call but MPI_T_init_thread and MPI_T_finalize runs under mpit_lock, taken
 *    by mpit_enter only while the interface is initialised (else it returns
 *    MPI_T_ERR_NOT_INITIALIZED): the calls are safe from any thread, whatever the MPI thread
 *    level, and never call into the MPI library's own locks.
 *  - Indices are fixed for the life of the process: no variable or category is ever added
 *    or removed, so MPI_T_category_changed's stamp never changes.
 *  - Handles and sessions are pointers this module handed out; every call checks a handle or
 *    session against the live ones before using it.
 *  - MPI_T calls report errors by their return value only (no error handler runs).
 */
#ifndef METAMPI_API_MPIT_H
#define METAMPI_API_MPIT_H

#include <mpi.h>

/* MPI_SUCCESS with the lock held, or MPI_T_ERR_NOT_INITIALIZED without it. */
int mpit_enter(void);
/* Releases the lock and returns rc. */
int mpit_leave(int rc);
/* Takes the lock whether or not the interface is initialised (MPI_T_init_thread). */
void mpit_lock_always(void);
/* Adds delta to the count of MPI_T_init_thread calls not yet finalized; returns the new
 * count. Under the lock. */
int mpit_count_add(int delta);

/* Copies src into dst as MPI_T's strings are returned (MPI-3.1 §14.3.3): with len NULL,
 * nothing; with dst NULL or *len 0, only the length (with the terminator) into *len; else
 * at most *len - 1 characters and a terminator, and *len = characters stored + 1. */
void mpit_copy_string(const char *src, char *dst, int *len);

/* Categories: first one per reader bit of the registry (enum tun_reader, in bit order: the
 * control variables), then those of the performance variables. */
enum { MPIT_CAT_READERS = 9, MPIT_CAT_TRAFFIC = MPIT_CAT_READERS, MPIT_CAT_MATCHING,
       MPIT_CATEGORIES };

/* Control variables: the number, and the registry entry (tun_id_t) of index i. */
int mpit_cvar_count(void);
int mpit_cvar_tunable(int i);
/* The category of control variable i, and of performance variable i. */
int mpit_cvar_category(int i);
int mpit_pvar_count(void);
int mpit_pvar_category(int i);

/* Frees every session, handle and enumeration (the last MPI_T_finalize). */
void mpit_cvar_release(void);
void mpit_pvar_release(void);

#endif
