/* How long traffic between two sites stops around a WAN cut: ranks 0 and 1 (at different
 * sites) exchange small numbered messages back to back (a ping-pong of 8 B) for SECONDS;
 * every message carries its round number and is checked on arrival, so a lost, repeated or
 * reordered message aborts the job. Rank 0 prints, on the wall clock (CLOCK_REALTIME, so that
 * the benchmark that cuts and restores the link can compare its own times with them):
 *   "recovery running"         once the first round trip is done (the cue to cut the link);
 *   "gap START END"            for every pause between two round trips longer than GAP_S:
 *                              END is when traffic flowed again;
 *   "recovery done ROUNDS N"   at the end (N gaps).
 * Usage: mpirun -n 2 recovery SECONDS */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { TAG = 7 };
static const double GAP_S = 0.2;   /* a WAN round trip here is ~10 ms: 20 of them */
static const int64_t STOP = -1;

static double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void expect(int64_t got, int64_t want, int rank)
{
    if (got != want) {
        fprintf(stderr, "recovery: rank %d: message %lld arrived where %lld was due\n", rank,
                (long long)got, (long long)want);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 0;
    if (size != 2 || seconds <= 0) {
        if (rank == 0)
            fprintf(stderr, "recovery: usage: mpirun -n 2 recovery SECONDS (SECONDS > 0; "
                            "got %d ranks)\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int64_t round = 0, got;
    if (rank == 0) {
        int gaps = 0;
        double start = wall_seconds(), last = start;
        for (;; round++) {
            int64_t send = wall_seconds() - start < seconds ? round : STOP;
            MPI_Send(&send, 1, MPI_INT64_T, 1, TAG, MPI_COMM_WORLD);
            if (send == STOP)
                break;
            MPI_Recv(&got, 1, MPI_INT64_T, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            expect(got, round, rank);
            double now = wall_seconds();
            if (round == 0) {
                printf("recovery running\n");
                fflush(stdout);
            } else if (now - last > GAP_S) {
                printf("gap %.6f %.6f\n", last, now);
                fflush(stdout);
                gaps++;
            }
            last = now;
        }
        printf("recovery done %lld %d\n", (long long)round, gaps);
    } else {
        for (;; round++) {
            MPI_Recv(&got, 1, MPI_INT64_T, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (got == STOP)
                break;
            expect(got, round, rank);
            MPI_Send(&got, 1, MPI_INT64_T, 0, TAG, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
