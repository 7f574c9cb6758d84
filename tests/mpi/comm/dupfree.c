/* Context ids must not run out in long programs: 5000 MPI_Comm_dup/MPI_Comm_free cycles,
 * thousands of MPI_Comm_idup started in rank-dependent orders on two communicators, and —
 * with metampi's METAMPI_CONTEXT_IDS making the pool small — running out on purpose (an
 * error, not a hang) and recovering once communicators are freed. */
#include "../check.h"

#include <stdlib.h>

static int rank, size;
/* Repetitions (environment DUPFREE_SCALE in percent, default 100): MPICH, which spins, needs
 * a small scale on an oversubscribed host to finish at all. */
static int scale = 100;

static void ring(MPI_Comm c)
{
    int n, r, got = -1;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    CHECK_RC(MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % n, 0, &got, 1, MPI_INT, (r - 1 + n) % n, 0,
                          c, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(got == (r - 1 + n) % n);
}

static void cycles(void)
{
    for (int i = 0; i < 50 * scale; i++) {
        MPI_Comm d;
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
        if (i % 500 == 0)
            ring(d);
        CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    }
}

/* Windows of idups on two parents, started A-then-B on even ranks and B-then-A on odd ones
 * (correct: nonblocking collective operations on different communicators may be started in
 * different orders, MPI-3.1 §5.12). MPICH 4.0.2 hangs on this (one agreement at a time owns
 * its context-id mask), so the MPICH validation build starts them in one order. */
#ifdef METAMPI
#define ODD_RANKS_SWAP 1
#else
#define ODD_RANKS_SWAP 0
#endif
static void idup_windows(void)
{
    enum { W = 8 };
    MPI_Comm a, b, n[2 * W];
    MPI_Request r[2 * W];
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &b);
    for (int round = 0; round < (150 * scale + 99) / 100; round++) {
        for (int i = 0; i < W; i++) {
            /* n[2i] is always a's duplicate, n[2i + 1] b's */
            int swap = ODD_RANKS_SWAP && rank % 2;
            CHECK_RC(MPI_Comm_idup(swap ? b : a, &n[2 * i + swap], &r[2 * i + swap]),
                     MPI_SUCCESS);
            CHECK_RC(MPI_Comm_idup(swap ? a : b, &n[2 * i + !swap], &r[2 * i + !swap]),
                     MPI_SUCCESS);
        }
        CHECK_RC(MPI_Waitall(2 * W, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        if (round % 50 == 0)
            for (int i = 0; i < 2 * W; i++)
                ring(n[i]);
        for (int i = 0; i < 2 * W; i++)
            CHECK_RC(MPI_Comm_free(&n[i]), MPI_SUCCESS);
    }
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

#ifdef METAMPI
/* With a small pool: duplicate until the agreement fails, free everything, start over. */
static void exhaustion(void)
{
    const char *v = getenv("METAMPI_CONTEXT_IDS");
    if (!v)
        return;
    int pool = atoi(v), max = pool + 10;
    MPI_Comm *c = malloc((size_t)max * sizeof *c);
    for (int round = 0; round < 3; round++) {
        int n = 0, rc, cls;
        while ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &c[n])) == MPI_SUCCESS) {
            n++;
            CHECK(n < max);
        }
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OTHER);
        CHECK(n == pool - 2); /* everything but the pairs of MPI_COMM_WORLD and MPI_COMM_SELF */
        ring(c[n - 1]);
        while (n)
            CHECK_RC(MPI_Comm_free(&c[--n]), MPI_SUCCESS);
    }
    free(c);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (getenv("DUPFREE_SCALE"))
        scale = atoi(getenv("DUPFREE_SCALE"));
    cycles();
    idup_windows();
#ifdef METAMPI
    exhaustion();
#endif
    MPI_Finalize();
    return 0;
}
