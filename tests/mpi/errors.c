/* Errors with MPI_ERRORS_RETURN: every bad argument gives its error class and loses nothing;
 * error handlers per communicator; error strings and classes. */
#include "check.h"

#include <limits.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh), MPI_SUCCESS);
    CHECK(eh == MPI_ERRORS_ARE_FATAL); /* the default */
    CHECK_RC(MPI_Errhandler_free(&eh), MPI_SUCCESS);
    CHECK(eh == MPI_ERRHANDLER_NULL);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh), MPI_SUCCESS);
    CHECK(eh == MPI_ERRORS_RETURN);

    int buf[4] = {0, 0, 0, 0};
    CHECK_RC(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_RC(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_RC(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_RC(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_RC(MPI_Send(buf, 1, (MPI_Datatype)0x12345, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_RC(MPI_Send(buf, 1, (MPI_Datatype)MPI_COMM_WORLD, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_RC(MPI_Send(buf, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK_RC(MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK_RC(MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    /* invalid communicators raise on MPI_COMM_WORLD, whose handler now returns */
    CHECK_RC(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_RC(MPI_Send(buf, 1, MPI_INT, 0, 0, (MPI_Comm)MPI_INT), MPI_ERR_COMM);
    CHECK_RC(MPI_Comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM);
    CHECK_RC(MPI_Comm_rank((MPI_Comm)42, &rank), MPI_ERR_COMM);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_RC(MPI_Recv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
             MPI_ERR_RANK);
    CHECK_RC(MPI_Recv(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TAG);
    CHECK_RC(MPI_Recv(buf, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    int *attr, flag;
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &attr, &flag), MPI_ERR_KEYVAL);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)7), MPI_ERR_ARG);

    /* truncation: the receive gets what fits and MPI_ERR_TRUNCATE */
    int big[4] = {1, 2, 3, 4}, small[2] = {0, 0};
    MPI_Status st;
    CHECK_RC(MPI_Send(big, 4, MPI_INT, rank, 9, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(small, 2, MPI_INT, rank, 9, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    CHECK(small[0] == 1 && small[1] == 2 && st.MPI_SOURCE == rank && st.MPI_TAG == 9);

    /* handlers are per communicator: SELF is still fatal-by-default, WORLD returns */
    CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh), MPI_SUCCESS);
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), MPI_SUCCESS);
    CHECK_RC(MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_SELF), MPI_ERR_RANK);

    /* error classes and strings */
    for (int c = MPI_SUCCESS; c <= MPI_ERR_RMA_FLAVOR; c++) {
        int cls = -1, len = -1;
        char s[MPI_MAX_ERROR_STRING];
        CHECK_RC(MPI_Error_class(c, &cls), MPI_SUCCESS);
        CHECK(cls == c);
        CHECK_RC(MPI_Error_string(c, s, &len), MPI_SUCCESS);
        CHECK(len > 0 && len == (int)strlen(s) && len < MPI_MAX_ERROR_STRING);
    }
    char s[MPI_MAX_ERROR_STRING];
    int len, cls;
    MPI_Error_string(MPI_ERR_RANK, s, &len);
    CHECK(strstr(s, "MPI_ERR_RANK") && strstr(s, "rank"));
    CHECK_RC(MPI_Error_class(-3, &cls), MPI_ERR_ARG);
    CHECK_RC(MPI_Error_class(MPI_ERR_LASTCODE + 1000, &cls), MPI_ERR_ARG);
    CHECK_RC(MPI_Error_string(INT_MAX, s, &len), MPI_ERR_ARG);
    CHECK_RC(MPI_Error_string(MPI_ERR_RANK, NULL, &len), MPI_ERR_ARG);

    MPI_Finalize();
    if (rank == 0)
        printf("errors: ok\n");
    return 0;
}
