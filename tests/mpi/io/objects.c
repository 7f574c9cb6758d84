/* Files as objects: open (amode checks, errno's classes, EXCL, APPEND, DELETE_ON_CLOSE),
 * close, delete, sizes, amode, group, hints, error handlers on files and on MPI_FILE_NULL,
 * handle conversion, bad handles. */
#include "io_util.h"

static int calls, last_code;
static void handler(MPI_File *fh, int *code, ...)
{
    (void)fh;
    calls++;
    last_code = *code;
}

/* Every member sees the size; none changes it before all have looked (the collectives that
 * change it need not synchronize). */
static void expect_size(MPI_File fh, MPI_Offset expected)
{
    MPI_Offset sz = -1;
    CHECK_RC(MPI_File_get_size(fh, &sz), MPI_SUCCESS);
    CHECK(sz == expected);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void check_amodes(const char *path)
{
    MPI_File fh;
    const int bad[] = { 0,
                        MPI_MODE_RDONLY | MPI_MODE_WRONLY,
                        MPI_MODE_RDWR | MPI_MODE_RDONLY,
                        MPI_MODE_RDONLY | MPI_MODE_CREATE,
                        MPI_MODE_RDONLY | MPI_MODE_EXCL,
                        MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL,
                        MPI_MODE_RDWR | 0x40000 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fh = 12345;
        CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, bad[i], MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[300], missing[300], gone[300];
    io_path(path, sizeof path, "a");
    io_path(missing, sizeof missing, "no/such/dir/file");
    io_path(gone, sizeof gone, "deleted-on-close");

    /* the default handler of files is MPI_ERRORS_RETURN, on MPI_FILE_NULL */
    MPI_Errhandler eh;
    CHECK_RC(MPI_File_get_errhandler(MPI_FILE_NULL, &eh), MPI_SUCCESS);
    CHECK(eh == MPI_ERRORS_RETURN);

    check_amodes(path);
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
             MPI_ERR_NO_SUCH_FILE);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDWR | MPI_MODE_CREATE,
                           MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, io_dir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
             MPI_ERR_BAD_FILE);

    /* creation, EXCL: every member sees the same outcome */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "write_once");
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                           info, &fh), MPI_SUCCESS);
    MPI_File fh2;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                           MPI_INFO_NULL, &fh2), MPI_ERR_FILE_EXISTS);

    int amode;
    CHECK_RC(MPI_File_get_amode(fh, &amode), MPI_SUCCESS);
    CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL));
    MPI_Group g, wg;
    int cmp;
    CHECK_RC(MPI_File_get_group(fh, &g), MPI_SUCCESS);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    /* hints: kept, merged, returned */
    MPI_Info used;
    char value[64];
    int flag;
    CHECK_RC(MPI_File_get_info(fh, &used), MPI_SUCCESS);
    MPI_Info_get(used, "access_style", sizeof value - 1, value, &flag);
    CHECK(flag && strcmp(value, "write_once") == 0);
    MPI_Info_free(&used);
    MPI_Info_set(info, "cb_nodes", "1");
    CHECK_RC(MPI_File_set_info(fh, info), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_info(fh, &used), MPI_SUCCESS);
    MPI_Info_get(used, "cb_nodes", sizeof value - 1, value, &flag);
    CHECK(flag && strcmp(value, "1") == 0);
    MPI_Info_free(&used);
    MPI_Info_free(&info);

    /* sizes: every member sees rank 0's change when the collective returns */
    expect_size(fh, 0);
    CHECK_RC(MPI_File_set_size(fh, 1000), MPI_SUCCESS);
    expect_size(fh, 1000);
    CHECK_RC(MPI_File_preallocate(fh, 4096), MPI_SUCCESS);
    expect_size(fh, 4096);
    CHECK_RC(MPI_File_preallocate(fh, 100), MPI_SUCCESS); /* never shrinks */
    expect_size(fh, 4096);
    CHECK_RC(MPI_File_set_size(fh, 10), MPI_SUCCESS);
    expect_size(fh, 10);
    CHECK_RC(MPI_File_set_size(fh, -1), MPI_ERR_ARG);
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);

    /* handlers on a file: user handler called, with the code */
    MPI_Errhandler mine;
    CHECK_RC(MPI_File_create_errhandler(handler, &mine), MPI_SUCCESS);
    CHECK_RC(MPI_File_set_errhandler(fh, mine), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_errhandler(fh, &eh), MPI_SUCCESS);
    CHECK(eh == mine);
    MPI_Errhandler_free(&eh);
    CHECK_RC(MPI_File_call_errhandler(fh, MPI_ERR_IO), MPI_SUCCESS);
    CHECK(calls == 1 && last_code == MPI_ERR_IO);
    CHECK_RC(MPI_File_set_size(fh, -5), MPI_ERR_ARG);
    CHECK(calls == 2 && last_code == MPI_ERR_ARG);

    /* conversion */
    CHECK(MPI_File_f2c(MPI_File_c2f(fh)) == fh);
    CHECK(MPI_File_f2c(0x28001234) == MPI_FILE_NULL);
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == MPI_File_c2f(MPI_FILE_NULL));

    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    CHECK(fh == MPI_FILE_NULL);

    /* bad handles: MPI_ERR_FILE on MPI_FILE_NULL's handler (MPI_ERRORS_RETURN) */
    CHECK_RC(MPI_File_get_amode(MPI_FILE_NULL, &amode), MPI_ERR_FILE);
    CHECK_RC(MPI_File_get_amode(0x28007777, &amode), MPI_ERR_FILE);
    CHECK_RC(MPI_File_sync(12), MPI_ERR_FILE);
    CHECK_RC(MPI_File_close(&fh), MPI_ERR_FILE);

    /* the handler of MPI_FILE_NULL takes open's errors, and new files inherit it */
    CHECK_RC(MPI_File_set_errhandler(MPI_FILE_NULL, mine), MPI_SUCCESS);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
             MPI_ERR_NO_SUCH_FILE);
    CHECK(calls == 3 && last_code == MPI_ERR_NO_SUCH_FILE);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
             MPI_SUCCESS);
    CHECK_RC(MPI_File_get_errhandler(fh, &eh), MPI_SUCCESS);
    CHECK(eh == mine);
    MPI_Errhandler_free(&eh);
    CHECK_RC(MPI_File_set_size(fh, 5), MPI_ERR_READ_ONLY);
    CHECK(calls == 4 && last_code == MPI_ERR_READ_ONLY);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN), MPI_SUCCESS);
    MPI_Errhandler_free(&mine);

    /* DELETE_ON_CLOSE: gone once everyone closed */
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, gone,
                           MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE |
                               MPI_MODE_UNIQUE_OPEN,
                           MPI_INFO_NULL, &fh), MPI_SUCCESS);
    CHECK(access(gone, F_OK) == 0);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(access(gone, F_OK) != 0);

    /* delete: by one rank; then it is missing */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_RC(MPI_File_delete(path, MPI_INFO_NULL), MPI_SUCCESS);
        CHECK_RC(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(access(path, F_OK) != 0);

    io_dir_remove();
    MPI_Finalize();
    return 0;
}
