/* MPI_Comm_spawn by parents of unlike architectures (tests/hetero, issue 19): the root tells
 * the other parents the outcome (its result and the children's count) in one broadcast, whose
 * words must arrive in each parent's byte order. Run with the last parent s390x; the child is
 * this program (native). */
#include "../mpi/check.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter;
    MPI_Comm_get_parent(&parent);
    int size = 0;
    if (parent != MPI_COMM_NULL) { /* the child: two parents, one child */
        MPI_Comm_remote_size(parent, &size);
        CHECK(size == 2);
        int n = -1;
        MPI_Bcast(&n, 1, MPI_INT, 0, parent);
        CHECK(n == 42);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *child_argv[] = { "child", NULL };
    int errcode = -1;
    CHECK_RC(MPI_Comm_spawn(argv[0], child_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            &errcode), MPI_SUCCESS);
    MPI_Comm_remote_size(inter, &size);
    CHECK(size == 1 && errcode == MPI_SUCCESS);
    int n = 42;
    MPI_Bcast(&n, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    MPI_Comm_disconnect(&inter);
    if (rank == 0)
        printf("hetero spawn: ok\n");
    MPI_Finalize();
    return 0;
}
