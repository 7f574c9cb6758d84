/* The quick MPI-4.0/4.1 additions: the status field accessors (4.1 §3.2.5), with their
 * argument checks; MPI_VERSION stays 3.1. */
#include "../check.h"

#include <mpi.h>
#include <string.h>

static void status_fields(int rank)
{
    MPI_Status st;
    memset(&st, 0, sizeof st);
    CHECK_RC(MPI_Status_set_source(&st, 3), MPI_SUCCESS);
    CHECK_RC(MPI_Status_set_tag(&st, 44), MPI_SUCCESS);
    CHECK_RC(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE), MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 44 && st.MPI_ERROR == MPI_ERR_TRUNCATE);
    int v = -1;
    CHECK_RC(MPI_Status_get_source(&st, &v), MPI_SUCCESS);
    CHECK(v == 3);
    CHECK_RC(MPI_Status_get_tag(&st, &v), MPI_SUCCESS);
    CHECK(v == 44);
    CHECK_RC(MPI_Status_get_error(&st, &v), MPI_SUCCESS);
    CHECK(v == MPI_ERR_TRUNCATE);

    /* on a received message's status */
    int x = rank;
    MPI_Sendrecv(&x, 1, MPI_INT, 0, 21, &v, 1, MPI_INT, 0, 21, MPI_COMM_SELF, &st);
    int source, tag;
    MPI_Status_get_source(&st, &source);
    MPI_Status_get_tag(&st, &tag);
    CHECK(source == 0 && tag == 21);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Status_get_source(NULL, &v), MPI_ERR_ARG);
    CHECK_RC(MPI_Status_get_tag(&st, NULL), MPI_ERR_ARG);
    CHECK_RC(MPI_Status_get_error(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG);
    CHECK_RC(MPI_Status_set_source(NULL, 1), MPI_ERR_ARG);
    CHECK_RC(MPI_Status_set_tag(NULL, 1), MPI_ERR_ARG);
    CHECK_RC(MPI_Status_set_error(NULL, 1), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, version, subversion;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_version(&version, &subversion);
    CHECK(version == 3 && subversion == 1 && MPI_VERSION == 3 && MPI_SUBVERSION == 1);
    status_fields(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
