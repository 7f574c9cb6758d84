/* The quick MPI-4.0/4.1 additions: the status field accessors (4.1 §3.2.5),
 * MPI_Info_get_string and MPI_Info_create_env (4.0 §10, §11.4; the latter also before
 * MPI_Init), MPI_Comm_idup_with_info, with their argument checks; MPI_VERSION stays 3.1. */
#include "../check.h"

#include <mpi.h>
#include <stdio.h>
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

static void info_get_string(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "key", "value12");
    char buf[16];
    int len = sizeof buf, flag = 0;
    CHECK_RC(MPI_Info_get_string(info, "key", &len, buf, &flag), MPI_SUCCESS);
    CHECK(flag && len == 8 && strcmp(buf, "value12") == 0);
    len = 4; /* truncated to 3 characters; the full length comes back */
    CHECK_RC(MPI_Info_get_string(info, "key", &len, buf, &flag), MPI_SUCCESS);
    CHECK(flag && len == 8 && strcmp(buf, "val") == 0);
    len = 0; /* only the length */
    CHECK_RC(MPI_Info_get_string(info, "key", &len, NULL, &flag), MPI_SUCCESS);
    CHECK(flag && len == 8);
    len = 5;
    strcpy(buf, "same");
    CHECK_RC(MPI_Info_get_string(info, "nokey", &len, buf, &flag), MPI_SUCCESS);
    CHECK(!flag && len == 5 && strcmp(buf, "same") == 0);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Info_get_string(MPI_INFO_NULL, "key", &len, buf, &flag), MPI_ERR_INFO);
    CHECK_RC(MPI_Info_get_string(info, "", &len, buf, &flag), MPI_ERR_INFO_KEY);
    CHECK_RC(MPI_Info_get_string(info, "key", NULL, buf, &flag), MPI_ERR_ARG);
    CHECK_RC(MPI_Info_get_string(info, "key", &len, buf, NULL), MPI_ERR_ARG);
    len = 4;
    CHECK_RC(MPI_Info_get_string(info, "key", &len, NULL, &flag), MPI_ERR_ARG);
    len = -1;
    CHECK_RC(MPI_Info_get_string(info, "key", &len, buf, &flag), MPI_ERR_ARG);
    CHECK_RC(MPI_Info_create_env(0, NULL, NULL), MPI_ERR_ARG);
    CHECK_RC(MPI_Info_create_env(-1, NULL, &info), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Info_free(&info);
}

static void info_value(MPI_Info info, const char *key, char *value)
{
    int len = MPI_MAX_INFO_VAL + 1, flag = 0;
    MPI_Info_get_string(info, key, &len, value, &flag);
    if (!flag)
        value[0] = '\0';
}

/* before_init: made before MPI_Init from main's arguments */
static void info_create_env(MPI_Info before_init, const char *argv0, int size)
{
    char v[MPI_MAX_INFO_VAL + 1];
    info_value(before_init, "command", v);
    CHECK(strcmp(v, argv0) == 0);
    info_value(before_init, "wdir", v);
    CHECK(v[0] == '/');
    MPI_Info_free(&before_init);

    MPI_Info info;
    CHECK_RC(MPI_Info_create_env(0, NULL, &info), MPI_SUCCESS);
    CHECK(info != MPI_INFO_ENV && info != MPI_INFO_NULL);
    info_value(info, "maxprocs", v);
    char expect[32];
    snprintf(expect, sizeof expect, "%d", size);
    CHECK(strcmp(v, expect) == 0);
    MPI_Info_set(info, "mine", "1"); /* a copy: MPI_INFO_ENV stays as it is */
    int flag = 1, len;
    MPI_Info_get_valuelen(MPI_INFO_ENV, "mine", &len, &flag);
    CHECK(!flag);
    MPI_Info_free(&info);
}

static void idup_with_info(int rank, int size)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "metampi_test_hint", "yes");
    MPI_Comm dups[2];
    MPI_Request reqs[2];
    CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &dups[0], &reqs[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &dups[1], &reqs[1]),
             MPI_SUCCESS);
    MPI_Info_free(&info); /* the hints were copied */
    CHECK_RC(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    MPI_Info used;
    MPI_Comm_get_info(dups[0], &used);
    char v[MPI_MAX_INFO_VAL + 1];
    info_value(used, "metampi_test_hint", v);
    CHECK(strcmp(v, "yes") == 0);
    MPI_Info_free(&used);
    MPI_Comm_get_info(dups[1], &used);
    info_value(used, "metampi_test_hint", v);
    CHECK(v[0] == '\0');
    MPI_Info_free(&used);
    int sum = 0, one = 1, cmp;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dups[0]);
    CHECK(sum == size);
    MPI_Comm_compare(dups[0], MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_CONGRUENT);
    MPI_Comm_free(&dups[0]);
    MPI_Comm_free(&dups[1]);
    (void)rank;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm c;
    MPI_Request r;
    CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, (MPI_Info)12345, &c, &r), MPI_ERR_INFO);
    CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_NULL, MPI_INFO_NULL, &c, &r), MPI_ERR_COMM);
    CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, NULL, &r), MPI_ERR_ARG);
    CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c, NULL), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Info before_init;
    CHECK_RC(MPI_Info_create_env(argc, argv, &before_init), MPI_SUCCESS);
    MPI_Init(&argc, &argv);
    int rank, version, subversion;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_version(&version, &subversion);
    CHECK(version == 3 && subversion == 1 && MPI_VERSION == 3 && MPI_SUBVERSION == 1);
    status_fields(rank);
    info_get_string();
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    info_create_env(before_init, argv[0], size);
    idup_with_info(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
