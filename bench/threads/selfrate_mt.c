/* Multi-threaded message rate to self: 1 rank, T threads (MPI_THREAD_MULTIPLE), each on its
 * own duplicate of MPI_COMM_SELF, posting windows of WINDOW 8-byte MPI_Irecv + MPI_Isend to
 * itself and MPI_Waitall. No message crosses a transport: what it times is the library's own
 * per-message work (request allocation, matching, completion), which threads on different
 * communicators can do at once only if the library does not serialise them, and on a host
 * with two cores a rank's two threads have one each (msgrate_mt's ranks have one core each).
 * The first window of every thread is verified. The rate is all threads' messages over the
 * time from the start of all to the end of the last.
 *
 * Usage: mpirun -n 1 selfrate_mt THREADS [scale]
 * Prints "<threads> <bytes> <windows per thread> <messages_per_s>". */
#include "mt_common.h"

static const char PROG[] = "selfrate_mt";
enum { WINDOW = 64, BYTES = 8 };

struct worker {
    MPI_Comm comm;
    int seed, windows;
    pthread_barrier_t *start;
};

static void stream(struct worker *w, unsigned char (*sbuf)[BYTES + 1],
                   unsigned char (*rbuf)[BYTES + 1], int windows, int verify)
{
    MPI_Request req[2 * WINDOW];
    MPI_Status st[2 * WINDOW];
    for (int n = 0; n < windows; n++) {
        if (verify)
            for (int i = 0; i < WINDOW; i++)
                memset(rbuf[i], POISON, BYTES + 1);
        for (int i = 0; i < WINDOW; i++) {
            MPI_Irecv(rbuf[i], BYTES + 1, MPI_BYTE, 0, i, w->comm, &req[i]);
            MPI_Isend(sbuf[i], BYTES, MPI_BYTE, 0, i, w->comm, &req[WINDOW + i]);
        }
        MPI_Waitall(2 * WINDOW, req, st);
        if (verify)
            for (int i = 0; i < WINDOW; i++)
                check(PROG, rbuf[i], BYTES, w->seed + i, &st[i]);
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    unsigned char sbuf[WINDOW][BYTES + 1], rbuf[WINDOW][BYTES + 1];
    for (int i = 0; i < WINDOW; i++)
        fill(sbuf[i], BYTES, w->seed + i);
    stream(w, sbuf, rbuf, 1, 1);
    stream(w, sbuf, rbuf, w->windows / 10 + 1, 0);
    pthread_barrier_wait(w->start);
    stream(w, sbuf, rbuf, w->windows, 0);
    return NULL;
}

int main(int argc, char **argv)
{
    int size;
    init_thread_level(&argc, &argv, MPI_THREAD_MULTIPLE, PROG);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    if (size != 1 || threads < 1 || threads > MAX_THREADS || scale <= 0 || scale > 1) {
        fprintf(stderr, "usage: mpirun -n 1 %s THREADS(1..%d) [scale in (0,1]]\n", PROG,
                MAX_THREADS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int windows = (int)(8000 * scale / threads);
    if (windows < 10)
        windows = 10;
    struct worker workers[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    for (int t = 0; t < threads; t++) {
        workers[t] = (struct worker){MPI_COMM_NULL, t * WINDOW, windows, &start};
        MPI_Comm_dup(MPI_COMM_SELF, &workers[t].comm);
    }
    for (int t = 0; t < threads; t++)
        if (pthread_create(&tid[t], NULL, worker_main, &workers[t]) != 0)
            die(PROG, "pthread_create failed");
    pthread_barrier_wait(&start);
    double t0 = now_s();
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    double seconds = now_s() - t0;
    pthread_barrier_destroy(&start);
    for (int t = 0; t < threads; t++)
        MPI_Comm_free(&workers[t].comm);
    printf("%d %d %d %.0f\n", threads, BYTES, windows,
           (double)threads * windows * WINDOW / seconds);
    MPI_Finalize();
    return 0;
}
