/* Handle and status conversion between C and Fortran (MPI-3.1 §17.2.4-17.2.5): every kind
 * round-trips, predefined handles included; f2c of a value that is no
 * live handle of the kind (a freed handle, a handle of another kind, garbage) gives the null
 * handle; status conversion keeps every field and rejects the ignore values. */
#include "../check.h"

#include <mpi.h>
#include <string.h>

#define ROUND_TRIP(Kind, h) CHECK(MPI_##Kind##_f2c(MPI_##Kind##_c2f(h)) == (h))

static void predefined(void)
{
    ROUND_TRIP(Comm, MPI_COMM_WORLD);
    ROUND_TRIP(Comm, MPI_COMM_SELF);
    ROUND_TRIP(Comm, MPI_COMM_NULL);
    ROUND_TRIP(Type, MPI_INT);
    ROUND_TRIP(Type, MPI_DOUBLE_INT);
    ROUND_TRIP(Type, MPI_DATATYPE_NULL);
    ROUND_TRIP(Group, MPI_GROUP_EMPTY);
    ROUND_TRIP(Group, MPI_GROUP_NULL);
    ROUND_TRIP(Request, MPI_REQUEST_NULL);
    ROUND_TRIP(Op, MPI_SUM);
    ROUND_TRIP(Op, MPI_NO_OP);
    ROUND_TRIP(Op, MPI_OP_NULL);
    ROUND_TRIP(Info, MPI_INFO_ENV);
    ROUND_TRIP(Info, MPI_INFO_NULL);
    ROUND_TRIP(Errhandler, MPI_ERRORS_RETURN);
    ROUND_TRIP(Errhandler, MPI_ERRORS_ARE_FATAL);
    ROUND_TRIP(Errhandler, MPI_ERRHANDLER_NULL);
    ROUND_TRIP(Message, MPI_MESSAGE_NO_PROC);
    ROUND_TRIP(Message, MPI_MESSAGE_NULL);
}

static void invalid_values(void)
{
    const MPI_Fint garbage[] = { -1, 0, 1, 12345, 0x7fffffff };
    for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++) {
        MPI_Fint v = garbage[i];
        CHECK(MPI_Comm_f2c(v) == MPI_COMM_NULL);
        CHECK(MPI_Type_f2c(v) == MPI_DATATYPE_NULL);
        CHECK(MPI_Group_f2c(v) == MPI_GROUP_NULL);
        CHECK(MPI_Request_f2c(v) == MPI_REQUEST_NULL);
        CHECK(MPI_Op_f2c(v) == MPI_OP_NULL);
        CHECK(MPI_Info_f2c(v) == MPI_INFO_NULL);
        CHECK(MPI_Errhandler_f2c(v) == MPI_ERRHANDLER_NULL);
        CHECK(MPI_Message_f2c(v) == MPI_MESSAGE_NULL);
    }
    /* a live handle of one kind is no handle of another */
    CHECK(MPI_Type_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_DATATYPE_NULL);
    CHECK(MPI_Comm_f2c(MPI_Type_c2f(MPI_INT)) == MPI_COMM_NULL);
    CHECK(MPI_Op_f2c(MPI_Info_c2f(MPI_INFO_ENV)) == MPI_OP_NULL);
}

/* User-created objects round-trip while they live and convert to null once freed. */
static void user_objects(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Fint f = MPI_Comm_c2f(comm);
    CHECK(MPI_Comm_f2c(f) == comm);
    MPI_Comm_free(&comm);
    CHECK(MPI_Comm_f2c(f) == MPI_COMM_NULL);

    MPI_Datatype type;
    MPI_Type_contiguous(3, MPI_INT, &type);
    f = MPI_Type_c2f(type);
    CHECK(MPI_Type_f2c(f) == type);
    MPI_Type_free(&type);
    CHECK(MPI_Type_f2c(f) == MPI_DATATYPE_NULL);

    MPI_Group world, group;
    int zero = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &zero, &group);
    f = MPI_Group_c2f(group);
    CHECK(MPI_Group_f2c(f) == group);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    CHECK(MPI_Group_f2c(f) == MPI_GROUP_NULL);

    MPI_Info info;
    MPI_Info_create(&info);
    f = MPI_Info_c2f(info);
    CHECK(MPI_Info_f2c(f) == info);
    MPI_Info_free(&info);
    CHECK(MPI_Info_f2c(f) == MPI_INFO_NULL);

    MPI_Op op;
    MPI_Op_create((MPI_User_function *)0x1, 1, &op);
    f = MPI_Op_c2f(op);
    CHECK(MPI_Op_f2c(f) == op);
    MPI_Op_free(&op);
    CHECK(MPI_Op_f2c(f) == MPI_OP_NULL);

    MPI_Request req;
    int rank, buf = 7, got = 0;
    MPI_Comm_rank(MPI_COMM_SELF, &rank);
    MPI_Irecv(&got, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &req);
    f = MPI_Request_c2f(req);
    CHECK(MPI_Request_f2c(f) == req);
    MPI_Send(&buf, 1, MPI_INT, 0, 5, MPI_COMM_SELF);
    MPI_Request back = MPI_Request_f2c(f);
    MPI_Wait(&back, MPI_STATUS_IGNORE);
    CHECK(got == 7 && back == MPI_REQUEST_NULL);
    CHECK(MPI_Request_f2c(f) == MPI_REQUEST_NULL);

    MPI_Message msg;
    MPI_Status st;
    MPI_Send(&buf, 1, MPI_INT, 0, 6, MPI_COMM_SELF);
    MPI_Mprobe(0, 6, MPI_COMM_SELF, &msg, &st);
    f = MPI_Message_c2f(msg);
    CHECK(MPI_Message_f2c(f) == msg);
    MPI_Mrecv(&got, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
    CHECK(MPI_Message_f2c(f) == MPI_MESSAGE_NULL);
}

static void user_errhandler_fn(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

static void errhandler_objects(void)
{
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(user_errhandler_fn, &eh);
    MPI_Fint f = MPI_Errhandler_c2f(eh);
    CHECK(MPI_Errhandler_f2c(f) == eh);
    MPI_Errhandler_free(&eh);
    CHECK(MPI_Errhandler_f2c(f) == MPI_ERRHANDLER_NULL);
}

static void statuses(void)
{
    CHECK(MPI_STATUS_SIZE * sizeof(MPI_Fint) >= sizeof(MPI_Status));
    MPI_Status c, back;
    memset(&c, 0, sizeof c);
    memset(&back, 0xff, sizeof back);
    int payload[3] = { 1, 2, 3 };
    MPI_Request req;
    MPI_Isend(payload, 3, MPI_INT, 0, 42, MPI_COMM_SELF, &req);
    MPI_Recv(payload, 3, MPI_INT, 0, 42, MPI_COMM_SELF, &c);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    c.MPI_ERROR = MPI_ERR_TRUNCATE;
    MPI_Fint f[MPI_STATUS_SIZE];
    CHECK_RC(MPI_Status_c2f(&c, f), MPI_SUCCESS);
    CHECK(f[MPI_F_SOURCE] == 0 && f[MPI_F_TAG] == 42 && f[MPI_F_ERROR] == MPI_ERR_TRUNCATE);
    CHECK_RC(MPI_Status_f2c(f, &back), MPI_SUCCESS);
    CHECK(back.MPI_SOURCE == 0 && back.MPI_TAG == 42 && back.MPI_ERROR == MPI_ERR_TRUNCATE);
    int count = -1;
    MPI_Get_count(&back, MPI_INT, &count);
    CHECK(count == 3);

    /* the ignore values cannot be converted */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG);
    CHECK_RC(MPI_Status_c2f(&c, MPI_F_STATUS_IGNORE), MPI_ERR_ARG);
    CHECK_RC(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back), MPI_ERR_ARG);
    CHECK_RC(MPI_Status_f2c(f, MPI_STATUS_IGNORE), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    predefined();
    invalid_values();
    user_objects();
    errhandler_objects();
    statuses();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
