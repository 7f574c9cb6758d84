/* Overlap of computation with communication: how much of a nonblocking transfer is hidden
 * behind computation that makes no MPI call. OP is isend (ranks 2k and 2k+1: MPI_Isend /
 * MPI_Irecv of BYTES) or iallreduce (MPI_Iallreduce of BYTES of ints, MPI_SUM, on every rank).
 * Per repetition, after a barrier, each rank times
 *   transfer: post + MPI_Wait;
 *   compute:  a busy loop without MPI calls of 1.5 × the slowest rank's transfer time;
 *   both:     post, compute, MPI_Wait;
 * and the hidden share is 1 - (both - compute) / transfer (of the slowest rank's medians over
 * the repetitions, robust to a rank preempted by other work; 100 %:
 * the transfer cost nothing, 0 %: it all came after the computation), clamped to [0, 100].
 * Every received message is checked after its repetition's timing.
 *
 * Usage: mpirun -n N overlap isend|iallreduce BYTES single|multiple [scale]
 * (single|multiple: the level given to MPI_Init_thread; MPICH's progress thread needs
 * multiple). Rank 0 prints "<op> <bytes> <reps> <transfer_us> <compute_us> <both_us>
 * <hidden_pct>". */
#include "mt_common.h"

static const char PROG[] = "overlap";
enum { TAG = 5 };

struct job {
    int rank, size, allreduce;
    long bytes;
    unsigned char *buf; /* isend: bytes + 1; iallreduce: the send vector */
    int *sum;           /* iallreduce: the result */
};

/* Busy work for `seconds`, no MPI calls (what a computing rank does). */
static double compute(double seconds)
{
    volatile double x = 1.0;
    double end = now_s() + seconds;
    while (now_s() < end)
        for (int i = 0; i < 200; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

static void post(struct job *j, MPI_Request *req)
{
    int n = (int)(j->bytes / (long)sizeof(int));
    if (j->allreduce) {
        MPI_Iallreduce(j->buf, j->sum, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req);
    } else if ((j->rank ^ 1) >= j->size) {
        *req = MPI_REQUEST_NULL; /* the odd rank out has no partner */
    } else if (j->rank % 2 == 0) {
        MPI_Isend(j->buf, (int)j->bytes, MPI_BYTE, j->rank + 1, TAG, MPI_COMM_WORLD, req);
    } else {
        memset(j->buf, POISON, (size_t)j->bytes + 1);
        MPI_Irecv(j->buf, (int)j->bytes + 1, MPI_BYTE, j->rank - 1, TAG, MPI_COMM_WORLD, req);
    }
}

static void verify(struct job *j, const MPI_Status *status)
{
    if (j->allreduce) {
        int n = (int)(j->bytes / (long)sizeof(int));
        for (int i = 0; i < n; i++) {
            long want = 0;
            for (int r = 0; r < j->size; r++)
                want += r + 1 + i % 7;
            if (j->sum[i] != want)
                die(PROG, "wrong MPI_Iallreduce result");
        }
    } else if (j->rank % 2 == 1) {
        check(PROG, j->buf, j->bytes, j->rank - 1, status);
    }
}

/* One repetition: the seconds from the barrier to the end of the wait, with compute_s of
 * computation between post and wait (0: none), or of computation alone (transfer == 0). */
static double repetition(struct job *j, double compute_s, int transfer)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status status;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s();
    if (transfer)
        post(j, &req);
    if (compute_s > 0)
        compute(compute_s);
    if (transfer)
        MPI_Wait(&req, &status);
    double t = now_s() - t0;
    if (transfer && req == MPI_REQUEST_NULL)
        verify(j, &status);
    return t;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double slowest(double mine)
{
    double max;
    MPI_Allreduce(&mine, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

int main(int argc, char **argv)
{
    struct job j = {0};
    int multiple = argc > 3 && strcmp(argv[3], "multiple") == 0;
    init_thread_level(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, PROG);
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.size);
    double scale = argc > 4 ? atof(argv[4]) : 1.0;
    j.bytes = argc > 2 ? atol(argv[2]) : 0;
    int ok = argc > 3 && (strcmp(argv[1], "isend") == 0 || strcmp(argv[1], "iallreduce") == 0)
             && j.bytes >= (long)sizeof(int) && j.bytes % (long)sizeof(int) == 0 &&
             (multiple || strcmp(argv[3], "single") == 0) && scale > 0 && scale <= 1;
    if (!ok || j.size < 2) {
        if (j.rank == 0)
            fprintf(stderr, "usage: mpirun -n N(>=2) %s isend|iallreduce BYTES(multiple of "
                    "4) single|multiple [scale in (0,1]]\n", PROG);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    j.allreduce = strcmp(argv[1], "iallreduce") == 0;
    j.buf = xmalloc(PROG, (size_t)j.bytes + 1);
    j.sum = xmalloc(PROG, (size_t)j.bytes);
    if (j.allreduce) {
        int *v = (int *)(void *)j.buf;
        for (long i = 0; i < j.bytes / (long)sizeof(int); i++)
            v[i] = j.rank + 1 + (int)(i % 7);
    } else if (j.rank % 2 == 0) {
        fill(j.buf, j.bytes, j.rank);
    }
    int reps = (int)(40 * scale);
    if (reps < 5)
        reps = 5;
    for (int i = 0; i < 3; i++)
        repetition(&j, 0, 1);
    double *t_transfer = xmalloc(PROG, sizeof(double) * (size_t)reps);
    double *t_compute = xmalloc(PROG, sizeof(double) * (size_t)reps);
    double *t_both = xmalloc(PROG, sizeof(double) * (size_t)reps);
    for (int i = 0; i < reps; i++)
        t_transfer[i] = repetition(&j, 0, 1);
    double transfer = slowest(median_of(t_transfer, reps));
    double work = 1.5 * transfer;
    for (int i = 0; i < reps; i++) {
        t_compute[i] = repetition(&j, work, 0);
        t_both[i] = repetition(&j, work, 1);
    }
    double computed = slowest(median_of(t_compute, reps));
    double both = slowest(median_of(t_both, reps));
    double hidden = 100.0 * (1.0 - (both - computed) / transfer);
    hidden = hidden < 0 ? 0 : hidden > 100 ? 100 : hidden;
    if (j.rank == 0)
        printf("%s %ld %d %.1f %.1f %.1f %.1f\n", argv[1], j.bytes, reps, transfer * 1e6,
               computed * 1e6, both * 1e6, hidden);
    free(t_transfer);
    free(t_compute);
    free(t_both);
    free(j.buf);
    free(j.sum);
    MPI_Finalize();
    return 0;
}
