/*
 * Spare requests per thread (docs/threads.md, "Splitting the lock", step (b)): what lets a
 * request be made and freed without a lock, once the fast calls run off the object lock
 * (step (e)). Today every call still takes the one core lock; the cache changes nothing a
 * program can see.
 *
 * A spare keeps its slot. A request freed with a handle keeps its index of the request table
 * (util/handles.h: handle_withdraw empties the slot, the index stays out of the free list), so
 * reusing it is a pop from this thread's list and one store into the slot (handle_publish);
 * no free list and no lock is touched. Handle values are reused as before (a freed handle
 * reads as invalid until its index is reused).
 *
 * Two levels:
 *  - the thread's cache (req_cache, _Thread_local): at most REQ_CACHE_MAX spares, a LIFO
 *    list through request_t.next, touched only by its thread — request_new pops, request_free
 *    pushes (core/request.c, inline in both);
 *  - the pool (request_cache.c): whole caches moved there when one is full, and handed back
 *    to a thread whose cache is empty; at most REQ_POOL_BATCHES of them (so ≤ 1024 spares,
 *    what the one list of spares held before), further ones are freed. A new request (malloc
 *    and a reserved slot) is made only when the pool is empty too.
 * Moving a cache is O(1) (a list and its length), so a pattern that allocates and frees more
 * than REQ_CACHE_MAX at a time pays one pool lock per REQ_CACHE_MAX requests, nothing per
 * request; one that stays within the cache never leaves it.
 *
 * The pool lock (a mutex of request_cache.c, a leaf: nothing is taken while it is held)
 * serialises the pool, the registry of caches, and the request table's bookkeeping (reserving
 * and releasing indices: handle_new, handle_release_live, handle_table_destroy). Not the
 * core lock: a thread's cache is drained at its exit (a pthread key's destructor), outside
 * any MPI call, when the core lock is off too (MPI_THREAD_SERIALIZED: another thread may be
 * in MPI meanwhile).
 *
 * Registry: a thread's cache is registered (linked into a list under the pool lock, and its
 * key set) by the first slow path it takes; a zeroed cache (every thread's at its start) sends
 * both request_new and request_free there. MPI_Finalize (request_finalize) frees the spares
 * of every registered cache and the pool's; a thread's exit moves its cache to the pool and
 * unregisters it. So no spare outlives MPI_Finalize, nor a thread's cache its thread.
 */
#ifndef METAMPI_CORE_REQUEST_CACHE_H
#define METAMPI_CORE_REQUEST_CACHE_H

#include "util/handles.h"

struct request;

enum { REQ_CACHE_MAX = 64, REQ_POOL_BATCHES = 16 };
enum { CACHE_NEW = 0, CACHE_REGISTERED, CACHE_EXITED };

typedef struct req_cache {
    struct request *head; /* the spares, last freed first, linked through next */
    int room;             /* REQ_CACHE_MAX - their number; 0 also while not registered */
    int registered;       /* CACHE_NEW (0: every thread's at its start), CACHE_REGISTERED,
                           * CACHE_EXITED (its thread's exit drained it: never again) */
    struct req_cache *prev, *next; /* the registry (pool lock) */
} req_cache_t;

/* Initial-exec: one %fs-relative access, not a __tls_get_addr call per use (the library's
 * TLS is these few bytes, which glibc's static TLS reserve holds also when libmpi.so is
 * loaded by dlopen, as mpi4py does). */
extern _Thread_local req_cache_t req_cache __attribute__((tls_model("initial-exec")));

/* The table of MPI_Request handles (core/request.c's). */
extern handle_table_t request_table;

/* The calling thread's cache is empty: refills it from the pool and pops one, or makes a new
 * request (with a reserved slot, which holds NULL). NULL when out of memory. */
struct request *req_cache_refill(void);
/* The calling thread's cache is full (or not registered): moves it to the pool (or frees it),
 * then keeps r, whose slot is withdrawn already. */
void req_cache_overflow(struct request *r);
/* MPI_Finalize: frees the spares of every thread and of the pool, and the request table. */
void req_cache_finalize(void);

/* For tests (tests/unit/test_request_cache.c): how many spares the pool holds, how many
 * caches are registered. Under the pool lock. */
int req_cache_pool_count(void);
int req_cache_registered(void);

#endif
