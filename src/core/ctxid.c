/* Context-id agreement (the scheme and its invariants: ctxid.h). */
#include "core/ctxid.h"

#include "core/errors.h"
#include "runtime/job.h"
#include "runtime/tunables.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#define NWORDS CTXID_WORDS

/* Phase 1's extra words after the mask: all ones = no member had claims to hide; all ones =
 * every member goes on (a member gives up after MAX_ROUNDS rounds, and then all do). */
enum { W_NO_CLAIMS = NWORDS, W_GO_ON, MASK_WORDS };

/* Rounds an agreement may take. Each failed round means some other agreement claimed or took
 * a candidate (conflicts are rare: start points differ by key), and a round that found
 * nothing because claims hid pairs waits for a claim to resolve before the next, so a
 * legitimate agreement takes a handful. Many more mean the members do not run the same
 * agreement (an erroneous program, or messages of different calls mixed up): it ends with
 * MPI_ERR_INTERN at every member rather than running forever. */
enum { MAX_ROUNDS = 1000 };

/* An agreement of this process in one of its rounds. While claiming, cand[] are claimed:
 * no other agreement of this process votes yes for them. Its rounds allocate nothing (the
 * reductions receive into scratch, the schedule drops finished rounds). */
typedef struct agree {
    comm_t *inter;             /* an inter-communicator's agreement (both groups), or NULL */
    icoll_team_t team;         /* ... else the members: a communicator or a subgroup of one */
    int n;
    uint64_t key;
    uint32_t *out;
    int cand[2];
    int claiming;
    int rounds;
    int hid;                   /* this round's mask hid pairs claimed here ... */
    uint64_t hid_gen;          /* ... at this claims generation */
    uint64_t mask[MASK_WORDS]; /* phase 1 */
    uint64_t vote;             /* phase 2: all ones = yes */
    uint64_t scratch[MASK_WORDS];
    struct agree *next;        /* claims list */
} agree_t;

static agree_t *claims;
/* advances whenever a claim ends (and so may free what an exhausted round could not get) */
static uint64_t claims_gen;
/* testing (METAMPI_CTXID_VOTE_NO=<job rank>): that process votes no in every round, so its
 * agreements cannot converge */
static int always_no = -1;

/* METAMPI_CTXID_VOTE_NO names this process (read once, at its first agreement). */
static int votes_no(void)
{
    if (always_no < 0)
        always_no = tun_is_set(TUN_CTXID_VOTE_NO) && tun_int(TUN_CTXID_VOTE_NO) == job.rank;
    return always_no;
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
    claims_gen++;
}

/* The bitwise AND of vals[0..n) over the agreement's members, appended to s. */
static void and_all(icoll_sched_t *s, agree_t *a, uint64_t *vals, int n)
{
    if (a->inter)
        icoll_sched_allreduce(s, a->inter, vals, n, ICOLL_U64, ICOLL_BAND, a->scratch);
    else
        icoll_sched_allreduce_team(s, &a->team, vals, n, ICOLL_U64, ICOLL_BAND, a->scratch);
}

static int phase1_done(icoll_sched_t *s, void *arg);
static int vote(icoll_sched_t *s, void *arg);
static int phase2_done(icoll_sched_t *s, void *arg);

static int round_start(icoll_sched_t *s, void *arg)
{
    agree_t *a = arg;
    memcpy(a->mask, ctxid_free_mask, sizeof ctxid_free_mask);
    for (agree_t *o = claims; o; o = o->next)
        for (int i = 0; i < o->n; i++)
            a->mask[o->cand[i] / 64] &= ~(1ull << (o->cand[i] % 64));
    a->hid = claims != NULL;
    a->hid_gen = claims_gen;
    a->mask[W_NO_CLAIMS] = claims ? 0 : ~0ull;
    a->mask[W_GO_ON] = ++a->rounds > MAX_ROUNDS ? 0 : ~0ull;
    /* little-endian words between members of any byte order (AND works byte by byte) */
    for (int w = 0; w < MASK_WORDS; w++)
        a->mask[w] = htole64(a->mask[w]);
    and_all(s, a, a->mask, MASK_WORDS);
    icoll_sched_call(s, phase1_done, a);
    return MPI_SUCCESS;
}

/* Before a round that follows one whose candidates claims hid: wait until a claim this
 * process held then has ended (claims always end: ctxid.h), rather than spinning rounds. */
static int claims_moved(icoll_sched_t *s, void *arg)
{
    agree_t *a = arg;
    if (a->hid && claims_gen == a->hid_gen)
        return ICOLL_AGAIN;
    return round_start(s, a);
}

/* Candidates: the first n common pairs from a start that depends on the key, so concurrent
 * agreements seldom pick the same pair (a conflict costs a round). */
static int pick(agree_t *a)
{
    uint64_t h = a->key * 0x9e3779b97f4a7c15ull;
    int start = (int)(h >> 50) % CTXID_PAIRS, k = 0;
    for (int i = 0; i <= NWORDS && k < a->n; i++) {
        int w = (start / 64 + i) % NWORDS;
        uint64_t m = a->mask[w];
        if (i == 0)
            m &= ~0ull << (start % 64);          /* from the start bit on ... */
        else if (i == NWORDS)
            m &= ~(~0ull << (start % 64));       /* ... round to just before it */
        for (; m && k < a->n; m &= m - 1) {
            int p = w * 64 + __builtin_ctzll(m);
            if (k == 0 || p != a->cand[0])
                a->cand[k++] = p;
        }
    }
    return k;
}

static int phase1_done(icoll_sched_t *s, void *arg)
{
    agree_t *a = arg;
    for (int w = 0; w < MASK_WORDS; w++)
        a->mask[w] = le64toh(a->mask[w]);
    if (a->mask[W_GO_ON] != ~0ull)
        return MPI_ERR_INTERN;
    if (pick(a) < a->n) {
        /* Nothing common: truly exhausted unless claims of other agreements hid pairs. */
        if (a->mask[W_NO_CLAIMS] == ~0ull)
            return MPI_ERR_OTHER;
        icoll_sched_call(s, claims_moved, a);
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
        if (o || !ctxid_pool_is_free(a->cand[i]) || votes_no())
            yes = 0;
    }
    if (yes) {
        a->claiming = 1;
        a->next = claims;
        claims = a;
    }
    a->vote = yes ? ~0ull : 0;
    and_all(s, a, &a->vote, 1);
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
        ctxid_pool_take(a->cand[i]);
        a->out[i] = 2u * (uint32_t)a->cand[i];
    }
    return MPI_SUCCESS;
}

static void sched_agree(icoll_sched_t *s, comm_t *inter, const icoll_team_t *team, int n,
                        uint64_t key, uint32_t *ctx)
{
    agree_t *a = icoll_sched_alloc(s, sizeof *a);
    if (!a)
        return;
    a->inter = inter;
    if (team)
        a->team = *team;
    a->n = n;
    a->key = key;
    a->out = ctx;
    icoll_sched_call(s, round_start, a);
}

void ctxid_sched_agree(icoll_sched_t *s, comm_t *c, int n, uint64_t key, uint32_t *ctx)
{
    icoll_team_t all = icoll_team_all(c);
    sched_agree(s, comm_is_inter(c) ? c : NULL, comm_is_inter(c) ? NULL : &all, n, key, ctx);
}

int ctxid_agree(comm_t *c, int n, uint32_t *ctx)
{
    comm_op_t op = comm_next_op(c, COMM_BLOCKING, COMM_OP_INTERNAL);
    icoll_sched_t *s = icoll_sched_new(op.tag);
    if (!s)
        return MPI_ERR_NO_MEM;
    ctxid_sched_agree(s, c, n, op.key, ctx);
    return icoll_sched_run(s);
}

int ctxid_agree_team(const icoll_team_t *t, int tag, uint64_t key, uint32_t *ctx)
{
    icoll_sched_t *s = icoll_sched_new(tag);
    if (!s)
        return MPI_ERR_NO_MEM;
    sched_agree(s, NULL, t, 1, key, ctx);
    return icoll_sched_run(s);
}
