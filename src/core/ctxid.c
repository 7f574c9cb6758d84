/* Context-id agreement (the scheme and its invariants: ctxid.h). */
#include "core/ctxid.h"

#include "core/errors.h"

#include <string.h>

#define NWORDS (CTXID_PAIRS / 64)
enum { PREDEFINED_PAIRS = 2 };

/* free_mask: bit p set = pair p (contexts 2p, 2p+1) is free at this process. */
static uint64_t free_mask[NWORDS];

/* An agreement of this process in one of its rounds. While claiming, cand[] are claimed:
 * no other agreement of this process votes yes for them. */
typedef struct agree {
    comm_t *c;
    int n;
    uint64_t key;
    uint32_t *out;
    int cand[2];
    int claiming;
    uint64_t mask[NWORDS + 1]; /* phase 1: masks, then word NWORDS: all ones = no claims */
    uint64_t vote;             /* phase 2: all ones = yes */
    struct agree *next;        /* claims list */
} agree_t;

static agree_t *claims;

void ctxid_init(void)
{
    memset(free_mask, 0xff, sizeof free_mask);
    for (int p = 0; p < PREDEFINED_PAIRS; p++)
        free_mask[p / 64] &= ~(1ull << (p % 64));
    claims = NULL;
}

static int is_free(int p)
{
    return (free_mask[p / 64] >> (p % 64)) & 1;
}

void ctxid_release(uint32_t ctx)
{
    uint32_t p = ctx / 2;
    if (p >= PREDEFINED_PAIRS && p < CTXID_PAIRS)
        free_mask[p / 64] |= 1ull << (p % 64);
}

int ctxid_used(void)
{
    int n = 0;
    for (int w = 0; w < NWORDS; w++)
        n += 64 - __builtin_popcountll(free_mask[w]);
    return n;
}

/* The agreement of this process that claims pair p, or NULL. */
static agree_t *claimer(int p)
{
    for (agree_t *a = claims; a; a = a->next)
        for (int i = 0; i < a->n; i++)
            if (a->cand[i] == p)
                return a;
    return NULL;
}

static void unclaim(agree_t *a)
{
    if (!a->claiming)
        return;
    for (agree_t **pp = &claims; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    a->claiming = 0;
}

static int phase1_done(icoll_sched_t *s, void *arg);
static int vote(icoll_sched_t *s, void *arg);
static int phase2_done(icoll_sched_t *s, void *arg);

static int round_start(icoll_sched_t *s, void *arg)
{
    agree_t *a = arg;
    memcpy(a->mask, free_mask, sizeof free_mask);
    for (agree_t *o = claims; o; o = o->next)
        for (int i = 0; i < o->n; i++)
            a->mask[o->cand[i] / 64] &= ~(1ull << (o->cand[i] % 64));
    a->mask[NWORDS] = claims ? 0 : ~0ull;
    icoll_sched_allreduce(s, a->c, a->mask, NWORDS + 1, ICOLL_U64, ICOLL_BAND);
    icoll_sched_call(s, phase1_done, a);
    return MPI_SUCCESS;
}

static int phase1_done(icoll_sched_t *s, void *arg)
{
    agree_t *a = arg;
    int k = 0;
    for (int w = 0; w < NWORDS && k < a->n; w++)
        for (uint64_t m = a->mask[w]; m && k < a->n; m &= m - 1)
            a->cand[k++] = w * 64 + __builtin_ctzll(m);
    if (k < a->n) {
        /* Nothing common: truly exhausted unless claims of other agreements hid pairs. */
        if (a->mask[NWORDS] == ~0ull)
            return MPI_ERR_OTHER;
        icoll_sched_call(s, round_start, a);
        return MPI_SUCCESS;
    }
    icoll_sched_call(s, vote, a);
    return MPI_SUCCESS;
}

static int vote(icoll_sched_t *s, void *arg)
{
    agree_t *a = arg;
    int yes = 1;
    for (int i = 0; i < a->n; i++) {
        agree_t *o = claimer(a->cand[i]);
        if (o && o->key > a->key)
            return ICOLL_AGAIN; /* lower priority: its claim resolves without us */
        if (o || !is_free(a->cand[i]))
            yes = 0;
    }
    if (yes) {
        a->claiming = 1;
        a->next = claims;
        claims = a;
    }
    a->vote = yes ? ~0ull : 0;
    icoll_sched_allreduce(s, a->c, &a->vote, 1, ICOLL_U64, ICOLL_BAND);
    icoll_sched_call(s, phase2_done, a);
    return MPI_SUCCESS;
}

static int phase2_done(icoll_sched_t *s, void *arg)
{
    agree_t *a = arg;
    unclaim(a);
    if (a->vote != ~0ull) {
        icoll_sched_call(s, round_start, a);
        return MPI_SUCCESS;
    }
    for (int i = 0; i < a->n; i++) {
        free_mask[a->cand[i] / 64] &= ~(1ull << (a->cand[i] % 64));
        a->out[i] = 2u * (uint32_t)a->cand[i];
    }
    return MPI_SUCCESS;
}

void ctxid_sched_agree(icoll_sched_t *s, comm_t *c, int n, uint64_t key, uint32_t *ctx)
{
    agree_t *a = icoll_sched_alloc(s, sizeof *a);
    if (!a)
        return;
    a->c = c;
    a->n = n;
    a->key = key;
    a->out = ctx;
    icoll_sched_call(s, round_start, a);
}

int ctxid_agree(comm_t *c, int n, uint32_t *ctx)
{
    comm_op_t op = comm_next_op(c);
    icoll_sched_t *s = icoll_sched_new(op.tag);
    if (!s)
        return MPI_ERR_NO_MEM;
    ctxid_sched_agree(s, c, n, op.key, ctx);
    return icoll_sched_run(s);
}
