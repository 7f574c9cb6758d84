/* Where spawned ranks start on several hosts (docs/dynproc.md, "Several hosts"), including
 * hosts of the list that run no rank of the job yet, whose helper mpirun starts then.
 * Usage: spawn_where [host] [nest:G] H,H,... ... : one spawn per argument, one child per H;
 * child c must run on the c-th H. With "host", the H of an argument are the same host, given
 * as info key host; otherwise mpirun places the children by round robin over the free slots.
 * The children report MPI_Get_processor_name. With nest:G, the children of each spawn spawn
 * one grandchild on host G (info key host) in turn, which must run there. */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

/* comm spawns one child per want[c] (root 0), each of which must run on want[c]; every
 * member reaches every child. nest: the children's argument (NULL: none). */
static void spawn_once(MPI_Comm comm, const char *self, int nchild, char **want, int by_info,
                       char *nest)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Info info = MPI_INFO_NULL;
    if (by_info) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "host", want[0]);
    }
    char *args[] = { "child", nest, NULL };
    int *codes = malloc((size_t)nchild * sizeof *codes);
    CHECK(codes);
    MPI_Comm inter;
    CHECK_RC(MPI_Comm_spawn(self, args, nchild, info, 0, comm, &inter, codes), MPI_SUCCESS);
    for (int c = 0; c < nchild; c++)
        CHECK(codes[c] == MPI_SUCCESS);
    if (rank == 0)
        for (int c = 0; c < nchild; c++) {
            char where[MPI_MAX_PROCESSOR_NAME] = "";
            MPI_Recv(where, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, c, 9, inter, MPI_STATUS_IGNORE);
            if (strcmp(where, want[c]) != 0)
                fprintf(stderr, "child %d runs on '%s', not on '%s'\n", c, where, want[c]);
            CHECK(strcmp(where, want[c]) == 0);
        }
    int sum = 0, one = 1;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter), MPI_SUCCESS);
    CHECK(sum == nchild);
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    free(codes);
}

static void child(const char *self, char *nest)
{
    MPI_Comm inter;
    char where[MPI_MAX_PROCESSOR_NAME];
    int len, nparents = 0, sum = 0, one = 1;
    MPI_Comm_get_parent(&inter);
    CHECK(inter != MPI_COMM_NULL);
    MPI_Comm_remote_size(inter, &nparents);
    MPI_Get_processor_name(where, &len);
    MPI_Send(where, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 9, inter);
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter), MPI_SUCCESS);
    CHECK(sum == nparents);
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    if (nest) {   /* a spawned part spawns in turn, from the helper started for it */
        char *g[] = { nest + strlen("nest:") };
        spawn_once(MPI_COMM_WORLD, self, 1, g, 1, NULL);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc >= 2 && strcmp(argv[1], "child") == 0) {
        child(argv[0], argc >= 3 ? argv[2] : NULL);
    } else {
        int a = 1, by_info = 0;
        char *nest = NULL;
        if (a < argc && strcmp(argv[a], "host") == 0)
            by_info = ++a;
        if (a < argc && strncmp(argv[a], "nest:", 5) == 0)
            nest = argv[a++];
        CHECK(a < argc);
        int first = a;
        for (; a < argc; a++) {
            char *want[64], *save = NULL;
            int nchild = 0;
            for (char *t = strtok_r(argv[a], ",", &save); t && nchild < 64;
                 t = strtok_r(NULL, ",", &save))
                want[nchild++] = t;
            spawn_once(MPI_COMM_WORLD, argv[0], nchild, want, by_info, nest);
        }
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            printf("parents: %d spawns, every child where expected\n", argc - first);
    }
    MPI_Finalize();
    return 0;
}
