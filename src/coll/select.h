/*
 * The selection table: per collective, which level and algorithm runs, as data (table.c);
 * docs/collectives.md, "Levels, algorithms and entry points".
 *
 * Each collective has an ordered list of rules (level, algorithm, conditions). The level
 * rules are the order in which the dispatcher (coll_start, coll/level.h) asks the levels,
 * each when its conditions hold (coll_level_row_applies); a level that does not serve the
 * call declines and the next one is asked. The point-to-point rules come last and are read by coll_pick_p2p: the first
 * that applies says which algorithm runs over a team of n, the whole communicator or a
 * level's phase (the members of a host, the host leaders, a site).
 *
 * Conditions look only at what is the same at every member (coll_measure_t), so every member
 * takes the same rule. Thresholds are knobs (coll/tune.h: METAMPI_COLL_<NAME>, registry
 * variables), and METAMPI_COLL_<COLLECTIVE>=<algorithm> forces an algorithm: a point-to-point
 * one replaces the point-to-point rules (when its needs are not met: the algorithm named
 * instead, or the rules); "shm" (barrier, reduce, allreduce) asks the shared area whatever
 * the size. METAMPI_COLL_SELECT_DEBUG=3 prints the table (coll/trace.h).
 */
#ifndef METAMPI_COLL_SELECT_H
#define METAMPI_COLL_SELECT_H

#include "coll/tune.h"
#include "core/comm.h"

#include <stddef.h>
#include <stdio.h>

/* The levels, in the order a call meets them. */
typedef enum coll_level_id {
    COLL_INTER,  /* inter-communicators */
    COLL_DIRECT, /* two members, blocking: the messages straight over point-to-point */
    COLL_NONE,   /* nothing to move */
    COLL_SITES,  /* several sites: within each site, one exchange between sites, within */
    COLL_HIER,   /* several hosts: within each host, among the host leaders, within */
    COLL_SHM,    /* one host: the communicator's shared area */
    COLL_P2P,    /* point-to-point algorithms over the whole communicator */
    COLL_LEVELS
} coll_level_id_t;

const char *coll_level_name(coll_level_id_t level);

/* What the conditions look at, the same at every member. */
typedef struct coll_measure {
    int n;            /* members of the team the algorithm runs over */
    size_t size;      /* bytes, as the collective's table says (coll_table_t.size) */
    size_t count;     /* reductions: elements of the vector */
    int commutative;  /* reductions: the op's; 1 otherwise */
} coll_measure_t;

/* Conditions of a rule: every one that is set must hold. */
enum {
    COLL_W_NOT_POW2 = 1,    /* n is not a power of two */
    COLL_W_COUNT_LT_P2 = 2, /* fewer elements than the largest power of two <= n */
    COLL_W_COUNT_GE_P2 = 4, /* at least as many */
    COLL_W_COUNT_GE_N = 8   /* at least n elements */
};
typedef struct coll_when {
    coll_knob_t *below, *from, *upto;          /* size <, >=, <= the knob */
    coll_knob_t *ranks_below, *ranks_from;     /* n <, >= the knob */
    int min_ranks, max_ranks;                  /* n >=, <= (0: any) */
    unsigned flags;                            /* COLL_W_* */
} coll_when_t;

/* What an algorithm needs of the team and the op. */
enum {
    COLL_NEEDS_POW2 = 1,        /* n a power of two */
    COLL_NEEDS_COMMUTATIVE = 2, /* a commutative op (it combines in another order) */
    COLL_NEEDS_TWO = 4,         /* at least two members */
    COLL_NEEDS_THREE = 8        /* at least three members */
};
typedef struct coll_algo {
    coll_level_id_t level;      /* COLL_P2P, or COLL_SHM for "shm" */
    unsigned needs;             /* COLL_NEEDS_* */
    int instead;                /* forced but its needs not met: this algorithm (-1: the rules) */
} coll_algo_t;

typedef struct coll_rule {
    coll_level_id_t level;
    int algo;                   /* index in the collective's algorithms; -1: the level's way */
    coll_when_t when;
} coll_rule_t;

typedef struct coll_table {
    comm_op_kind_t kind;
    const char *size;           /* what size measures ("bytes", "block", "total", "vector"),
                                 * NULL when no rule looks at it */
    coll_choice_t *forced;      /* METAMPI_COLL_<COLLECTIVE> (its names: the algorithms), or
                                 * NULL */
    const char *const *names;   /* the algorithms ... */
    const coll_algo_t *algos;   /* ... and what they need, nalgos of each */
    int nalgos;
    const coll_rule_t *rules;
    int nrules;
} coll_table_t;

/* The algorithms of each collective, as the table and METAMPI_COLL_<COLLECTIVE> name them, in
 * that order (table.c). */
enum { COLL_BARRIER_SHM, COLL_BARRIER_DISSEMINATION };
enum { COLL_BCAST_BINOMIAL, COLL_BCAST_SCATTER_ALLGATHER, COLL_BCAST_CHAIN };
enum { COLL_GATHER_BINOMIAL, COLL_GATHER_LINEAR };    /* gather and scatter */
enum { COLL_AG_RECURSIVE_DOUBLING, COLL_AG_BRUCK, COLL_AG_RING }; /* allgather(v) */
enum { COLL_A2A_LINEAR, COLL_A2A_PAIRWISE, COLL_A2A_BRUCK };    /* alltoall(v,w) */
enum { COLL_REDUCE_SHM, COLL_REDUCE_BINOMIAL, COLL_REDUCE_RABENSEIFNER };
enum { COLL_AR_SHM, COLL_AR_RECURSIVE_DOUBLING, COLL_AR_RABENSEIFNER, COLL_AR_RING };
enum { COLL_RS_RECURSIVE_HALVING, COLL_RS_PAIRWISE };  /* reduce_scatter(_block) */
enum { COLL_SCAN_RECURSIVE_DOUBLING, COLL_SCAN_LINEAR }; /* scan, exscan */
enum { COLL_ONLY_ALGORITHM };  /* gatherv, scatterv (linear); neighbourhood (exchange) */

/* The table of collective kind (table.c). */
const coll_table_t *coll_table(comm_op_kind_t kind);

/* The forced algorithm of kind (METAMPI_COLL_<COLLECTIVE>), or -1. An unknown name ends the
 * job with a message listing the valid ones. */
int coll_forced(comm_op_kind_t kind);
/* The point-to-point algorithm kind runs over a team of m->n: the forced one when it can, else
 * the first point-to-point rule that applies (an index in the table's algorithms). */
int coll_pick_p2p(comm_op_kind_t kind, const coll_measure_t *m);
const char *coll_algo_name(comm_op_kind_t kind, int algo);
/* Whether level row r of table t applies to a call measured m: its conditions hold, or the
 * collective's forced algorithm is the row's level ("shm": asked whatever the size). */
int coll_level_row_applies(const coll_table_t *t, const coll_rule_t *r, const coll_measure_t *m);

/* Prints every collective's rules with the thresholds in force (METAMPI_COLL_SELECT_DEBUG). */
void coll_table_print(FILE *f);

#endif
