/* MPI_Comm_spawn_multiple (MPI-3.1 §10.3.3) and MPI_APPNUM: the parents spawn two
 * applications of this program in one call, one process of "first" and NB of "second" (the
 * latter with the info key wdir=/tmp); the children share one MPI_COMM_WORLD in that order,
 * each knows its application's number and arguments, the second's start in /tmp. A sum over
 * the inter-communicator checks that everyone is connected. Usage: spawn_multiple NB */
#include "../check.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void parent(int nb, const char *self)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char nbs[16];
    snprintf(nbs, sizeof nbs, "%d", nb);
    char *cmds[2] = { (char *)self, (char *)self };
    char *argv_a[] = { "first", "with space", NULL };
    char *argv_b[] = { "second", nbs, NULL };
    char **argvs[2] = { argv_a, argv_b };
    int maxprocs[2] = { 1, nb };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    MPI_Info_create(&infos[1]);
    MPI_Info_set(infos[1], "wdir", "/tmp");
    int codes[16];
    MPI_Comm inter;
    CHECK_RC(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &inter,
                                     codes),
             MPI_SUCCESS);
    MPI_Info_free(&infos[1]);
    for (int i = 0; i < 1 + nb; i++)
        CHECK(codes[i] == MPI_SUCCESS);
    int rsize = 0, one = 1, sum = 0;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 1 + nb);
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter), MPI_SUCCESS);
    CHECK(sum == 100 * (1 + nb) + (0 + nb * 1));   /* 100 + appnum from each child */
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
}

static void child(int argc, char **argv)
{
    MPI_Comm inter;
    MPI_Comm_get_parent(&inter);
    CHECK(inter != MPI_COMM_NULL);
    int rank, size, *appnum = NULL, flag = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    CHECK(flag);
    if (strcmp(argv[1], "first") == 0) {
        CHECK(*appnum == 0 && rank == 0 && argc == 3 && strcmp(argv[2], "with space") == 0);
    } else {
        int nb = atoi(argv[2]);
        CHECK(*appnum == 1 && rank >= 1 && size == 1 + nb);
        char here[PATH_MAX], tmp[PATH_MAX];
        CHECK(getcwd(here, sizeof here) && realpath("/tmp", tmp));
        CHECK(strcmp(here, tmp) == 0);
    }
    int mine = 100 + *appnum, sum = 0;
    CHECK_RC(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc >= 2 && (strcmp(argv[1], "first") == 0 || strcmp(argv[1], "second") == 0))
        child(argc, argv);
    else
        parent(argc >= 2 ? atoi(argv[1]) : 2, argv[0]);
    MPI_Finalize();
    return 0;
}
