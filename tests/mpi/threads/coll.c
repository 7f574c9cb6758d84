/* Collectives on different communicators from different threads: each thread has its own
 * duplicate of MPI_COMM_WORLD (made in order by the main thread) and runs blocking and
 * nonblocking collectives on it concurrently with the others; then every thread creates and
 * frees communicators of its own (MPI_Comm_dup, MPI_Comm_split, MPI_Comm_create_group) from its
 * duplicate at the same time as the others. */
#include "threads.h"

enum { ROUNDS = 20 };

static int rank, size;
static MPI_Comm comms[64];

static void *collectives(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = comms[t];
    for (int r = 0; r < ROUNDS; r++) {
        int v = rank + t + r, sum = -1;
        CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
        CHECK(sum == size * (size - 1) / 2 + size * (t + r));
        int root = r % size, b = rank == root ? 1000 * t + r : -1;
        CHECK_RC(MPI_Bcast(&b, 1, MPI_INT, root, c), MPI_SUCCESS);
        CHECK(b == 1000 * t + r);
        int *all = malloc(sizeof(int) * (size_t)size);
        MPI_Request req;
        CHECK_RC(MPI_Iallgather(&v, 1, MPI_INT, all, 1, MPI_INT, c, &req), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
        for (int i = 0; i < size; i++)
            CHECK(all[i] == i + t + r);
        free(all);
        CHECK_RC(MPI_Ibarrier(c, &req), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    return NULL;
}

static void *create_free(void *arg)
{
    int t = (int)(long)arg;
    for (int r = 0; r < ROUNDS / 2; r++) {
        MPI_Comm dup, split, sub;
        CHECK_RC(MPI_Comm_dup(comms[t], &dup), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_split(dup, rank % 2, -rank, &split), MPI_SUCCESS);
        int n, me;
        MPI_Comm_size(split, &n);
        MPI_Comm_rank(split, &me);
        CHECK(n == (size + 1 - rank % 2) / 2);
        int sum = 0, one = 1;
        CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, split), MPI_SUCCESS);
        CHECK(sum == n);
        MPI_Group g;
        MPI_Comm_group(dup, &g);
        CHECK_RC(MPI_Comm_create_group(dup, g, t, &sub), MPI_SUCCESS);
        MPI_Group_free(&g);
        CHECK_RC(MPI_Barrier(sub), MPI_SUCCESS);
        MPI_Comm_free(&sub);
        MPI_Comm_free(&split);
        MPI_Comm_free(&dup);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = threads_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < n; t++)
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]), MPI_SUCCESS);
    threads_run(n, collectives);
    threads_run(n, create_free);
    for (int t = 0; t < n; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
