/* Ports and names (MPI-3.1 §10.4) between processes of one mpirun job.
 *   - two halves of MPI_COMM_WORLD (np >= 2): the first opens a port and publishes it, the
 *     second looks it up and connects, the first accepts; a sum over the inter-communicator;
 *   - parents and the children they spawn (any np): the parents open a port, spawn children
 *     with the port's name as argument, and accept them a second time through it (a second
 *     inter-communicator to the same processes);
 *   - errors: a name nobody published (MPI_ERR_NAME), unpublishing twice (MPI_ERR_SERVICE),
 *     connecting to a closed port (MPI_ERR_PORT).
 * Usage: ports [child PORT NPARENTS] */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static void sum_over(MPI_Comm inter, int mine, int want)
{
    int sum = 0;
    CHECK_RC(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter), MPI_SUCCESS);
    CHECK(sum == want);
}

static void halves(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int first = rank < size / 2 || size == 1 ? 0 : 1;
    int nfirst = size / 2, nsecond = size - nfirst;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, first, rank, &half);
    char port[MPI_MAX_PORT_NAME] = "";
    if (first == 0 && rank == 0) {
        CHECK_RC(MPI_Open_port(MPI_INFO_NULL, port), MPI_SUCCESS);
        CHECK_RC(MPI_Publish_name("metampi-halves", MPI_INFO_NULL, port), MPI_SUCCESS);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm inter;
    if (first == 0) {
        CHECK_RC(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter), MPI_SUCCESS);
    } else {
        if (rank == nfirst)
            CHECK_RC(MPI_Lookup_name("metampi-halves", MPI_INFO_NULL, port), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter), MPI_SUCCESS);
    }
    int rsize = 0;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == (first == 0 ? nsecond : nfirst));
    /* the first half adds 1 each, the second 10 each: each side gets the other's sum */
    sum_over(inter, first == 0 ? 1 : 10, first == 0 ? 10 * nsecond : nfirst);
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    if (first == 0 && rank == 0) {
        CHECK_RC(MPI_Unpublish_name("metampi-halves", MPI_INFO_NULL, port), MPI_SUCCESS);
        CHECK_RC(MPI_Close_port(port), MPI_SUCCESS);
    }
    MPI_Comm_free(&half);
}

static void with_children(const char *self)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char port[MPI_MAX_PORT_NAME] = "", nparents[16];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        CHECK_RC(MPI_Open_port(MPI_INFO_NULL, port), MPI_SUCCESS);
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(nparents, sizeof nparents, "%d", size);
    char *args[] = { "child", port, nparents, NULL };
    MPI_Comm spawned, accepted;
    CHECK_RC(MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &spawned,
                            MPI_ERRCODES_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &accepted), MPI_SUCCESS);
    sum_over(accepted, 1, 2 * 10);
    sum_over(spawned, 2, 2 * 20);
    CHECK_RC(MPI_Comm_disconnect(&accepted), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_disconnect(&spawned), MPI_SUCCESS);
    if (rank == 0)
        CHECK_RC(MPI_Close_port(port), MPI_SUCCESS);
}

static void child(const char *port, int nparents)
{
    MPI_Comm parent, connected;
    MPI_Comm_get_parent(&parent);
    CHECK(parent != MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &connected), MPI_SUCCESS);
    sum_over(connected, 10, nparents);
    sum_over(parent, 20, 2 * nparents);
    CHECK_RC(MPI_Comm_disconnect(&connected), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_disconnect(&parent), MPI_SUCCESS);
}

static void errors(void)
{
    int rank, cls;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char port[MPI_MAX_PORT_NAME];
    MPI_Error_class(MPI_Lookup_name("metampi-nobody", MPI_INFO_NULL, port), &cls);
    CHECK(cls == MPI_ERR_NAME);
    if (rank == 0) {
        CHECK_RC(MPI_Open_port(MPI_INFO_NULL, port), MPI_SUCCESS);
        CHECK_RC(MPI_Publish_name("metampi-once", MPI_INFO_NULL, port), MPI_SUCCESS);
        MPI_Error_class(MPI_Publish_name("metampi-once", MPI_INFO_NULL, port), &cls);
        CHECK(cls == MPI_ERR_SERVICE);
        CHECK_RC(MPI_Unpublish_name("metampi-once", MPI_INFO_NULL, port), MPI_SUCCESS);
        MPI_Error_class(MPI_Unpublish_name("metampi-once", MPI_INFO_NULL, port), &cls);
        CHECK(cls == MPI_ERR_SERVICE);
        CHECK_RC(MPI_Close_port(port), MPI_SUCCESS);
        MPI_Comm none = MPI_COMM_WORLD;
        MPI_Error_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &none), &cls);
        CHECK(cls == MPI_ERR_PORT && none == MPI_COMM_NULL);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc >= 4 && strcmp(argv[1], "child") == 0) {
        child(argv[2], atoi(argv[3]));
    } else {
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (size >= 2)
            halves();
        with_children(argv[0]);
        errors();
    }
    MPI_Finalize();
    return 0;
}
