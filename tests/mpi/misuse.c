/* Programs that use MPI wrongly, one way per mode (argv[1]); the driver (misuse_test.py)
 * checks that each is reported clearly and ends the job. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int query_fails(void *extra_state, MPI_Status *status)
{
    (void)extra_state;
    (void)status;
    return MPI_ERR_BUFFER;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rank = 0, size = 1, v = 0;
    if (strcmp(mode, "before-init") == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "bad-send") == 0) {
        /* the last rank sends to a rank that does not exist; the others wait for ever */
        if (rank == size - 1)
            MPI_Send(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
        else
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "truncate") == 0) {
        int big[2] = {1, 2};
        /* rank 0 sends to itself; the others wait */
        if (rank == 0) {
            MPI_Send(big, 2, MPI_INT, 0, 3, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (strcmp(mode, "swapped") == 0 || strcmp(mode, "swapped-nb") == 0) {
        /* rank 0 calls MPI_Bcast then MPI_Allreduce, the others the other way round (the
         * I-forms with "swapped-nb"): must fail with MPI_ERR_NOT_SAME, not mix their data */
        int nb = mode[7] != 0, buf[4] = {1, 2, 3, 4}, out[4];
        MPI_Request rq[2];
        for (int k = 0; k < 2; k++) {
            if ((k == 0) == (rank == 0)) {
                if (nb)
                    MPI_Ibcast(buf, 4, MPI_INT, 0, MPI_COMM_WORLD, &rq[k]);
                else
                    MPI_Bcast(buf, 4, MPI_INT, 0, MPI_COMM_WORLD);
            } else {
                if (nb)
                    MPI_Iallreduce(buf, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k]);
                else
                    MPI_Allreduce(buf, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            }
        }
        for (int k = 0; nb && k < 2; k++)
            MPI_Wait(&rq[k], MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "dup-vs-barrier") == 0) {
        /* rank 0 duplicates the communicator while the others enter a barrier */
        MPI_Comm c;
        if (rank == 0)
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != 0)
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
    } else if (strcmp(mode, "grequest-twice") == 0) {
        MPI_Request r;
        MPI_Grequest_start(NULL, NULL, NULL, NULL, &r);
        MPI_Grequest_complete(r);
        MPI_Grequest_complete(r);
    } else if (strcmp(mode, "grequest-query-fails") == 0) {
        MPI_Request r;
        MPI_Grequest_start(query_fails, NULL, NULL, NULL, &r);
        MPI_Grequest_complete(r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "isendrecv-bad-rank") == 0) {
        MPI_Request r;
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Isendrecv(&v, 1, MPI_INT, 0, 0, &v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &r);
    } else if (strcmp(mode, "init-twice") == 0) {
        MPI_Init(&argc, &argv);
    } else if (strcmp(mode, "after-finalize") == 0) {
        MPI_Finalize();
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        return 0;
    }
    MPI_Finalize();
    printf("misuse: mode '%s' was not caught\n", mode);
    return 0;
}
