/* Windows as objects: MPI_Alloc_mem, Win_create / allocate / free, the predefined attributes,
 * keyvals and attributes, name, group, hints, error handlers. */
#include "../check.h"

#include <stdint.h>
#include <string.h>

static int deleted;
static int count_delete(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win, (void)keyval, (void)extra;
    deleted += (int)(intptr_t)value;
    return MPI_SUCCESS;
}

static int handler_calls, handler_code;
static void handler(MPI_Win *win, int *code, ...)
{
    (void)win;
    handler_calls++;
    handler_code = *code;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    double *mem;
    CHECK_RC(MPI_Alloc_mem(10 * sizeof(double), MPI_INFO_NULL, &mem), MPI_SUCCESS);
    mem[9] = 1.0;

    MPI_Win win;
    CHECK_RC(MPI_Win_create(mem, 10 * sizeof(double), sizeof(double), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win), MPI_SUCCESS);
    void *base;
    MPI_Aint *wsize;
    int *unit, *flavor, *model, flag;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == mem);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
    CHECK(flag && *wsize == 10 * sizeof(double));
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag);
    CHECK(flag && *unit == sizeof(double));
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED);

    /* name */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_get_name(win, name, &len);
    CHECK(len == 0 && name[0] == '\0');
    MPI_Win_set_name(win, "my window");
    MPI_Win_get_name(win, name, &len);
    CHECK(len == 9 && strcmp(name, "my window") == 0);

    /* group */
    MPI_Group g, wg;
    int cmp;
    MPI_Win_get_group(win, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    /* hints */
    MPI_Info info, used;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "false");
    CHECK_RC(MPI_Win_set_info(win, info), MPI_SUCCESS);
    MPI_Info_free(&info);
    CHECK_RC(MPI_Win_get_info(win, &used), MPI_SUCCESS);
    char value[MPI_MAX_INFO_VAL];
    MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL - 1, value, &flag);
    CHECK(flag && strcmp(value, "false") == 0);
    MPI_Info_free(&used);

    /* keyvals and attributes; the delete callback runs at MPI_Win_free */
    int keyval;
    CHECK_RC(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &keyval, NULL),
             MPI_SUCCESS);
    MPI_Win_set_attr(win, keyval, (void *)(intptr_t)5);
    void *v;
    MPI_Win_get_attr(win, keyval, &v, &flag);
    CHECK(flag && (intptr_t)v == 5);
    MPI_Win_set_attr(win, keyval, (void *)(intptr_t)7); /* replaces: deletes 5 */
    CHECK(deleted == 5);
    MPI_Win_delete_attr(win, keyval);
    CHECK(deleted == 12);
    MPI_Win_get_attr(win, keyval, &v, &flag);
    CHECK(!flag);
    MPI_Win_set_attr(win, keyval, (void *)(intptr_t)100);

    /* error handlers */
    MPI_Errhandler eh, got;
    MPI_Win_get_errhandler(win, &got);
    CHECK(got == MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&got);
    CHECK_RC(MPI_Win_create_errhandler(handler, &eh), MPI_SUCCESS);
    MPI_Win_set_errhandler(win, eh);
    MPI_Errhandler_free(&eh);
    CHECK_RC(MPI_Win_call_errhandler(win, MPI_ERR_RMA_SYNC), MPI_SUCCESS);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_RMA_SYNC);
    /* an error of a call on the window goes to its handler */
    int cls;
    MPI_Error_class(MPI_Win_unlock(0, win), &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC);
    CHECK(handler_calls == 2);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    CHECK_RC(MPI_Win_free(&win), MPI_SUCCESS);
    CHECK(win == MPI_WIN_NULL && deleted == 112);
    MPI_Win_free_keyval(&keyval);
    CHECK(keyval == MPI_KEYVAL_INVALID);
    CHECK(mem[9] == 1.0);
    CHECK_RC(MPI_Free_mem(mem), MPI_SUCCESS);

    /* MPI_Win_allocate, a zero-size member, several windows at once */
    int *buf;
    MPI_Win w2, w3;
    CHECK_RC(MPI_Win_allocate(rank == 0 ? 0 : 64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &w2),
             MPI_SUCCESS);
    MPI_Win_get_attr(w2, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(*flavor == MPI_WIN_FLAVOR_ALLOCATE);
    MPI_Win_get_attr(w2, MPI_WIN_BASE, &base, &flag);
    CHECK(base == buf);
    /* page-aligned, as memory from the system (direct access and the emulation alike) */
    if (rank)
        CHECK((uintptr_t)buf % 4096 == 0);
    if (rank)
        buf[15] = rank;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    CHECK_RC(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, half, &w3), MPI_SUCCESS);
    MPI_Win_free(&w3);
    MPI_Comm_free(&half);
    if (rank)
        CHECK(buf[15] == rank);
    MPI_Win_free(&w2);
    if (rank == 0)
        printf("rma objects: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
