/* The prefix reductions (MPI-3.1 §5.11): MPI_Scan (rank i gets in_0 op ... op in_i) and
 * MPI_Exscan (rank i > 0 gets in_0 op ... op in_{i-1}; rank 0's receive buffer is undefined,
 * only its guard is checked) against a reference folded locally in rank order, for the
 * representative (type, op) pairs of coll_red.h — including the NON-COMMUTATIVE matrix
 * product, whose prefix products show any misordering — counts 0, small, random and up to
 * 1 MiB, MPI_IN_PLACE (allowed for both), on MPI_COMM_WORLD, a duplicate, an odd/even split,
 * a split in reverse rank order and MPI_COMM_SELF.
 *
 *   coll_scan [nb]     nb: through MPI_Iscan / MPI_Iexscan
 */
#include "coll_red.h"

static void do_scan(MPI_Comm c, const redcase_t *rc, size_t count, int ex, int inplace,
                    int key)
{
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    const tdesc_t *t = &tds[rc->td];
    void *sbuf = rbuf_alloc(t, count), *rbuf = rbuf_alloc(t, count);
    void *exp = rbuf_alloc(t, count), *sexp = rbuf_alloc(t, count);
    red_input(t, rc->op, inplace ? rbuf : sbuf, count, key, me);
    red_input(t, rc->op, sexp, count, key, me);
    int hi = ex ? me : me + 1; /* inputs 0 .. hi - 1 */
    if (hi > 0)
        red_reference(t, rc->op, exp, 0, count, key, 0, hi);
    const void *sb = inplace ? MPI_IN_PLACE : sbuf;
    if (ex)
        CHECK_RC(c_exscan(sb, rbuf, (int)count, t->type, rc->op, c), MPI_SUCCESS);
    else
        CHECK_RC(c_scan(sb, rbuf, (int)count, t->type, rc->op, c), MPI_SUCCESS);
    const char *what = ex ? (inplace ? "exscan in place" : "exscan")
                          : (inplace ? "scan in place" : "scan");
    if (hi > 0)
        red_compare(t, rc->opname, rbuf, exp, count, what);
    else
        red_guard(t, rbuf, count);
    if (!inplace)
        red_compare(t, rc->opname, sbuf, sexp, count, "scan sendbuf");
    free(sbuf), free(rbuf), free(exp), free(sexp);
}

static size_t count_for(size_t bytes, const tdesc_t *t)
{
    size_t c = bytes / t->extent;
    return c > 8 ? c - 3 : c;
}

static void t_scan(MPI_Comm c, int key0, int full)
{
    int key = key0;
    rng_t g = {(uint64_t)key0};
    for (int k = 0; k < NREDCASES; k++) {
        if (!full && k % 5 != 2 && redcases[k].td != TD_MAT)
            continue;
        const redcase_t *rc = &redcases[k];
        size_t counts[2] = {(size_t)(1 + rng_int(&g, 3)), (size_t)(4 + rng_int(&g, 300))};
        for (int i = 0; i < 2; i++) {
            key++;
            do_scan(c, rc, counts[i], 0, (k + i) % 2, key);
            do_scan(c, rc, counts[i], 1, (k + i + 1) % 2, key);
        }
    }
    key++;
    do_scan(c, &redcases[0], 0, 0, 0, key);
    do_scan(c, &redcases[0], 0, 1, 1, key);
    static const int big[] = {0, 12, 32, 34, 35};
    for (int b = 0; b < (int)(sizeof big / sizeof *big); b++) {
        if (!full && b % 2)
            continue;
        const redcase_t *rc = &redcases[big[b]];
        for (size_t bytes = 1 << 16; bytes <= 1 << 20; bytes <<= 2) {
            key++;
            size_t cnt = count_for(bytes, &tds[rc->td]);
            do_scan(c, rc, cnt, 0, bytes == 1 << 18, key);
            do_scan(c, rc, cnt, 1, bytes != 1 << 18, key);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    coll_args(argc, argv);
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    red_init();
    comms_init();
    for (int ci = 0; ci < NCOMMS; ci++) {
        coll_ctx = comm_names[ci];
        t_scan(comms[ci], (ci + 1) << 20, ci == 0 || ci == 3);
    }
    comms_free();
    red_free();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_scan%s: ok\n", coll_nb ? " (nonblocking)" : "");
    return 0;
}
