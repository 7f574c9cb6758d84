/* Multi-threaded ping-pong latency, OSU method (osu_latency_mt): 2 ranks, T threads in each
 * (MPI_THREAD_MULTIPLE); thread t of rank 0 ping-pongs with thread t of rank 1 on
 * MPI_COMM_WORLD with tag t, all pairs at once. For each size, a verified round trip per pair,
 * warm-up, then timed round trips; latency is the time from the start of all pairs to the end
 * of the last, over the round trips of one pair, halved (what a pair sees while the others
 * run, including the time it was kept off the CPU or the lock by them).
 *
 * Usage: mpirun -n 2 latency_mt THREADS [scale]
 * Rank 0 prints one line per size: "<threads> <bytes> <iterations> <latency_us>". */
#include "mt_common.h"

static const char PROG[] = "latency_mt";
static const long SIZES[] = {0, 1, 2, 4, 8, 64, 1024, 16384, 65536};
enum { NSIZES = sizeof SIZES / sizeof SIZES[0] };

struct pair {
    int thread, rank, iterations;
    long bytes;
    pthread_barrier_t *start;
    double end;
};

static void round_trips(unsigned char *sbuf, unsigned char *rbuf, long bytes, int rank,
                        int tag, int n)
{
    int peer = 1 - rank;
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
        }
    }
}

static void *pair_main(void *arg)
{
    struct pair *p = arg;
    unsigned char *sbuf = xmalloc(PROG, (size_t)p->bytes + 1);
    unsigned char *rbuf = xmalloc(PROG, (size_t)p->bytes + 1);
    int peer = 1 - p->rank, seed = p->rank * MAX_THREADS + p->thread;
    MPI_Status status;
    /* verified: each side sends its own pattern once */
    fill(sbuf, p->bytes, seed);
    memset(rbuf, POISON, (size_t)p->bytes + 1);
    if (p->rank == 0)
        MPI_Send(sbuf, (int)p->bytes, MPI_BYTE, peer, p->thread, MPI_COMM_WORLD);
    MPI_Recv(rbuf, (int)p->bytes + 1, MPI_BYTE, peer, p->thread, MPI_COMM_WORLD, &status);
    check(PROG, rbuf, p->bytes, peer * MAX_THREADS + p->thread, &status);
    if (p->rank == 1)
        MPI_Send(sbuf, (int)p->bytes, MPI_BYTE, peer, p->thread, MPI_COMM_WORLD);
    round_trips(sbuf, rbuf, p->bytes, p->rank, p->thread, p->iterations / 10 + 1);
    pthread_barrier_wait(p->start);
    round_trips(sbuf, rbuf, p->bytes, p->rank, p->thread, p->iterations);
    p->end = now_s();
    free(sbuf);
    free(rbuf);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, threads;
    double scale;
    start_two_ranks(&argc, &argv, PROG, MAX_THREADS, &rank, &threads, &scale);
    for (int s = 0; s < NSIZES; s++) {
        long bytes = SIZES[s];
        int iterations = (int)((bytes <= 1024 ? 5000 : bytes <= 16384 ? 2000 : 500) * scale);
        if (iterations < 20)
            iterations = 20;
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
        pthread_t tid[MAX_THREADS];
        struct pair pairs[MAX_THREADS];
        MPI_Barrier(MPI_COMM_WORLD);
        for (int t = 0; t < threads; t++) {
            pairs[t] = (struct pair){t, rank, iterations, bytes, &start, 0};
            if (pthread_create(&tid[t], NULL, pair_main, &pairs[t]) != 0)
                die(PROG, "pthread_create failed");
        }
        pthread_barrier_wait(&start);
        double t0 = now_s(), end = t0;
        for (int t = 0; t < threads; t++) {
            pthread_join(tid[t], NULL);
            end = pairs[t].end > end ? pairs[t].end : end;
        }
        pthread_barrier_destroy(&start);
        if (rank == 0)
            printf("%d %ld %d %.3f\n", threads, bytes, iterations,
                   (end - t0) / iterations / 2 * 1e6);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
