/*
 * The selection table (coll/select.h): per collective, the rules in the order a call meets
 * them, the algorithms and the thresholds. Every default was chosen by measurement on a 2-core
 * x86-64 host (docs/collectives.md, docs/performance.md); every threshold is a knob and every
 * algorithm can be forced from the environment (README, "Tuning").
 *
 * Reading a rule: R(LEVEL, ALGORITHM, conditions). The conditions (coll_when_t) look at n (the
 * members of the team the algorithm runs over) and size (what the collective's size measures:
 * bytes of the whole message, of one member's block, of everything gathered, of the vector).
 * Levels without an algorithm (-1) have one way of running the collective, or choose their
 * phases' algorithms from the point-to-point rules with the phase's team.
 */
#include "coll/select.h"

#define R(level, algo, ...) { COLL_##level, algo, { __VA_ARGS__ } }
#define TABLE(kind, size, forced, names, algos, rules)                                         \
    { kind, size, forced, names, algos, (int)(sizeof algos / sizeof algos[0]), rules,          \
      (int)(sizeof rules / sizeof rules[0]) }

#define P2P_ONLY { COLL_P2P, 0, -1 }
#define SHM_ONLY { COLL_SHM, 0, -1 }

/* ---- Barrier ------------------------------------------------------------------------------ */

static const char *const barrier_names[] = { "shm", "dissemination" };
static const coll_algo_t barrier_algos[] = { SHM_ONLY, P2P_ONLY };
static coll_choice_t barrier_forced = { "METAMPI_COLL_BARRIER", barrier_names, 2, 0, 0 };
static const coll_rule_t barrier_rules[] = {
    R(INTER, -1),
    R(DIRECT, -1),
    R(NONE, -1),
    R(SITES, -1),
    R(HIER, -1),
    R(SHM, -1, .min_ranks = 3), /* two members: one message each way (the direct path) */
    R(P2P, COLL_BARRIER_DISSEMINATION),
};

/* ---- Bcast -------------------------------------------------------------------------------- */

static const char *const bcast_names[] = { "binomial", "scatter_allgather", "chain" };
static const coll_algo_t bcast_algos[] = {
    P2P_ONLY,
    { COLL_P2P, COLL_NEEDS_THREE, COLL_BCAST_BINOMIAL },
    { COLL_P2P, COLL_NEEDS_THREE, COLL_BCAST_BINOMIAL },
};
static coll_choice_t bcast_forced = { "METAMPI_COLL_BCAST", bcast_names, 3, 0, 0 };
/* from this size (bytes) on, the chunked algorithms (with at least 3 members) */
static coll_knob_t bcast_long = { "METAMPI_COLL_BCAST_LONG", 512 * 1024, 0, 0 };
/* from this size on, the pipelined chain rather than scatter + allgather (off) */
static coll_knob_t bcast_chain = { "METAMPI_COLL_BCAST_CHAIN", (size_t)-1, 0, 0 };
static const coll_rule_t bcast_rules[] = {
    R(INTER, -1),
    /* two members on one host from METAMPI_COLL_SHM_CMA_MIN bytes: both copy at once */
    R(SHM, -1, .max_ranks = 2),
    R(DIRECT, -1),
    R(NONE, -1),
    R(SITES, -1),
    R(HIER, -1),
    R(SHM, -1, .min_ranks = 3),
    R(P2P, COLL_BCAST_BINOMIAL, .max_ranks = 2),
    R(P2P, COLL_BCAST_BINOMIAL, .below = &bcast_long),
    R(P2P, COLL_BCAST_CHAIN, .from = &bcast_chain),
    R(P2P, COLL_BCAST_SCATTER_ALLGATHER),
};

/* ---- Gather, Scatter (size: one member's block) ------------------------------------------ */

static const char *const rooted_names[] = { "binomial", "linear" };
static const coll_algo_t rooted_algos[] = { P2P_ONLY, P2P_ONLY };
static coll_choice_t gather_forced = { "METAMPI_COLL_GATHER", rooted_names, 2, 0, 0 };
static coll_choice_t scatter_forced = { "METAMPI_COLL_SCATTER", rooted_names, 2, 0, 0 };
/* from this block size on, linear; the tree needs at least TREE_RANKS members (with fewer, the
 * root's few messages cost less than an extra hop and the inner node's copy) */
static coll_knob_t gather_long = { "METAMPI_COLL_GATHER_LONG", 16 * 1024, 0, 0 };
static coll_knob_t gather_tree_ranks = { "METAMPI_COLL_GATHER_TREE_RANKS", 5, 0, 0 };
static coll_knob_t scatter_long = { "METAMPI_COLL_SCATTER_LONG", 16 * 1024, 0, 0 };
static coll_knob_t scatter_tree_ranks = { "METAMPI_COLL_SCATTER_TREE_RANKS", 5, 0, 0 };
static const coll_rule_t gather_rules[] = {
    R(INTER, -1),
    R(DIRECT, -1),
    R(NONE, -1),
    R(SITES, -1),
    R(HIER, -1),
    R(P2P, COLL_GATHER_LINEAR, .ranks_below = &gather_tree_ranks),
    R(P2P, COLL_GATHER_LINEAR, .from = &gather_long),
    R(P2P, COLL_GATHER_BINOMIAL),
};
static const coll_rule_t scatter_rules[] = {
    R(INTER, -1),
    R(DIRECT, -1),
    R(NONE, -1),
    R(SITES, -1),
    R(HIER, -1),
    R(P2P, COLL_GATHER_LINEAR, .ranks_below = &scatter_tree_ranks),
    R(P2P, COLL_GATHER_LINEAR, .from = &scatter_long),
    R(P2P, COLL_GATHER_BINOMIAL),
};

/* ---- Gatherv, Scatterv -------------------------------------------------------------------- */

static const char *const linear_names[] = { "linear" };
static const coll_algo_t one_algo[] = { P2P_ONLY };
static const coll_rule_t vrooted_rules[] = {
    R(INTER, -1),
    R(SITES, -1),
    R(P2P, COLL_ONLY_ALGORITHM),
};

/* ---- Allgather, Allgatherv (size: everything gathered) ----------------------------------- */

static const char *const ag_names[] = { "recursive_doubling", "bruck", "ring" };
static const coll_algo_t ag_algos[] = {
    { COLL_P2P, COLL_NEEDS_POW2, COLL_AG_BRUCK },
    P2P_ONLY,
    P2P_ONLY,
};
static coll_choice_t ag_forced = { "METAMPI_COLL_ALLGATHER", ag_names, 3, 0, 0 };
static coll_choice_t agv_forced = { "METAMPI_COLL_ALLGATHERV", ag_names, 3, 0, 0 };
/* from this total size on, the ring */
static coll_knob_t ag_long = { "METAMPI_COLL_ALLGATHER_LONG", 1024 * 1024, 0, 0 };
static coll_knob_t agv_long = { "METAMPI_COLL_ALLGATHERV_LONG", 1024 * 1024, 0, 0 };
static const coll_rule_t allgather_rules[] = {
    R(INTER, -1),
    R(DIRECT, -1),
    R(NONE, -1),
    R(SITES, -1),
    R(HIER, -1),
    /* one host, blocks up to METAMPI_COLL_SHM_ALLGATHER_MAX that fit a slot; two members:
     * one message each way (the direct path) */
    R(SHM, -1, .min_ranks = 3),
    R(P2P, COLL_AG_RING, .from = &ag_long),
    R(P2P, COLL_AG_RECURSIVE_DOUBLING),
    R(P2P, COLL_AG_BRUCK),
};
static const coll_rule_t allgatherv_rules[] = {
    R(INTER, -1),
    R(NONE, -1),
    R(SITES, -1),
    R(P2P, COLL_AG_RING, .from = &agv_long),
    R(P2P, COLL_AG_RECURSIVE_DOUBLING),
    R(P2P, COLL_AG_BRUCK),
};

/* ---- Alltoall (size: one block), Alltoallv, Alltoallw ------------------------------------- */

static const char *const a2a_names[] = { "linear", "pairwise", "bruck" };
/* bruck with one member: alltoall.c runs the exchange (a copy) and says "linear" */
static const coll_algo_t a2a_algos[] = { P2P_ONLY, P2P_ONLY, P2P_ONLY };
static coll_choice_t a2a_forced = { "METAMPI_COLL_ALLTOALL", a2a_names, 3, 0, 0 };
static coll_choice_t a2av_forced = { "METAMPI_COLL_ALLTOALLV", a2a_names, 2, 0, 0 };
/* Bruck for blocks of at most SHORT bytes with at least BRUCK_RANKS members; pairwise from
 * LONG with at least PAIRWISE_RANKS: with fewer, posting everything at once was faster at every
 * size (1 MiB blocks, 4 and 8 ranks on 2 cores: 20-35% less time), as no member waits for one
 * partner at a time */
static coll_knob_t a2a_short = { "METAMPI_COLL_ALLTOALL_SHORT", 256, 0, 0 };
static coll_knob_t a2a_bruck_ranks = { "METAMPI_COLL_ALLTOALL_BRUCK_RANKS", 16, 0, 0 };
static coll_knob_t a2a_long = { "METAMPI_COLL_ALLTOALL_LONG", 64 * 1024, 0, 0 };
static coll_knob_t a2a_pairwise_ranks = { "METAMPI_COLL_ALLTOALL_PAIRWISE_RANKS", 16, 0, 0 };
static const coll_rule_t alltoall_rules[] = {
    R(INTER, -1),
    R(DIRECT, -1),
    R(NONE, -1),
    R(SITES, -1), /* while the largest site-pair message is at most ..._SITES_ALLTOALL_MAX */
    /* one host, blocks up to METAMPI_COLL_SHM_ALLTOALL_MAX whose n fit a slot; two members:
     * one message each way (the direct path) */
    R(SHM, -1, .min_ranks = 3),
    R(P2P, COLL_A2A_BRUCK, .upto = &a2a_short, .ranks_from = &a2a_bruck_ranks),
    R(P2P, COLL_A2A_PAIRWISE, .from = &a2a_long, .ranks_from = &a2a_pairwise_ranks),
    R(P2P, COLL_A2A_LINEAR),
};
static const coll_rule_t alltoallv_rules[] = {
    R(INTER, -1),
    R(SITES, -1),
    R(P2P, COLL_A2A_LINEAR),
};

/* ---- Reduce, Allreduce (size: the vector) ------------------------------------------------- */

static const char *const reduce_names[] = { "shm", "binomial", "rabenseifner" };
static const coll_algo_t reduce_algos[] = { SHM_ONLY, P2P_ONLY, P2P_ONLY };
static coll_choice_t reduce_forced = { "METAMPI_COLL_REDUCE", reduce_names, 3, 0, 0 };
/* two members: one message and one combine beat halving the vector (measured: the binomial
 * tree is 2-3x faster from 64 KiB to 1 MiB) */
static coll_knob_t reduce_long = { "METAMPI_COLL_REDUCE_LONG", 64 * 1024, 0, 0 };
static const coll_rule_t reduce_rules[] = {
    R(INTER, -1),
    R(DIRECT, -1),
    R(NONE, -1),
    R(SITES, -1),
    R(HIER, -1),
    R(SHM, -1, .min_ranks = 3), /* two members: one message (the direct path) */
    R(P2P, COLL_REDUCE_RABENSEIFNER, .min_ranks = 3, .from = &reduce_long,
      .flags = COLL_W_COUNT_GE_P2),
    R(P2P, COLL_REDUCE_BINOMIAL),
};

static const char *const allreduce_names[] = { "shm", "recursive_doubling", "rabenseifner",
                                               "ring" };
static const coll_algo_t allreduce_algos[] = {
    SHM_ONLY,
    P2P_ONLY,
    P2P_ONLY,
    { COLL_P2P, COLL_NEEDS_COMMUTATIVE, -1 },
};
static coll_choice_t allreduce_forced = { "METAMPI_COLL_ALLREDUCE", allreduce_names, 4, 0, 0 };
static coll_knob_t allreduce_long = { "METAMPI_COLL_ALLREDUCE_LONG", 16 * 1024, 0, 0 };
static coll_knob_t allreduce_ring = { "METAMPI_COLL_ALLREDUCE_RING", 256 * 1024, 0, 0 };
static const coll_rule_t allreduce_rules[] = {
    R(INTER, -1),
    R(DIRECT, -1),
    R(NONE, -1),
    R(SITES, -1),
    R(HIER, -1),
    R(SHM, -1, .min_ranks = 3),
    R(P2P, COLL_AR_RECURSIVE_DOUBLING, .below = &allreduce_long),
    R(P2P, COLL_AR_RECURSIVE_DOUBLING, .flags = COLL_W_COUNT_LT_P2),
    R(P2P, COLL_AR_RING, .from = &allreduce_ring, .flags = COLL_W_NOT_POW2 | COLL_W_COUNT_GE_N),
    R(P2P, COLL_AR_RABENSEIFNER),
};

/* ---- Reduce_scatter(_block) (size: the whole vector) -------------------------------------- */

static const char *const rs_names[] = { "recursive_halving", "pairwise" };
static const coll_algo_t rs_algos[] = {
    { COLL_P2P, COLL_NEEDS_COMMUTATIVE, COLL_RS_PAIRWISE },
    P2P_ONLY,
};
static coll_choice_t rs_forced = { "METAMPI_COLL_REDUCE_SCATTER", rs_names, 2, 0, 0 };
static coll_knob_t rs_long = { "METAMPI_COLL_REDUCE_SCATTER_LONG", 64 * 1024, 0, 0 };
static const coll_rule_t rs_rules[] = {
    R(INTER, -1),
    R(NONE, -1),
    R(SITES, -1),
    R(HIER, -1),
    R(P2P, COLL_RS_RECURSIVE_HALVING, .below = &rs_long),
    R(P2P, COLL_RS_PAIRWISE),
};

/* ---- Scan, Exscan ------------------------------------------------------------------------- */

static const char *const scan_names[] = { "recursive_doubling", "linear" };
static const coll_algo_t scan_algos[] = { P2P_ONLY, P2P_ONLY };
static coll_choice_t scan_forced = { "METAMPI_COLL_SCAN", scan_names, 2, 0, 0 };
static const coll_rule_t scan_rules[] = {
    R(DIRECT, -1),
    R(NONE, -1),
    R(P2P, COLL_SCAN_RECURSIVE_DOUBLING),
};

/* ---- neighbourhood collectives ------------------------------------------------------------- */

static const char *const exchange_names[] = { "exchange" };
static const coll_rule_t neighbor_rules[] = {
    R(SITES, -1),
    R(P2P, COLL_ONLY_ALGORITHM),
};

static const coll_table_t tables[] = {
    TABLE(COMM_OP_BARRIER, NULL, &barrier_forced, barrier_names, barrier_algos, barrier_rules),
    TABLE(COMM_OP_BCAST, "bytes", &bcast_forced, bcast_names, bcast_algos, bcast_rules),
    TABLE(COMM_OP_GATHER, "block", &gather_forced, rooted_names, rooted_algos, gather_rules),
    TABLE(COMM_OP_GATHERV, NULL, NULL, linear_names, one_algo, vrooted_rules),
    TABLE(COMM_OP_SCATTER, "block", &scatter_forced, rooted_names, rooted_algos, scatter_rules),
    TABLE(COMM_OP_SCATTERV, NULL, NULL, linear_names, one_algo, vrooted_rules),
    TABLE(COMM_OP_ALLGATHER, "total", &ag_forced, ag_names, ag_algos, allgather_rules),
    TABLE(COMM_OP_ALLGATHERV, "total", &agv_forced, ag_names, ag_algos, allgatherv_rules),
    TABLE(COMM_OP_ALLTOALL, "block", &a2a_forced, a2a_names, a2a_algos, alltoall_rules),
    TABLE(COMM_OP_ALLTOALLV, NULL, &a2av_forced, a2a_names, a2a_algos, alltoallv_rules),
    TABLE(COMM_OP_ALLTOALLW, NULL, &a2av_forced, a2a_names, a2a_algos, alltoallv_rules),
    TABLE(COMM_OP_REDUCE, "vector", &reduce_forced, reduce_names, reduce_algos, reduce_rules),
    TABLE(COMM_OP_ALLREDUCE, "vector", &allreduce_forced, allreduce_names, allreduce_algos,
          allreduce_rules),
    TABLE(COMM_OP_REDUCE_SCATTER, "vector", &rs_forced, rs_names, rs_algos, rs_rules),
    TABLE(COMM_OP_REDUCE_SCATTER_BLOCK, "vector", &rs_forced, rs_names, rs_algos, rs_rules),
    TABLE(COMM_OP_SCAN, NULL, &scan_forced, scan_names, scan_algos, scan_rules),
    TABLE(COMM_OP_EXSCAN, NULL, &scan_forced, scan_names, scan_algos, scan_rules),
    TABLE(COMM_OP_NEIGHBOR_ALLGATHER, NULL, NULL, exchange_names, one_algo, neighbor_rules),
    TABLE(COMM_OP_NEIGHBOR_ALLGATHERV, NULL, NULL, exchange_names, one_algo, neighbor_rules),
    TABLE(COMM_OP_NEIGHBOR_ALLTOALL, NULL, NULL, exchange_names, one_algo, neighbor_rules),
    TABLE(COMM_OP_NEIGHBOR_ALLTOALLV, NULL, NULL, exchange_names, one_algo, neighbor_rules),
    TABLE(COMM_OP_NEIGHBOR_ALLTOALLW, NULL, NULL, exchange_names, one_algo, neighbor_rules),
};

const coll_table_t *coll_table(comm_op_kind_t kind)
{
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (tables[i].kind == kind)
            return &tables[i];
    return NULL;
}
