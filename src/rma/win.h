/*
 * One-sided communication (MPI-3.1 chapter 11): window objects and the emulation of remote
 * memory access over point-to-point messages (docs/rma.md).
 *
 * A window owns a private duplicate of the communicator it was created on (win_t.comm), so
 * its traffic has a context of its own and never matches a user receive. Every message to a
 * target travels on that context with tag RMA_TAG_OP, so the messages of one origin reach a
 * target in the order they were issued (MPI's non-overtaking rule): the target applies them
 * in that order, which gives accumulate ordering and makes "everything before this unlock
 * or flush is applied" a property of the message that carries the unlock or flush. Replies
 * (get data, lock grants, acknowledgements) come back on a tag the origin chose per request
 * (RMA_TAG_REPLY0 and above), for which it posted a receive before it sent the request.
 *
 * The target applies the operations in its progress engine (rma_progress, a poller of
 * core/progress.h while a window exists): whenever the process is inside MPI. Without a progress thread, a target
 * that computes outside MPI delays passive-target epochs that address it (docs/rma.md).
 *
 * Counting (fence): sent[t] counts the operations this process sent to target t, applied[o]
 * those of origin o applied here, both since the window was created. A fence exchanges
 * sent[] (alltoall), and returns when applied[o] reached what every origin o said it sent.
 *
 * Fence epochs: fences counts the fences this process has completed, and every message
 * carries its origin's count (rma_hdr_t.epoch). A target applies a message only once its own
 * count has reached the message's: an origin that left a fence early may already send the
 * next epoch's operations to a target still inside that fence, which keeps them (and the
 * later messages of that origin) until it leaves. So a fence needs no barrier after its
 * exchange, and a fence with MPI_MODE_NOPRECEDE no communication at all. An origin is never
 * more than one fence ahead of a target (it cannot finish a fence's exchange before the
 * target entered it), so counts compare modulo 2^32.
 */
#ifndef METAMPI_RMA_WIN_H
#define METAMPI_RMA_WIN_H

#include "core/attr.h"
#include "core/comm.h"
#include "core/info.h"

#include <mpi.h>
#include <stdint.h>

#define WIN_KIND 0x24000000u

enum { RMA_TAG_OP = 0, RMA_TAG_REPLY0 = 1 };
#define RMA_TAG_REPLY_SPAN 0x3fffffff

/* The synchronisation a process holds towards a target (win_t.lock_held; win_t.lock_all is
 * 0, or one of the last two). NOCHECK: the epoch was opened with MPI_MODE_NOCHECK (no other
 * process holds or asks for a conflicting lock), so no lock was taken at the target, and the
 * unlock is a flush. */
enum { RMA_UNLOCKED = 0, RMA_LOCKED_SHARED, RMA_LOCKED_EXCLUSIVE, RMA_LOCKED_NOCHECK };

struct rma_pending;
struct rma_hdr;
typedef struct rma_region {
    uintptr_t base;
    size_t size;
} rma_region_t;
struct rma_incoming;
struct rma_waiter;

typedef struct win {
    MPI_Win handle;
    unsigned long serial;        /* this process's windows in creation order */
    comm_t *comm;                /* the private duplicate (see above) */
    void *base;
    MPI_Aint size;
    int disp_unit;
    int flavor;                  /* MPI_WIN_FLAVOR_CREATE / ALLOCATE */
    int model;                   /* MPI_WIN_UNIFIED */
    void *allocated;             /* memory MPI_Win_allocate took (freed with the window) */
    void *shared_seg;            /* MPI_Win_allocate_shared: the members' segment */
    size_t shared_bytes;
    MPI_Aint *sizes;             /* every member's size and displacement unit */
    int *disp_units;
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    attr_list_t attrs;
    info_t *info;
    /* origin side */
    uint64_t *sent;              /* see "Counting" */
    char *unconfirmed;           /* per target: a put or accumulate since the last flush or
                                  * unlock message to it (see rma_flush) */
    int fence_epoch;             /* a fence opened an epoch that a later fence may close */
    uint32_t fences;             /* fences completed here (see "Fence epochs") */
    uint64_t fence_ops;          /* operations issued in the fence epoch open now */
    int *lock_held;              /* per target: RMA_UNLOCKED / _SHARED / _EXCLUSIVE */
    int lock_all;                /* MPI_Win_lock_all holds every target (RMA_LOCKED_*) */
    int nlocks;                  /* targets locked by MPI_Win_lock */
    int next_reply;              /* the next reply tag, RMA_TAG_REPLY0 + (n mod span) */
    struct request **lock_reply; /* per target: the grant of a lock request not yet awaited
                                  * (ops.c, rma_lock), allocated on first use */
    struct rma_pending *pending; /* operations not yet complete at this origin */
    int user_requests;           /* of them, those a user request (Rput ...) waits for */
    int *access;                 /* generalized active target: ranks of the MPI_Win_start */
    int naccess;                 /* group, or -1 outside such an access epoch */
    char *access_member;         /* per rank: in that group */
    /* target side */
    uint64_t *applied;
    int *exposure;               /* ranks of the MPI_Win_post group, */
    int nexposure;               /* or -1 outside such an exposure epoch */
    struct rma_region *attached; /* dynamic windows: memory attached here, */
    int nattached, attached_cap; /* which every access is checked against */
    int *posts;                  /* per target: its MPI_Win_post notices not yet used */
    int *completes;              /* per origin: its MPI_Win_complete notices not yet used */
    struct rma_incoming *in_head, *in_tail; /* taken messages, in arrival order */
    uint64_t *held_at;           /* per origin: the serve pass that held its messages back */
    uint64_t serve_pass;
    uint64_t searched_at;        /* match_arrivals(comm) when the target last searched for them */
    int shared_holders;          /* origins holding a shared lock here */
    int exclusive_holder;        /* the origin holding the exclusive lock, or -1 */
    struct rma_waiter *waiters;  /* lock requests not granted yet, oldest first */
    struct win *next_live;       /* the windows rma_progress serves */
    /* direct access (direct.c): the members' control words at the start of the segment */
    int direct;
    struct rma_ctrl *ctrl;
    char **parts;                /* every member's part in this process's mapping */
    struct rma_gather *gather;   /* gathering (gather.c): per target, allocated on first use */
    int *gather_dirty, ndirty;   /* targets whose buffer may hold records */
    uintptr_t *remote_base;      /* MPI_Win_create: every member's base in its own address
                                  * space (cross-memory attach), else NULL */
} win_t;

/* ---- objects (win.c) ---------------------------------------------------------------------- */

/* Collective over c: a window over size bytes at base (flavor CREATE), or over memory the
 * library allocates when base is NULL and flavor is MPI_WIN_FLAVOR_ALLOCATE (*out->base then
 * holds it). MPI_SUCCESS or an error class. */
int win_create(comm_t *c, void *base, MPI_Aint size, int disp_unit, int flavor, info_t *info,
               win_t **out);
/* Collective: waits until no operation of this process is pending and every operation that
 * targets it was applied (a fence), then frees the window. */
int win_free(win_t *w);
/* Dynamic windows (MPI_Win_attach / detach): MPI_SUCCESS, MPI_ERR_RMA_ATTACH (overlaps
 * attached memory; detach: nothing attached at base) or MPI_ERR_NO_MEM. */
int win_attach(win_t *w, void *base, size_t size);
int win_detach(win_t *w, const void *base);
/* The window behind a handle, or NULL. */
win_t *win_lookup(MPI_Win h);
/* Frees every window still open (MPI_Finalize, before the transports close): as MPI_Win_free
 * would, in creation order, which is the same at every member of each window, so the
 * collective frees cannot wait for each other; meanwhile the windows are still served, so
 * another process's passive-target epoch on them completes. */
void win_finalize(void);

/* ---- shared-memory windows (shared.c) ---------------------------------------------------- */

/* Nonzero when every member of c runs on this host (MPI_Win_allocate_shared needs it). */
int rma_shared_on_one_host(const comm_t *c);
/* Collective: maps the window's segment (sizes known) and, unless the memory is the user's
 * (MPI_Win_create), sets w->base to this member's part. */
int rma_shared_map(win_t *w);
void rma_shared_unmap(win_t *w);

/* ---- operations (ops.c) ------------------------------------------------------------------- */

/* An origin buffer (count elements of a committed type at buf) and a target region
 * (target_count elements of target_type at displacement disp). The API layer checked ranks,
 * types, the range and the epoch. */
typedef struct rma_args {
    const void *origin;
    int origin_count;
    struct dtype *origin_type;
    int target;
    MPI_Aint disp;
    int target_count;
    struct dtype *target_type;
    struct op *op;               /* accumulates */
    void *result;                /* get_accumulate, fetch_and_op, compare_and_swap */
    int result_count;
    struct dtype *result_type;
    const void *compare;         /* compare_and_swap */
    struct request *request;     /* Rput, Rget, ...: completed at local completion */
} rma_args_t;

typedef enum { RMA_PUT = 1, RMA_GET, RMA_ACC, RMA_GACC, RMA_CAS, RMA_LOCK, RMA_UNLOCK,
               RMA_FLUSH, RMA_POST, RMA_COMPLETE } rma_kind_t;

/* The data of h's record from origin (rank in w's communicator) converted into this rank's
 * representation when origin is of another architecture (rma/convert.c): a malloc'd copy
 * the caller frees; NULL when no conversion is needed (the data apply as they are). layout:
 * the target layout as this rank walks it (rma_layout_from), whose signature the data of
 * several basic types follow. */
void *rma_convert_from(win_t *w, int origin, const struct rma_hdr *h, const void *layout,
                       const void *data);
/* The target layout an operation of origin carries (rma/wire.h), as this rank walks it:
 * layout itself, or from an origin of the other byte order a copy in this host's order, put
 * in *owned for the caller to free (NULL otherwise). */
const void *rma_layout_from(win_t *w, int origin, const struct rma_hdr *h, const void *layout,
                            void **owned);

/* Starts one operation; it completes at the origin by rma_complete_local (or a sync call).
 * MPI_SUCCESS or an error class (MPI_ERR_NO_MEM). */
int rma_start(win_t *w, rma_kind_t kind, const rma_args_t *a);
/* Applies a data operation (put ... compare_and_swap) of header h, with the target layout
 * and the origin's packed data, to the region at window_base + h->offset (apply.c). Returns
 * the target's data as it was before (get, get_accumulate, compare_and_swap; h->bytes,
 * packed): in old_into when not NULL, else in a buffer it mallocs; NULL for put and
 * accumulate. The caller makes it atomic. */
void *rma_apply_data(void *window_base, const struct rma_hdr *h, const void *layout,
                     const void *data, void *old_into);
/* Waits until every operation this process started on w (to target, or to all when target
 * is -1) completed at the origin: data sent, results received. */
void rma_complete_local(win_t *w, int target);
/* Completes the user requests (Rput ...) whose operations completed locally; the number. */
int rma_complete_requests(win_t *w);
/* Sends a notice (RMA_POST, RMA_COMPLETE) to target, without waiting for an answer. */
void rma_notify(win_t *w, rma_kind_t kind, int target);
/* Sends a control message (lock, unlock, flush) to target and waits for its reply. */
void rma_control(win_t *w, rma_kind_t kind, int target, int lock_type);
/* MPI_Win_lock's and MPI_Win_unlock's work. Under the emulation a lock to another process
 * is not awaited: its request leaves with the epoch's first message (ops.c, lock_start), so
 * lock, operations and unlock cost one round trip; the unlock awaits the grant too. */
void rma_lock(win_t *w, int target, int lock_type);
void rma_unlock(win_t *w, int target, int lock_type);
/* The same for MPI_Win_lock_all / MPI_Win_unlock_all (shared locks at every member). */
void rma_lock_all(win_t *w);
void rma_unlock_all(win_t *w);
/* The same to every member t (only those with only[t] non-zero, when only is not NULL) at
 * once: every message leaves before the first reply is awaited, so the round trips overlap
 * (one WAN round trip, not one per target). */
void rma_control_all(win_t *w, rma_kind_t kind, const int *only, int lock_type);

/* ---- direct access on one host (direct.c) ----------------------------------------------
 * A window whose members all run on this host and whose memory the library allocates
 * (MPI_Win_allocate, MPI_Win_allocate_shared) is one segment every member maps (shared.c):
 * one rma_ctrl_t per member, then the members' parts in rank order. A window over the
 * user's memory (MPI_Win_create) has a segment of control blocks only, and reaches the
 * members' memory by cross-memory attach when the kernel allows it (checked at creation).
 * Its data operations are applied by the origin itself to the target's memory and are
 * complete when the call returns; accumulates to one target hold that target's accumulate lock (a spin lock: the
 * atomicity of §11.7.1 between all origins, the target included); passive-target locks are
 * the target's reader-writer word, taken by the origin without the target's help.
 * Notices (post, complete) still travel as messages. Every member decides alike (the
 * decision is agreed at creation), so no window mixes direct and emulated access. */
typedef struct rma_ctrl {
    uint32_t rw;         /* RMA_RW_EXCLUSIVE, or the number of shared holders */
    uint32_t rw_waiters; /* processes asleep on rw (futex) */
    uint32_t acc;        /* 1 while an origin applies an accumulate here */
    uint32_t pad[13];
} rma_ctrl_t;
#define RMA_RW_EXCLUSIVE 0xffffffffu

/* 1 when a window of flavor over c may use direct access (this process's view; win_create
 * agrees on it). */
int rma_direct_wanted(const comm_t *c, int flavor);
/* Collective, for a window over the user's memory (sizes known): learns every member's base
 * and whether cross-memory attach reaches every member (*usable, the same everywhere). */
int rma_direct_remote_setup(win_t *w, int *usable);
/* Direct access (w->direct) to a part of the mapped segment by a data operation whose
 * target region and origin (and result) data are contiguous: a put or get is one copy, an
 * accumulate applies the operation in place under the target's accumulate lock, without the
 * description of the general path. Returns 0 (nothing done) for every other case. */
int rma_direct_fast(win_t *w, rma_kind_t kind, const rma_args_t *a);
/* Applies a data operation directly (w->direct). h, layout, data: the operation as the
 * emulation would send it (wire.h); the result reaches the origin's buffer. */
void rma_direct_apply(win_t *w, const rma_args_t *a, const struct rma_hdr *h,
                      const void *layout, const void *data);
/* RMA_LOCK or RMA_UNLOCK of a direct window (rma_control's work; a flush needs no control
 * there: every direct operation completed when it was issued). */
void rma_direct_control(win_t *w, rma_kind_t kind, int target, int lock_type);

/* ---- gathering (gather.c) --------------------------------------------------------------
 * Under the emulation, small operations without a request of their own (a message of at most
 * METAMPI_RMA_GATHER bytes) are not sent one by one: each becomes a record in a buffer per
 * target (wire.h), and the buffer leaves as one message — before any other message to that
 * target (every sync path and unbatched operation flushes first), when it is full, or in the
 * next pass of the progress engine, i.e. at the latest when the process next enters MPI. */
#define RMA_GATHER_BYTES 16384
typedef struct rma_gather {
    char *buf;
    size_t len;
    int dirty;           /* listed in win_t.gather_dirty */
} rma_gather_t;
/* Largest operation message gathered (bytes; 0: none). */
size_t rma_gather_limit(void);
/* Room for a record of bytes (<= rma_gather_limit()) in target's buffer, its padding zeroed;
 * the buffer is sent first when it lacks room. */
void *rma_gather_reserve(win_t *w, int target, size_t bytes);
/* Sends target's gathered records (every target's: -1). */
void rma_gather_flush(win_t *w, int target);
void rma_gather_free(win_t *w);
/* Sends msg (owned: freed once sent) to target on the operations' tag. */
int rma_send(win_t *w, int target, void *msg, size_t bytes, const char *func);

/* ---- synchronisation (sync.c) ------------------------------------------------------------- */

/* MPI_Win_fence with its assert (MPI_MODE_NOPRECEDE: no operation to complete, nothing is
 * exchanged). */
int rma_fence(win_t *w, int assert);
/* Waits until everything sent to target (all targets: -1) was applied there. */
void rma_flush(win_t *w, int target);

/* ---- generalized active target (pscw.c) ------------------------------------------------
 * MPI_Win_post sends a POST notice to each origin of its group; MPI_Win_start waits for one
 * from each target of its group and uses it up. MPI_Win_complete sends a COMPLETE notice to
 * each target after its operations (so the target applied them when it takes the notice);
 * MPI_Win_wait / test wait for one from each origin of the post group. ranks: window ranks
 * (the API layer translated and checked the groups). */
int rma_post(win_t *w, const int *ranks, int n);
int rma_start_access(win_t *w, const int *ranks, int n);
void rma_complete(win_t *w);
/* 1 when every origin of the exposure epoch completed (the epoch then ends); blocking: wait
 * for it. */
int rma_wait(win_t *w, int blocking);

/* ---- the target side (target.c) ----------------------------------------------------------- */

/* Serves the windows: takes their arriving messages and applies them (the progress hook). */
int rma_progress(void);
/* Adds / removes w from the windows rma_progress serves. */
void rma_serve(win_t *w);
void rma_unserve(win_t *w);
/* The number of operations of every origin applied here is at least expect[o]. */
int rma_applied_all(const win_t *w, const uint64_t *expect);

#endif
