/* Multi-threaded message rate: 2 ranks, T threads in each (MPI_THREAD_MULTIPLE), thread t of
 * each rank on its own communicator (a duplicate of MPI_COMM_WORLD per thread, as the
 * standard asks of concurrent traffic that must not match across threads). Each thread pair
 * streams windows of WINDOW 8-byte messages, osu_mbw_mr method: rank 0's thread posts WINDOW
 * MPI_Isend + MPI_Waitall, rank 1's WINDOW MPI_Irecv + MPI_Waitall and a zero-byte ack. The
 * first window is verified. The rate is every pair's messages over the time from the start
 * of all pairs to the end of the last.
 *
 * Usage: mpirun -n 2 msgrate_mt THREADS [scale]
 * Rank 0 prints "<threads> <bytes> <windows per thread> <messages_per_s>". */
#include "mt_common.h"

static const char PROG[] = "msgrate_mt";
enum { WINDOW = 64, BYTES = 8, TAG = 7, ACK = 8 };

struct pair {
    MPI_Comm comm;
    int rank, windows;
    pthread_barrier_t *start;
};

static void stream(struct pair *p, unsigned char (*buf)[BYTES + 1], int windows, int verify)
{
    MPI_Request req[WINDOW];
    MPI_Status st[WINDOW];
    for (int w = 0; w < windows; w++) {
        if (p->rank == 0) {
            for (int i = 0; i < WINDOW; i++)
                MPI_Isend(buf[i], BYTES, MPI_BYTE, 1, TAG, p->comm, &req[i]);
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, ACK, p->comm, MPI_STATUS_IGNORE);
        } else {
            for (int i = 0; i < WINDOW; i++)
                MPI_Irecv(buf[i], BYTES + 1, MPI_BYTE, 0, TAG, p->comm, &req[i]);
            MPI_Waitall(WINDOW, req, st);
            if (verify)
                for (int i = 0; i < WINDOW; i++)
                    check(PROG, buf[i], BYTES, i, &st[i]);
            MPI_Send(NULL, 0, MPI_BYTE, 0, ACK, p->comm);
        }
    }
}

static void *pair_main(void *arg)
{
    struct pair *p = arg;
    unsigned char buf[WINDOW][BYTES + 1];
    for (int i = 0; i < WINDOW; i++) {
        if (p->rank == 0)
            fill(buf[i], BYTES, i);
        else
            memset(buf[i], POISON, BYTES + 1);
    }
    stream(p, buf, 1, 1);
    stream(p, buf, p->windows / 10 + 1, 0);
    pthread_barrier_wait(p->start);
    stream(p, buf, p->windows, 0);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, threads;
    double scale;
    start_two_ranks(&argc, &argv, PROG, MAX_THREADS, &rank, &threads, &scale);
    int windows = (int)(4000 * scale / threads);
    if (windows < 10)
        windows = 10;
    struct pair pairs[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    for (int t = 0; t < threads; t++) {
        pairs[t] = (struct pair){MPI_COMM_NULL, rank, windows, &start};
        MPI_Comm_dup(MPI_COMM_WORLD, &pairs[t].comm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < threads; t++)
        if (pthread_create(&tid[t], NULL, pair_main, &pairs[t]) != 0)
            die(PROG, "pthread_create failed");
    pthread_barrier_wait(&start);
    double t0 = now_s();
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    double seconds = now_s() - t0;
    pthread_barrier_destroy(&start);
    for (int t = 0; t < threads; t++)
        MPI_Comm_free(&pairs[t].comm);
    if (rank == 0)
        printf("%d %d %d %.0f\n", threads, BYTES, windows,
               (double)threads * windows * WINDOW / seconds);
    MPI_Finalize();
    return 0;
}
