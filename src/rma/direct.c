/* Direct access on one host (see win.h, "direct access"): the origin applies data operations
 * to the target's memory itself — its part of the window's segment, or, for a window over
 * the user's memory (MPI_Win_create), by cross-memory attach (p2p_readv / p2p_writev: one
 * copy, kernel to kernel) — and takes passive-target locks in the target's control words,
 * so no operation waits for the target to enter MPI.
 *
 * Lock words (rma_ctrl_t, shared by all members, used with the GCC atomics):
 *   rw   0 free, n > 0 held shared by n origins, RMA_RW_EXCLUSIVE held exclusively.
 *        Taken by compare-and-swap; a release that finds sleepers (rw_waiters) wakes them
 *        (futex on rw). A waiter polls the progress engine between tries and sleeps at most
 *        SLEEP_NS at a time, so it serves its own peers meanwhile and a lost wake-up costs
 *        a short delay, never a hang.
 *   acc  0 free, 1 while an origin applies an accumulate, get_accumulate, fetch_and_op or
 *        compare_and_swap to this target: they never interleave (§11.7.1). Put and get do not
 *        take it (a put concurrent with an accumulate to one location is erroneous). Held for
 *        the length of one apply, with no MPI call inside. Over cross-memory attach an
 *        accumulate reads the target region, applies the op here and writes it back, all
 *        under the lock. */
#include "rma/win.h"
#include "rma/wire.h"

#include "core/comm_arch.h"
#include "core/errors.h"
#include "core/icoll.h"
#include "core/op.h"
#include "core/p2p.h"
#include "core/progress.h"
#include "core/request.h"
#include "datatype/construct.h"
#include "datatype/dtype.h"
#include "runtime/tunables.h"

#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { SLEEP_NS = 1000000, SPINS = 64, IOV_BATCH = 64 };

int rma_direct_wanted(const comm_t *c, int flavor)
{
    /* the origin writes its own bytes into the target's memory: like architectures only */
    return flavor != MPI_WIN_FLAVOR_DYNAMIC && tun_bool(TUN_RMA_DIRECT) && !comm_is_inter(c) &&
           rma_shared_on_one_host(c) && !comm_arch_mixed(c);
}

int rma_direct_remote_setup(win_t *w, int *usable)
{
    int n = w->comm->size, me = w->comm->rank;
    uint64_t mine = (uintptr_t)w->base, *all = malloc((size_t)n * sizeof *all);
    w->remote_base = malloc((size_t)n * sizeof *w->remote_base);
    if (!all || !w->remote_base)
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win_create", "out of memory for %d members", n);
    int ok = 1, rc = icoll_allgather(w->comm, &mine, sizeof mine, all);
    /* one byte of every other member's window, as the operations will read it */
    for (int r = 0; rc == MPI_SUCCESS && ok && r < n; r++) {
        char byte;
        w->remote_base[r] = (uintptr_t)all[r];
        if (r != me && w->sizes[r] > 0 &&
            p2p_read(comm_peer_world_rank(w->comm, r), &byte, (const void *)w->remote_base[r],
                     1) != 0)
            ok = 0;
    }
    free(all);
    if (rc == MPI_SUCCESS)
        rc = icoll_allreduce_int(w->comm, &ok, 1, ICOLL_MIN);
    if (rc != MPI_SUCCESS || !ok) {
        free(w->remote_base);
        w->remote_base = NULL;
    }
    *usable = rc == MPI_SUCCESS && ok;
    return rc;
}

/* ---- the target's memory ------------------------------------------------------------------ */

/* Moves the target region of h at member t (remote window) to (write) or from buf, packed. */
static void remote_region(win_t *w, int t, const rma_hdr_t *h, const void *layout, void *buf,
                          int write)
{
    int world = comm_peer_world_rank(w->comm, t), rc = 0;
    uintptr_t at = w->remote_base[t] + h->offset;
    if (!h->layout_len) {
        struct iovec r = { (void *)at, h->bytes };
        rc = write ? p2p_writev(world, buf, &r, 1) : p2p_readv(world, buf, &r, 1);
    } else {
        const dt_layout_t *l = dt_layout_check(layout, h->layout_len);
        if (!l)
            err_fatal(MPI_ERR_INTERN, "MPI_Win", "a one-sided operation has a bad layout");
        dt_cursor_t c;
        dt_cursor_init(&c, l, at, h->count);
        for (size_t done = 0; rc == 0 && done < h->bytes;) {
            struct iovec v[IOV_BATCH];
            size_t bytes;
            int n = dt_iov(&c, v, IOV_BATCH, h->bytes - done, &bytes);
            if (n == 0)
                break;
            rc = write ? p2p_writev(world, (char *)buf + done, v, n)
                       : p2p_readv(world, (char *)buf + done, v, n);
            done += bytes;
        }
    }
    if (rc != 0)
        err_fatal(MPI_ERR_OTHER, "MPI_Win",
                  "cross-memory access to rank %d's window was refused, though it worked "
                  "when the window was created",
                  t);
}

/* rma_apply_data on member t's memory, wherever it is. */
static void *apply_at(win_t *w, int t, const rma_hdr_t *h, const void *layout, const void *data,
                      void *into)
{
    if (!w->remote_base)
        return rma_apply_data(w->parts[t], h, layout, data, into);
    if (t == w->comm->rank)
        return rma_apply_data(w->base, h, layout, data, into);
    if (h->kind == RMA_PUT) {
        remote_region(w, t, h, layout, (void *)data, 1);
        return NULL;
    }
    if (h->kind == RMA_GET && into) {
        remote_region(w, t, h, layout, into, 0);
        return into;
    }
    /* read, apply here (the region now packed and contiguous), write back */
    char *tmp = malloc(h->bytes ? h->bytes : 1);
    if (!tmp)
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win", "out of memory for a one-sided operation");
    remote_region(w, t, h, layout, tmp, 0);
    if (h->kind == RMA_GET)
        return tmp;
    rma_hdr_t here = *h;
    here.offset = 0;
    here.layout_len = 0;
    void *old = rma_apply_data(tmp, &here, NULL, data, into);
    if (!(h->kind == RMA_GACC && h->op == OP_NO_OP))
        remote_region(w, t, h, layout, tmp, 1);
    if (old != tmp)
        free(tmp);
    return old;
}

/* ---- the accumulate lock ------------------------------------------------------------------ */

static void acc_lock(rma_ctrl_t *c)
{
    for (unsigned i = 0;; i++) {
        uint32_t free_ = 0;
        if (__atomic_compare_exchange_n(&c->acc, &free_, 1, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return;
        if (i >= SPINS)
            sched_yield();  /* the holder may be descheduled (oversubscribed host) */
    }
}

static void acc_unlock(rma_ctrl_t *c)
{
    __atomic_store_n(&c->acc, 0, __ATOMIC_RELEASE);
}

/* ---- data --------------------------------------------------------------------------------- */

/* The packed target data (h->bytes) into count elements of t at buf. */
static void unpack_into(void *buf, int count, dtype_t *t, const void *src, size_t bytes)
{
    const dt_layout_t *l = dtype_layout(t);
    if (dt_layout_contiguous(l, (size_t)count)) {
        memcpy((char *)buf + dt_layout_true_lb(l), src, bytes);
        return;
    }
    dt_cursor_t cur;
    dt_cursor_init(&cur, l, (uintptr_t)buf, (size_t)count);
    dt_unpack(&cur, src, bytes);
}

/* The address of count elements of t at buf when they are contiguous, else NULL. */
static char *contiguous_at(const void *buf, int count, dtype_t *t)
{
    if (t->basic >= 0)   /* one predefined basic type: contiguous from buf on */
        return (char *)buf;
    const dt_layout_t *l = dtype_layout(t);
    return dt_layout_contiguous(l, (size_t)count) ? (char *)buf + dt_layout_true_lb(l) : NULL;
}

/* The accumulate family on a contiguous target region with contiguous origin and result
 * data, applied in place under the target's accumulate lock: the old data straight into the
 * result buffer, then the operation. compare_and_swap reads compare and origin before it
 * writes the result, which may share their memory. */
static int direct_atomic(win_t *w, rma_kind_t kind, const rma_args_t *a, char *at)
{
    int no_op = a->op && a->op->kind == OP_NO_OP;
    char *result = kind == RMA_ACC ? NULL : contiguous_at(a->result, a->result_count,
                                                          a->result_type);
    const char *origin = kind == RMA_GACC && no_op
                             ? NULL
                             : contiguous_at(a->origin, a->origin_count, a->origin_type);
    size_t bytes = (size_t)a->target_count * (size_t)a->target_type->size;
    char old[32];   /* compare_and_swap's predefined types: at most a long double complex */
    if ((kind != RMA_ACC && !result) || (!origin && !(kind == RMA_GACC && no_op)) ||
        (kind == RMA_CAS && bytes > sizeof old))
        return 0;
    int leaf = a->op && !no_op ? op_leaf(a->origin_type) : 0;
    rma_ctrl_t *c = &w->ctrl[a->target];
    acc_lock(c);
    if (kind == RMA_CAS) {
        memcpy(old, at, bytes);
        if (memcmp(old, a->compare, bytes) == 0)
            memmove(at, origin, bytes);
        memcpy(result, old, bytes);
    } else {
        if (result)
            memmove(result, at, bytes);
        if (leaf > 0)
            op_apply_leaves(a->op->kind, leaf, origin, at, bytes / op_leaf_size(leaf));
    }
    acc_unlock(c);
    return 1;
}

int rma_direct_fast(win_t *w, rma_kind_t kind, const rma_args_t *a)
{
    if (w->remote_base)
        return 0;
    if (!a->target_count || !a->target_type->size) {
        if (a->request)   /* nothing to move, nothing to apply */
            request_complete_internal(a->request, MPI_SUCCESS);
        return 1;
    }
    char *at = contiguous_at((char *)w->parts[a->target] +
                                 (uint64_t)a->disp * (uint64_t)w->disp_units[a->target],
                             a->target_count, a->target_type);
    if (!at)
        return 0;
    if (kind == RMA_PUT || kind == RMA_GET) {
        char *mine = contiguous_at(a->origin, a->origin_count, a->origin_type);
        if (!mine)
            return 0;
        size_t bytes = (size_t)a->origin_count * (size_t)a->origin_type->size;
        memmove(kind == RMA_PUT ? at : mine, kind == RMA_PUT ? mine : at, bytes);
    } else if (!direct_atomic(w, kind, a, at)) {
        return 0;
    }
    if (a->request)
        request_complete_internal(a->request, MPI_SUCCESS);
    return 1;
}

void rma_direct_apply(win_t *w, const rma_args_t *a, const rma_hdr_t *h, const void *layout,
                      const void *data)
{
    int atomic = h->kind != RMA_PUT && h->kind != RMA_GET;
    /* the old data straight into a contiguous result buffer, else unpacked afterwards */
    void *buf = h->kind == RMA_GET ? (void *)a->origin : a->result;
    int count = h->kind == RMA_GET ? a->origin_count : a->result_count;
    dtype_t *type = h->kind == RMA_GET ? a->origin_type : a->result_type;
    void *into = type ? contiguous_at(buf, count, type) : NULL;
    rma_ctrl_t *c = &w->ctrl[a->target];
    if (atomic)
        acc_lock(c);
    void *old = apply_at(w, a->target, h, layout, data, into);
    if (atomic)
        acc_unlock(c);
    if (old && old != into) {
        unpack_into(buf, count, type, old, h->bytes);
        free(old);
    }
    if (a->request)
        request_complete_internal(a->request, MPI_SUCCESS);
}

/* ---- passive-target locks ----------------------------------------------------------------- */

static long futex(uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
    return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

/* One try at the lock; *seen: the word when it was not free. */
static int rw_try(rma_ctrl_t *c, int lock_type, uint32_t *seen)
{
    uint32_t v = __atomic_load_n(&c->rw, __ATOMIC_RELAXED);
    for (;;) {
        uint32_t want;
        if (lock_type == MPI_LOCK_SHARED && v != RMA_RW_EXCLUSIVE && v < RMA_RW_EXCLUSIVE - 1)
            want = v + 1;
        else if (lock_type == MPI_LOCK_EXCLUSIVE && v == 0)
            want = RMA_RW_EXCLUSIVE;
        else
            break;
        if (__atomic_compare_exchange_n(&c->rw, &v, want, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return 1;
    }
    *seen = v;
    return 0;
}

static void rw_lock(rma_ctrl_t *c, int lock_type)
{
    uint32_t seen;
    for (unsigned i = 0; !rw_try(c, lock_type, &seen); i++) {
        if (progress_poll() > 0 || i < SPINS)
            continue;
        if (i < 2 * SPINS) {
            sched_yield();
            continue;
        }
        /* asleep until a release wakes us (or SLEEP_NS: then the progress engine runs) */
        struct timespec t = { 0, SLEEP_NS };
        __atomic_fetch_add(&c->rw_waiters, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&c->rw, __ATOMIC_SEQ_CST) == seen)
            futex(&c->rw, FUTEX_WAIT, seen, &t);
        __atomic_fetch_sub(&c->rw_waiters, 1, __ATOMIC_SEQ_CST);
    }
}

static void rw_unlock(rma_ctrl_t *c, int lock_type)
{
    if (lock_type == MPI_LOCK_SHARED)
        __atomic_fetch_sub(&c->rw, 1, __ATOMIC_SEQ_CST);
    else
        __atomic_store_n(&c->rw, 0, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&c->rw_waiters, __ATOMIC_SEQ_CST))
        futex(&c->rw, FUTEX_WAKE, INT32_MAX, NULL);
}

void rma_direct_control(win_t *w, rma_kind_t kind, int target, int lock_type)
{
    if (kind == RMA_LOCK)
        rw_lock(&w->ctrl[target], lock_type);
    else
        rw_unlock(&w->ctrl[target], lock_type);
}
