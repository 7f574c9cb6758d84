/* Environment management: init state, versions, clocks, names, sizes, ranks, attributes. */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int flag = -1;
    CHECK_RC(MPI_Initialized(&flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Finalized(&flag), MPI_SUCCESS);
    CHECK(flag == 0);
    int v, sv;
    CHECK_RC(MPI_Get_version(&v, &sv), MPI_SUCCESS); /* allowed before MPI_Init */
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION && v == 3 && sv == 1);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;
    CHECK_RC(MPI_Get_library_version(lib, &len), MPI_SUCCESS);
    CHECK(len > 0 && len == (int)strlen(lib) && strstr(lib, "metampi") != NULL);

    CHECK_RC(MPI_Init(&argc, &argv), MPI_SUCCESS);
    CHECK_RC(MPI_Initialized(&flag), MPI_SUCCESS);
    CHECK(flag == 1);

    int rank, size;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size), MPI_SUCCESS);
    CHECK(size >= 1 && rank >= 0 && rank < size);
    const char *expect_size = getenv("EXPECT_SIZE");
    if (expect_size)
        CHECK(size == atoi(expect_size));
    int srank = -1, ssize = -1;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_SELF, &srank), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_size(MPI_COMM_SELF, &ssize), MPI_SUCCESS);
    CHECK(srank == 0 && ssize == 1);

    int provided = -1;
    CHECK_RC(MPI_Query_thread(&provided), MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_SINGLE);
    CHECK_RC(MPI_Is_thread_main(&flag), MPI_SUCCESS);
    CHECK(flag == 1);

    /* processor name: the host name, NUL-terminated, length reported */
    char name[MPI_MAX_PROCESSOR_NAME], host[256];
    CHECK_RC(MPI_Get_processor_name(name, &len), MPI_SUCCESS);
    CHECK(gethostname(host, sizeof host) == 0);
    CHECK(strcmp(name, host) == 0 && len == (int)strlen(host));

    /* clocks: monotonic, tick positive and small */
    double tick = MPI_Wtick(), t0 = MPI_Wtime();
    CHECK(tick > 0 && tick < 1e-3);
    usleep(20000);
    double t1 = MPI_Wtime();
    CHECK(t1 - t0 >= 0.019 && t1 - t0 < 5.0);

    /* predefined attributes on MPI_COMM_WORLD */
    int *val = NULL;
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && val && *val >= 32767);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &val, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && (*val == MPI_PROC_NULL || (*val >= 0 && *val < size)));
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &val, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && (*val == MPI_ANY_SOURCE || *val == MPI_PROC_NULL || *val == rank));
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && (*val == 0 || *val == 1));
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag), MPI_SUCCESS);
    CHECK(flag == 0 || *val >= size); /* absent when the process manager does not know it */
    if (!getenv("PMI_FD") && !getenv("PMIX_NAMESPACE"))
        CHECK(flag == 1 && *val == 1); /* a singleton's universe is itself */
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && *val == 0);
    /* programs also ask other communicators (as MPICH allows) */
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_TAG_UB, &val, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && *val >= 32767);

    /* MPI_Pcontrol (MPI-3.1 §14.2.4): any level, extra arguments allowed, no effect */
    for (int level = 2; level >= 0; level--)
        CHECK_RC(MPI_Pcontrol(level), MPI_SUCCESS);
    CHECK_RC(MPI_Pcontrol(1, "extra", 3), MPI_SUCCESS);

    CHECK_RC(MPI_Finalize(), MPI_SUCCESS);
    CHECK_RC(MPI_Finalized(&flag), MPI_SUCCESS);
    CHECK(flag == 1);
    CHECK_RC(MPI_Initialized(&flag), MPI_SUCCESS);
    CHECK(flag == 1);
    if (rank == 0)
        printf("env: ok (%d ranks)\n", size);
    return 0;
}
