/* User error handlers (called with the communicator and the code, kept alive while a
 * communicator uses them), MPI_Comm_call_errhandler, and user-defined error classes, codes
 * and strings with MPI_LASTUSEDCODE. */
#include "attr_test.h"

#include <string.h>

static struct {
    int calls;
    MPI_Comm comm;
    int code;
} seen;

static void handler(MPI_Comm *comm, int *code, ...)
{
    seen.calls++;
    seen.comm = *comm;
    seen.code = *code;
}

static int second_calls;
static void second_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    second_calls++;
}

/* A handler may call MPI itself, even raise another error on another communicator. */
static void nesting_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    seen.calls++;
    int size;
    CHECK_ERR(MPI_Comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM); /* raised on WORLD */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got;
    CHECK_RC(MPI_Comm_create_errhandler(handler, &eh), MPI_SUCCESS);
    CHECK(eh != MPI_ERRHANDLER_NULL && eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got), MPI_SUCCESS);
    CHECK(got == eh);
    CHECK_RC(MPI_Errhandler_free(&got), MPI_SUCCESS);
    CHECK(got == MPI_ERRHANDLER_NULL);

    /* an error raised on SELF calls the handler with SELF and the error's code; the call
     * then returns the code */
    int buf = 0, cls;
    int rc = MPI_Send(&buf, 1, MPI_INT, 5, 0, MPI_COMM_SELF);
    CHECK(rc != MPI_SUCCESS && seen.calls == 1 && seen.comm == MPI_COMM_SELF && seen.code == rc);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK);
    rc = MPI_Recv(&buf, 1, MPI_INT, 0, -5, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TAG && seen.calls == 2 && seen.code == rc);

    /* freed by the user while SELF uses it: it stays alive */
    CHECK_RC(MPI_Errhandler_free(&eh), MPI_SUCCESS);
    CHECK(eh == MPI_ERRHANDLER_NULL);
    rc = MPI_Send(&buf, 1, MPI_INT, 7, 0, MPI_COMM_SELF);
    CHECK(rc != MPI_SUCCESS && seen.calls == 3 && seen.comm == MPI_COMM_SELF);
    CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, got), MPI_SUCCESS);
    CHECK_RC(MPI_Errhandler_free(&got), MPI_SUCCESS);

    /* MPI_Comm_call_errhandler */
    CHECK_RC(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER), MPI_SUCCESS);
    CHECK(seen.calls == 4 && seen.comm == MPI_COMM_WORLD && seen.code == MPI_ERR_OTHER);
    /* errors on an invalid communicator go to MPI_COMM_WORLD's handler */
    CHECK_ERR(MPI_Comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM);
    CHECK(seen.calls == 5 && seen.comm == MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* replacing the handler: the new one is called, the old one no more */
    MPI_Errhandler eh2;
    CHECK_RC(MPI_Comm_create_errhandler(second_handler, &eh2), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh2), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_ARG), MPI_SUCCESS);
    CHECK(second_calls == 1 && seen.calls == 5);
    CHECK_RC(MPI_Errhandler_free(&eh2), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_ARG), MPI_SUCCESS);
    CHECK(second_calls == 2);

    /* a handler that calls MPI and raises an error on WORLD (whose handler records it) */
    MPI_Errhandler eh3;
    CHECK_RC(MPI_Comm_create_errhandler(nesting_handler, &eh3), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh3), MPI_SUCCESS);
    CHECK_RC(MPI_Errhandler_free(&eh3), MPI_SUCCESS);
    seen.calls = 0;
    CHECK_RC(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_INTERN), MPI_SUCCESS);
    CHECK(seen.calls == 2 && seen.comm == MPI_COMM_WORLD);

    /* the predefined handlers: MPI_Comm_call_errhandler with MPI_ERRORS_RETURN returns */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);

    /* user-defined error classes, codes and strings */
    int *last, flag;
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && *last >= MPI_ERR_LASTCODE);
    int start = *last;
    int c1, c2, code1, code2, code3;
    CHECK_RC(MPI_Add_error_class(&c1), MPI_SUCCESS);
    CHECK(c1 > MPI_ERR_LASTCODE);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && *last >= c1 && *last > start);
    CHECK_RC(MPI_Add_error_code(c1, &code1), MPI_SUCCESS);
    CHECK_RC(MPI_Add_error_code(c1, &code2), MPI_SUCCESS);
    CHECK_RC(MPI_Add_error_class(&c2), MPI_SUCCESS);
    CHECK_RC(MPI_Add_error_code(MPI_ERR_RANK, &code3), MPI_SUCCESS);
    CHECK(c1 != c2 && code1 != code2 && code1 != c1 && code1 != c2 && code3 != MPI_ERR_RANK);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag), MPI_SUCCESS);
    CHECK(*last >= c1 && *last >= c2);
#ifdef METAMPI
    /* MPICH counts only classes in MPI_LASTUSEDCODE */
    CHECK(*last >= code1 && *last >= code2 && *last >= code3);
#endif
    CHECK_RC(MPI_Error_class(c1, &cls), MPI_SUCCESS);
    CHECK(cls == c1);
    CHECK_RC(MPI_Error_class(code1, &cls), MPI_SUCCESS);
    CHECK(cls == c1);
    CHECK_RC(MPI_Error_class(code2, &cls), MPI_SUCCESS);
    CHECK(cls == c1);
    CHECK_RC(MPI_Error_class(c2, &cls), MPI_SUCCESS);
    CHECK(cls == c2);
    CHECK_RC(MPI_Error_class(code3, &cls), MPI_SUCCESS);
    CHECK(cls == MPI_ERR_RANK);

    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    CHECK_RC(MPI_Error_string(code1, s, &len), MPI_SUCCESS);
    CHECK(len == 0 && s[0] == '\0'); /* no string yet */
    CHECK_RC(MPI_Add_error_string(c1, "the first class"), MPI_SUCCESS);
    CHECK_RC(MPI_Add_error_string(code1, "code one of the first class"), MPI_SUCCESS);
    CHECK_RC(MPI_Error_string(c1, s, &len), MPI_SUCCESS);
    CHECK(strcmp(s, "the first class") == 0 && len == (int)strlen(s));
    CHECK_RC(MPI_Error_string(code1, s, &len), MPI_SUCCESS);
    CHECK(strcmp(s, "code one of the first class") == 0 && len == (int)strlen(s));
    CHECK_RC(MPI_Add_error_string(code1, "changed"), MPI_SUCCESS); /* may be replaced */
    CHECK_RC(MPI_Error_string(code1, s, &len), MPI_SUCCESS);
    CHECK(strcmp(s, "changed") == 0 && len == 7);
    CHECK_RC(MPI_Error_string(code2, s, &len), MPI_SUCCESS);
    CHECK(len == 0);

    /* a user code through a user handler */
    CHECK_RC(MPI_Comm_create_errhandler(handler, &eh), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_SUCCESS);
    seen.calls = 0;
    CHECK_RC(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code2), MPI_SUCCESS);
    CHECK(seen.calls == 1 && seen.code == code2 && seen.comm == MPI_COMM_WORLD);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    CHECK_RC(MPI_Errhandler_free(&eh), MPI_SUCCESS);

    /* error paths */
    CHECK_ERR(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_get_errhandler(MPI_COMM_NULL, &got), MPI_ERR_COMM);
#ifdef METAMPI
    /* checks MPICH does not make (it accepts them) */
    CHECK_ERR(MPI_Add_error_string(MPI_ERR_RANK, "no"), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_string(*last + 100, "no"), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_code(*last + 100, &code1), MPI_ERR_ARG);
    CHECK_ERR(MPI_Add_error_code(code3, &code1), MPI_ERR_ARG); /* a code, not a class */
    CHECK_ERR(MPI_Add_error_class(NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Comm_create_errhandler(NULL, &got), MPI_ERR_ARG);
    CHECK_ERR(MPI_Errhandler_free(&eh), MPI_ERR_ARG); /* MPI_ERRHANDLER_NULL */
    CHECK_ERR(MPI_Error_class(*last + 1, &cls), MPI_ERR_ARG);
    CHECK_ERR(MPI_Error_string(*last + 1, s, &len), MPI_ERR_ARG);
    {
        char longer[MPI_MAX_ERROR_STRING + 10];
        memset(longer, 'x', sizeof longer - 1);
        longer[sizeof longer - 1] = '\0';
        CHECK_ERR(MPI_Add_error_string(c2, longer), MPI_ERR_ARG);
    }
#endif

    MPI_Finalize();
    if (rank == 0)
        printf("errhandler: ok\n");
    return 0;
}
