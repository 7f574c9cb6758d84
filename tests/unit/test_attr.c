/* core/attr.c as the communicator and datatype modules use it: attr_copy_all with copy
 * callbacks that copy, skip and fail; attr_delete_all (newest first, every callback run even
 * after a failure); keyvals that outlive their user handle; callbacks that change the list
 * they are called for. No MPI_Init: the attribute core needs none. */
#include "core/attr.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"

/* log of callback calls: "c<value>" for copies, "d<value>@<handle>" for deletes */
static char log_buf[1024];
static void note(const char *fmt, intptr_t v, int h)
{
    size_t n = strlen(log_buf);
    snprintf(log_buf + n, sizeof log_buf - n, fmt, (int)v, h);
}

static int copy_plus_100(int old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)keyval;
    EXPECT(old == 7 && extra == (void *)0xe);
    note("c%d ", (intptr_t)in, 0);
    *(void **)out = (void *)((intptr_t)in + 100);
    *flag = 1;
    return 0;
}

static int copy_skip(int old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)keyval, (void)extra, (void)out;
    note("s%d ", (intptr_t)in, 0);
    *flag = 0;
    return 0;
}

static int copy_fail(int old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)keyval, (void)extra, (void)out, (void)flag;
    note("f%d ", (intptr_t)in, 0);
    return 55;
}

static int fail_666 = 1;
static int del_log(int obj, int keyval, void *value, void *extra)
{
    (void)keyval, (void)extra;
    note("d%d@%d ", (intptr_t)value, obj);
    return (intptr_t)value == 666 && fail_666 ? 66 : 0;
}

static attr_list_t *meddle_list;
static int meddle_key;
static int del_meddle(int obj, int keyval, void *value, void *extra)
{
    (void)keyval, (void)extra;
    note("m%d@%d ", (intptr_t)value, obj);
    /* sets another attribute on the list being emptied: it must be deleted as well */
    if ((intptr_t)value == 1)
        attr_set(ATTR_COMM, obj, meddle_list, meddle_key, (void *)2);
    return 0;
}

static int key(attr_copy_fn *c, attr_delete_fn *d, void *extra)
{
    int k = 0;
    EXPECT(keyval_create(ATTR_COMM, c, d, extra, &k) == MPI_SUCCESS);
    const char *why;
    EXPECT(keyval_check(ATTR_COMM, k, 0, &why) == MPI_SUCCESS);
    EXPECT(keyval_check(ATTR_TYPE, k, 0, &why) == MPI_ERR_KEYVAL);
    return k;
}

int main(void)
{
    void *extra = (void *)0xe;
    int kc = key(copy_plus_100, del_log, extra), ks = key(copy_skip, del_log, extra);
    int kn = key(NULL, del_log, extra);
    attr_list_t a = ATTR_LIST_INIT, b = ATTR_LIST_INIT;
    EXPECT(attr_set(ATTR_COMM, 7, &a, kc, (void *)1) == 0);
    EXPECT(attr_set(ATTR_COMM, 7, &a, ks, (void *)2) == 0);
    EXPECT(attr_set(ATTR_COMM, 7, &a, kn, (void *)3) == 0);

    /* copy: only kc's attribute arrives, transformed; callbacks in the order of setting */
    log_buf[0] = '\0';
    EXPECT(attr_copy_all(ATTR_COMM, 7, &a, &b) == MPI_SUCCESS);
    EXPECT(strcmp(log_buf, "s2 c1 ") == 0 || strcmp(log_buf, "c1 s2 ") == 0);
    void *v = NULL;
    EXPECT(attr_get(&b, kc, &v) == 1 && v == (void *)101);
    EXPECT(attr_get(&b, ks, &v) == 0 && attr_get(&b, kn, &v) == 0);
    EXPECT(attr_get(&a, kn, &v) == 1 && v == (void *)3);

    /* keyvals freed by the user live on in the attributes */
    keyval_free(kc);
    const char *why;
    EXPECT(keyval_check(ATTR_COMM, kc, 0, &why) == MPI_ERR_KEYVAL);
    EXPECT(keyval_check(ATTR_COMM, kc, 1, &why) == MPI_SUCCESS);
    log_buf[0] = '\0';
    EXPECT(attr_delete_all(ATTR_COMM, 8, &b) == MPI_SUCCESS);
    EXPECT(strcmp(log_buf, "d101@8 ") == 0 && b == NULL);
    EXPECT(keyval_check(ATTR_COMM, kc, 1, &why) == MPI_SUCCESS); /* a still uses it */

    /* delete_all: newest first */
    log_buf[0] = '\0';
    EXPECT(attr_delete_all(ATTR_COMM, 7, &a) == MPI_SUCCESS);
    EXPECT(strcmp(log_buf, "d3@7 d2@7 d1@7 ") == 0 && a == NULL);
    EXPECT(keyval_check(ATTR_COMM, kc, 1, &why) == MPI_ERR_KEYVAL); /* now gone */

    /* a failing copy callback: the copy fails and what was copied is deleted again */
    int kf = key(copy_fail, del_log, extra), kc2 = key(copy_plus_100, del_log, extra);
    EXPECT(attr_set(ATTR_COMM, 7, &a, kf, (void *)4) == 0);
    EXPECT(attr_set(ATTR_COMM, 7, &a, kc2, (void *)5) == 0); /* newer: copied first */
    log_buf[0] = '\0';
    EXPECT(attr_copy_all(ATTR_COMM, 7, &a, &b) == 55);
    EXPECT(b == NULL);
    EXPECT(strstr(log_buf, "f4 ") && (!strstr(log_buf, "c5 ") || strstr(log_buf, "d105@7 ")));

    /* a failing delete callback: delete_all still runs every callback and empties the list */
    EXPECT(attr_set(ATTR_COMM, 7, &a, kn, (void *)666) == 0);
    log_buf[0] = '\0';
    EXPECT(attr_delete_all(ATTR_COMM, 7, &a) == 66);
    EXPECT(strcmp(log_buf, "d666@7 d5@7 d4@7 ") == 0 && a == NULL);
    /* ... while a single delete keeps the attribute */
    EXPECT(attr_set(ATTR_COMM, 7, &a, kn, (void *)666) == 0);
    EXPECT(attr_delete(ATTR_COMM, 7, &a, kn) == 66);
    EXPECT(attr_get(&a, kn, &v) == 1 && v == (void *)666);
    EXPECT(attr_set(ATTR_COMM, 7, &a, kn, (void *)9) == 66); /* overwrite runs it too */
    EXPECT(attr_get(&a, kn, &v) == 1 && v == (void *)666);

    /* a delete callback that adds an attribute to the list being emptied */
    int km = key(NULL, del_meddle, extra);
    meddle_list = &a;
    meddle_key = km;
    fail_666 = 0;
    EXPECT(attr_delete(ATTR_COMM, 7, &a, kn) == MPI_SUCCESS && a == NULL);
    EXPECT(attr_set(ATTR_COMM, 7, &a, km, (void *)1) == 0);
    log_buf[0] = '\0';
    EXPECT(attr_delete_all(ATTR_COMM, 7, &a) == MPI_SUCCESS);
    EXPECT(strcmp(log_buf, "m1@7 m2@7 ") == 0 && a == NULL);

    int keys[] = { ks, kn, kf, kc2, km };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        keyval_free(keys[i]);
    EXPECT(keyval_check(ATTR_COMM, km, 1, &why) == MPI_ERR_KEYVAL);
    return expect_done("attr");
}
