/* The tools interface's control variables, enumerations and categories (MPI-3.1 §14.3.5,
 * .6, .8), before MPI_Init and after MPI_Finalize too. Run with METAMPI_COLL_BARRIER=
 * dissemination and METAMPI_CC=mpit-cc in the environment. */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static int find_cvar(const char *name)
{
    int i = -1;
    CHECK_RC(MPI_T_cvar_get_index(name, &i), MPI_SUCCESS);
    return i;
}

static void check_strings(void)
{
    int i = find_cvar("METAMPI_COLL_BARRIER"), len = 0;
    /* no buffer: only the length, terminator included */
    CHECK_RC(MPI_T_cvar_get_info(i, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(len == (int)strlen("METAMPI_COLL_BARRIER") + 1);
    char small[8];
    len = sizeof small; /* truncated, terminated */
    CHECK_RC(MPI_T_cvar_get_info(i, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(len == 8 && !strcmp(small, "METAMPI"));
}

static void check_values(void)
{
    int verbosity, bind, scope, count, value = -1, num = 0;
    MPI_Datatype type;
    MPI_T_enum e;
    MPI_T_cvar_handle h;
    char name[64], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc;

    int i = find_cvar("METAMPI_COLL_BARRIER");
    CHECK_RC(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &e, desc, &desc_len,
                                 &bind, &scope),
             MPI_SUCCESS);
    CHECK(!strcmp(name, "METAMPI_COLL_BARRIER") && type == MPI_INT && e != MPI_T_ENUM_NULL);
    CHECK(bind == MPI_T_BIND_NO_OBJECT && scope == MPI_T_SCOPE_READONLY && desc_len > 1);
    CHECK(verbosity == MPI_T_VERBOSITY_USER_BASIC);
    name_len = sizeof name;
    CHECK_RC(MPI_T_enum_get_info(e, &num, name, &name_len), MPI_SUCCESS);
    CHECK(num == 3);
    name_len = sizeof name;
    CHECK_RC(MPI_T_enum_get_item(e, 2, &value, name, &name_len), MPI_SUCCESS);
    CHECK(value == 2 && !strcmp(name, "dissemination"));
    CHECK_RC(MPI_T_enum_get_item(e, 3, &value, name, &name_len), MPI_T_ERR_INVALID_ITEM);
    CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
    CHECK(count == 1);
    CHECK_RC(MPI_T_cvar_read(h, &value), MPI_SUCCESS);
    CHECK(value == 2); /* the environment's value */
    CHECK_RC(MPI_T_cvar_write(h, &value), MPI_T_ERR_CVAR_SET_NEVER);
    CHECK_RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL);
    CHECK_RC(MPI_T_cvar_read(h, &value), MPI_T_ERR_INVALID_HANDLE);

    i = find_cvar("METAMPI_CC"); /* a text */
    CHECK_RC(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &type, &e, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(type == MPI_CHAR && e == MPI_T_ENUM_NULL);
    CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
    CHECK(count == (int)strlen("mpit-cc") + 1);
    char text[16];
    CHECK_RC(MPI_T_cvar_read(h, text), MPI_SUCCESS);
    CHECK(!strcmp(text, "mpit-cc"));
    CHECK_RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);

    i = find_cvar("METAMPI_DT_IOV_MIN"); /* a size, unset: its default */
    CHECK_RC(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &type, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(type == MPI_UNSIGNED_LONG_LONG);
    unsigned long long size = 0;
    CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_read(h, &size), MPI_SUCCESS);
    CHECK(size == 262144);
    /* handles outlive MPI_Init/MPI_Finalize but not the last MPI_T_finalize */
}

static void check_errors(void)
{
    int n, i, count;
    MPI_T_cvar_handle h;
    CHECK_RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_cvar_get_index("METAMPI_NO_SUCH_VARIABLE", &i), MPI_T_ERR_INVALID_NAME);
    /* keys are never control variables */
    CHECK_RC(MPI_T_cvar_get_index("METAMPI_JOB_KEY", &i), MPI_T_ERR_INVALID_NAME);
    CHECK_RC(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID);
    int cls = -1, len;
    char s[MPI_MAX_ERROR_STRING];
    CHECK_RC(MPI_Error_class(MPI_T_ERR_INVALID_INDEX, &cls), MPI_SUCCESS);
    CHECK(cls == MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_Error_string(MPI_T_ERR_INVALID_NAME, s, &len), MPI_SUCCESS);
    CHECK(len > 0);
}

static void check_categories(void)
{
    int ncat, ncvar, npvar, sum_c = 0, sum_p = 0;
    CHECK_RC(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_get_num(&ncvar), MPI_SUCCESS);
    CHECK_RC(MPI_T_pvar_get_num(&npvar), MPI_SUCCESS);
    int *seen = calloc((size_t)ncvar, sizeof *seen);
    for (int c = 0; c < ncat; c++) {
        int nc, np, nsub;
        char name[64];
        int len = sizeof name;
        CHECK_RC(MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &nsub),
                 MPI_SUCCESS);
        int idx = -1;
        CHECK_RC(MPI_T_category_get_index(name, &idx), MPI_SUCCESS);
        CHECK(idx == c && nsub == 0);
        int *members = malloc((size_t)(nc + 1) * sizeof *members);
        CHECK_RC(MPI_T_category_get_cvars(c, nc, members), MPI_SUCCESS);
        for (int k = 0; k < nc; k++) {
            CHECK(members[k] >= 0 && members[k] < ncvar && !seen[members[k]]);
            seen[members[k]] = 1;
        }
        free(members);
        CHECK_RC(MPI_T_category_get_categories(c, 0, NULL), MPI_SUCCESS);
        sum_c += nc;
        sum_p += np;
    }
    CHECK(sum_c == ncvar && sum_p == npvar); /* each variable in exactly one category */
    free(seen);
    int traffic, pv[16], stamp = -1;
    CHECK_RC(MPI_T_category_get_index("traffic", &traffic), MPI_SUCCESS);
    CHECK_RC(MPI_T_category_get_pvars(traffic, 16, pv), MPI_SUCCESS);
    char name[64];
    int len = sizeof name;
    CHECK_RC(MPI_T_pvar_get_info(pv[0], name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(!strncmp(name, "sent_", 5));
    CHECK_RC(MPI_T_category_get_index("nothing", &traffic), MPI_T_ERR_INVALID_NAME);
    CHECK_RC(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);
    CHECK_RC(MPI_T_category_changed(&stamp), MPI_SUCCESS);
    CHECK(stamp == 0);
}

int main(int argc, char **argv)
{
    int provided = -1, n;
    CHECK_RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_SINGLE);
    check_strings();
    check_values(); /* before MPI_Init */
    MPI_Init(&argc, &argv);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS); /* nested */
    check_errors();
    check_categories();
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS); /* one init still open */
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    check_values(); /* after MPI_Finalize */
    CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    if (rank == 0)
        printf("mpit cvars: OK\n");
    return 0;
}
