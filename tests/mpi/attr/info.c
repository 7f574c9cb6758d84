/* Info objects: every MPI_Info call, the order of keys, duplication, limits, MPI_INFO_ENV,
 * and the error paths (bad keys, missing keys, n out of range, MPI_INFO_NULL). */
#include "attr_test.h"

#include <stdlib.h>
#include <string.h>

static void check_value(MPI_Info info, const char *key, const char *expected)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0, len = -1;
    CHECK_RC(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && strcmp(v, expected) == 0);
    CHECK_RC(MPI_Info_get_valuelen(info, key, &len, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && len == (int)strlen(expected));
}

static void check_absent(MPI_Info info, const char *key)
{
    char v[8] = "keep";
    int flag = 1, len = -7;
    CHECK_RC(MPI_Info_get(info, key, 7, v, &flag), MPI_SUCCESS);
    CHECK(flag == 0 && strcmp(v, "keep") == 0);
    CHECK_RC(MPI_Info_get_valuelen(info, key, &len, &flag), MPI_SUCCESS);
    CHECK(flag == 0 && len == -7);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nkeys, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char key[MPI_MAX_INFO_KEY + 1];

    MPI_Info info = MPI_INFO_NULL, dup;
    CHECK_RC(MPI_Info_create(&info), MPI_SUCCESS);
    CHECK(info != MPI_INFO_NULL);
    CHECK_RC(MPI_Info_get_nkeys(info, &nkeys), MPI_SUCCESS);
    CHECK(nkeys == 0);
    check_absent(info, "cb_nodes");

    CHECK_RC(MPI_Info_set(info, "cb_nodes", "4"), MPI_SUCCESS);
    CHECK_RC(MPI_Info_set(info, "striping_unit", "1048576"), MPI_SUCCESS);
    CHECK_RC(MPI_Info_set(info, "my_key", "a value with spaces"), MPI_SUCCESS);
    CHECK_RC(MPI_Info_get_nkeys(info, &nkeys), MPI_SUCCESS);
    CHECK(nkeys == 3);
    check_value(info, "cb_nodes", "4");
    check_value(info, "striping_unit", "1048576");
    check_value(info, "my_key", "a value with spaces");
    /* replacing a value keeps the number of keys */
    CHECK_RC(MPI_Info_set(info, "cb_nodes", "16"), MPI_SUCCESS);
    CHECK_RC(MPI_Info_get_nkeys(info, &nkeys), MPI_SUCCESS);
    CHECK(nkeys == 3);
    check_value(info, "cb_nodes", "16");
    /* every key once through get_nthkey */
    int seen_mask = 0;
    for (int i = 0; i < nkeys; i++) {
        CHECK_RC(MPI_Info_get_nthkey(info, i, key), MPI_SUCCESS);
        if (strcmp(key, "cb_nodes") == 0)
            seen_mask |= 1;
        else if (strcmp(key, "striping_unit") == 0)
            seen_mask |= 2;
        else if (strcmp(key, "my_key") == 0)
            seen_mask |= 4;
    }
    CHECK(seen_mask == 7);

    /* a short buffer gets a truncated, terminated value (MPI-3.1 §9: the value is truncated;
     * MPICH also reports MPI_ERR_INFO_VALUE, so the return code is not checked) */
    char small[8];
    memset(small, 'X', sizeof small);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Info_get(info, "striping_unit", 3, small, &flag);
    CHECK(flag == 1 && strcmp(small, "104") == 0 && small[4] == 'X');
#ifdef METAMPI
    CHECK(rc == MPI_SUCCESS);
#else
    (void)rc;
#endif

    /* dup is a deep copy */
    CHECK_RC(MPI_Info_dup(info, &dup), MPI_SUCCESS);
    CHECK(dup != info && dup != MPI_INFO_NULL);
    CHECK_RC(MPI_Info_set(dup, "cb_nodes", "2"), MPI_SUCCESS);
    CHECK_RC(MPI_Info_delete(dup, "my_key"), MPI_SUCCESS);
    check_value(info, "cb_nodes", "16");
    check_value(info, "my_key", "a value with spaces");
    check_value(dup, "cb_nodes", "2");
    check_absent(dup, "my_key");
    CHECK_RC(MPI_Info_get_nkeys(dup, &nkeys), MPI_SUCCESS);
    CHECK(nkeys == 2);

    /* delete */
    CHECK_RC(MPI_Info_delete(info, "striping_unit"), MPI_SUCCESS);
    check_absent(info, "striping_unit");
    CHECK_RC(MPI_Info_get_nkeys(info, &nkeys), MPI_SUCCESS);
    CHECK(nkeys == 2);

    /* limits: a key of MPI_MAX_INFO_KEY characters and a value of MPI_MAX_INFO_VAL */
    char *longkey = malloc(MPI_MAX_INFO_KEY + 2), *longval = malloc(MPI_MAX_INFO_VAL + 2);
    memset(longkey, 'k', MPI_MAX_INFO_KEY + 1);
    longkey[MPI_MAX_INFO_KEY] = '\0';
    memset(longval, 'v', MPI_MAX_INFO_VAL + 1);
    longval[MPI_MAX_INFO_VAL] = '\0';
    CHECK_RC(MPI_Info_set(info, longkey, longval), MPI_SUCCESS);
    check_value(info, longkey, longval);
    int found = 0;
    for (int i = 0; i < 3; i++) {
        CHECK_RC(MPI_Info_get_nthkey(info, i, key), MPI_SUCCESS);
        /* MPICH returns only MPI_MAX_INFO_KEY - 1 characters of it */
        found += strncmp(key, longkey, MPI_MAX_INFO_KEY - 1) == 0;
#ifdef METAMPI
        CHECK(strlen(key) < MPI_MAX_INFO_KEY || strcmp(key, longkey) == 0);
#endif
    }
    CHECK(found == 1);

    /* errors */
    longkey[MPI_MAX_INFO_KEY] = 'k';
    longkey[MPI_MAX_INFO_KEY + 1] = '\0';
    CHECK_ERR(MPI_Info_set(info, longkey, "v"), MPI_ERR_INFO_KEY);
    CHECK_ERR(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
    CHECK_ERR(MPI_Info_delete(info, "no_such_key"), MPI_ERR_INFO_NOKEY);
    CHECK_ERR(MPI_Info_delete(info, "striping_unit"), MPI_ERR_INFO_NOKEY);
    CHECK_ERR(MPI_Info_get_nthkey(info, 3, key), MPI_ERR_ARG);
    CHECK_ERR(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);
    CHECK_ERR(MPI_Info_get(info, "cb_nodes", -1, small, &flag), MPI_ERR_ARG);
#ifdef METAMPI
    /* MPICH reports MPI_ERR_ARG for MPI_INFO_NULL, Open MPI MPI_ERR_INFO as we do; MPICH
     * accepts longer values and keys longer than MPI_MAX_INFO_KEY in queries */
    longval[MPI_MAX_INFO_VAL] = 'v';
    longval[MPI_MAX_INFO_VAL + 1] = '\0';
    CHECK_ERR(MPI_Info_set(info, "k", longval), MPI_ERR_INFO_VALUE);
    CHECK_ERR(MPI_Info_get(info, longkey, 10, small, &flag), MPI_ERR_INFO_KEY);
    CHECK_ERR(MPI_Info_get_valuelen(info, "", &nkeys, &flag), MPI_ERR_INFO_KEY);
    CHECK_ERR(MPI_Info_set(MPI_INFO_NULL, "k", "v"), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_get(MPI_INFO_NULL, "k", 1, small, &flag), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_get_nthkey(MPI_INFO_NULL, 0, key), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_get_valuelen(MPI_INFO_NULL, "k", &nkeys, &flag), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_delete(MPI_INFO_NULL, "k"), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_dup(MPI_INFO_NULL, &dup), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_set((MPI_Info)MPI_COMM_WORLD, "k", "v"), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_create(NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Info_set(info, NULL, "v"), MPI_ERR_ARG);
    CHECK_ERR(MPI_Info_set(info, "k", NULL), MPI_ERR_ARG);
    MPI_Info null = MPI_INFO_NULL, env = MPI_INFO_ENV;
    CHECK_ERR(MPI_Info_free(&null), MPI_ERR_INFO);
    CHECK_ERR(MPI_Info_free(&env), MPI_ERR_INFO); /* predefined */
    {
        MPI_Info freed = info;
        MPI_Info tmp;
        CHECK_RC(MPI_Info_dup(info, &tmp), MPI_SUCCESS);
        MPI_Info tmp_handle = tmp;
        CHECK_RC(MPI_Info_free(&tmp), MPI_SUCCESS);
        CHECK_ERR(MPI_Info_get_nkeys(tmp_handle, &nkeys), MPI_ERR_INFO); /* freed */
        (void)freed;
    }
#endif
    free(longkey);
    free(longval);

    /* free */
    CHECK_RC(MPI_Info_free(&info), MPI_SUCCESS);
    CHECK(info == MPI_INFO_NULL);
    CHECK_RC(MPI_Info_free(&dup), MPI_SUCCESS);
    CHECK(dup == MPI_INFO_NULL);

    /* many objects and keys */
    enum { N = 50 };
    MPI_Info many[N];
    for (int i = 0; i < N; i++) {
        CHECK_RC(MPI_Info_create(&many[i]), MPI_SUCCESS);
        for (int k = 0; k <= i % 7; k++) {
            char kk[32], vv[32];
            snprintf(kk, sizeof kk, "key%d", k);
            snprintf(vv, sizeof vv, "%d.%d", i, k);
            CHECK_RC(MPI_Info_set(many[i], kk, vv), MPI_SUCCESS);
        }
    }
    for (int i = 0; i < N; i++) {
        CHECK_RC(MPI_Info_get_nkeys(many[i], &nkeys), MPI_SUCCESS);
        CHECK(nkeys == i % 7 + 1);
        char vv[32];
        snprintf(vv, sizeof vv, "%d.%d", i, i % 7);
        snprintf(key, sizeof key, "key%d", i % 7);
        check_value(many[i], key, vv);
        CHECK_RC(MPI_Info_free(&many[i]), MPI_SUCCESS);
    }

    /* MPI_INFO_ENV: an info object (which keys it has is up to the implementation); what it
     * says must be true */
    CHECK_RC(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys), MPI_SUCCESS);
    for (int i = 0; i < nkeys; i++) {
        char v[MPI_MAX_INFO_VAL + 1];
        CHECK_RC(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key), MPI_SUCCESS);
        CHECK_RC(MPI_Info_get(MPI_INFO_ENV, key, MPI_MAX_INFO_VAL, v, &flag), MPI_SUCCESS);
        CHECK(flag == 1);
        if (strcmp(key, "maxprocs") == 0) {
            int size;
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            CHECK(atoi(v) == size);
        }
        if (strcmp(key, "command") == 0)
            CHECK(strstr(argv[0], v) || strstr(v, argv[0]));
        if (strcmp(key, "argv") == 0 && argc == 3)
            CHECK(strcmp(v, "first second") == 0);
        if (strcmp(key, "thread_level") == 0)
            CHECK(strcmp(v, "MPI_THREAD_SINGLE") == 0);
    }
#ifdef METAMPI
    const char *expected[] = { "command", "maxprocs", "host", "arch", "wdir", "thread_level" };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        int len;
        CHECK_RC(MPI_Info_get_valuelen(MPI_INFO_ENV, expected[i], &len, &flag), MPI_SUCCESS);
        CHECK(flag == 1 && len > 0);
    }
    if (argc == 3) {
        CHECK_RC(MPI_Info_get_valuelen(MPI_INFO_ENV, "argv", &nkeys, &flag), MPI_SUCCESS);
        CHECK(flag == 1);
    }
    MPI_Info env_dup;
    CHECK_RC(MPI_Info_dup(MPI_INFO_ENV, &env_dup), MPI_SUCCESS);
    check_value(env_dup, "thread_level", "MPI_THREAD_SINGLE");
    CHECK_RC(MPI_Info_free(&env_dup), MPI_SUCCESS);
#endif

    MPI_Finalize();
    if (rank == 0)
        printf("info: ok\n");
    return 0;
}
