/* A site whose own ranks have all exited stays up while another site's ranks run, since
 * they may still spawn there (docs/dynproc.md, "Federated jobs"). Layout: two sites, one
 * host each (2x1x1). The last world rank (second site) spawns a child at its own host
 * (MPI_COMM_SELF) and disconnects; the world ends (MPI_Finalize), so the first site runs no
 * rank any more. The child waits 3 s, then spawns a grandchild at the first
 * site's host (info key host), which must start there and answer a message; both
 * disconnect. Before it spawns, it publishes, looks up and unpublishes a name (the job's
 * names are kept by the first site's mpirun). Before, the first site's mpirun and gateway ended with its world rank, and the
 * spawn failed (MPI_ERR_SPAWN: that site's mpirun is not connected). */
#include "../check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static MPI_Comm spawn_one(char *self, const char *host, char *what, char *arg)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", host);
    char *args[] = { what, arg, NULL };
    MPI_Comm inter = MPI_COMM_NULL;
    int code = -1;
    CHECK_RC(MPI_Comm_spawn(self, args, 1, info, 0, MPI_COMM_SELF, &inter, &code),
             MPI_SUCCESS);
    CHECK(code == MPI_SUCCESS && inter != MPI_COMM_NULL);
    MPI_Info_free(&info);
    return inter;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    char mine[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(mine, &len);
    if (parent != MPI_COMM_NULL && argc >= 3 && strcmp(argv[1], "child") == 0) {
        CHECK_RC(MPI_Comm_disconnect(&parent), MPI_SUCCESS);
        sleep(3);   /* the world has ended meanwhile, the first site's rank with it */
        /* the job's names, kept by the first site's mpirun, still work */
        char port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME] = "";
        CHECK_RC(MPI_Open_port(MPI_INFO_NULL, port), MPI_SUCCESS);
        CHECK_RC(MPI_Publish_name("metampi-linger", MPI_INFO_NULL, port), MPI_SUCCESS);
        CHECK_RC(MPI_Lookup_name("metampi-linger", MPI_INFO_NULL, found), MPI_SUCCESS);
        CHECK(strcmp(found, port) == 0);
        CHECK_RC(MPI_Unpublish_name("metampi-linger", MPI_INFO_NULL, port), MPI_SUCCESS);
        CHECK_RC(MPI_Close_port(port), MPI_SUCCESS);
        MPI_Comm inter = spawn_one(argv[0], argv[2], "grand", argv[2]);
        int v = 4242, back = 0;
        if (inter != MPI_COMM_NULL) {
            CHECK_RC(MPI_Send(&v, 1, MPI_INT, 0, 7, inter), MPI_SUCCESS);
            CHECK_RC(MPI_Recv(&back, 1, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK(back == v + 1);
            CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
            printf("a child at the second site spawned at the first, whose ranks had exited\n");
        }
        MPI_Finalize();
        return 0;
    }
    if (parent != MPI_COMM_NULL) {   /* the grandchild, at the first site's host */
        CHECK(argc >= 3 && strcmp(argv[1], "grand") == 0 && strcmp(mine, argv[2]) == 0);
        int v = 0;
        CHECK_RC(MPI_Recv(&v, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE), MPI_SUCCESS);
        v++;
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, 0, 8, parent), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_disconnect(&parent), MPI_SUCCESS);
        MPI_Finalize();
        return 0;
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    CHECK(names);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    if (rank == size - 1) {
        MPI_Comm inter = spawn_one(argv[0], mine, "child", names);   /* names[0]: rank 0's */
        if (inter != MPI_COMM_NULL)
            CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    }
    free(names);
    MPI_Finalize();
    return 0;
}
