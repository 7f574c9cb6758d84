/* MPI_Comm_call_errhandler with MPI_ERRORS_ARE_FATAL and a user-defined code: the job ends
 * with one report naming the function and the code's string (checked by the test's output
 * expression). */
#include "attr_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int cls, code;
    CHECK_RC(MPI_Add_error_class(&cls), MPI_SUCCESS);
    CHECK_RC(MPI_Add_error_code(cls, &code), MPI_SUCCESS);
    CHECK_RC(MPI_Add_error_string(code, "the application's own failure"), MPI_SUCCESS);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    fprintf(stderr, "FAIL: MPI_ERRORS_ARE_FATAL returned\n");
    MPI_Finalize();
    return 0;
}
