/* The hints metampi acts on (docs/io.md): MPI_File_get_info reports the values in use
 * (defaults, then what open, set_info and set_view gave, rank 0's everywhere, a value not
 * understood ignored); a collective buffer of 1 KiB (many cycles of two-phase) and
 * cb_nodes aggregators move a strided array correctly; romio_cb_read/write "disable" takes the
 * independent path; data sieving of independent strided reads, with a buffer smaller than
 * the request and across the end of the file. */
#include "io_util.h"

#define N 3000 /* ints per rank */

static void expect(MPI_File fh, const char *key, const char *want)
{
    MPI_Info info;
    CHECK_RC(MPI_File_get_info(fh, &info), MPI_SUCCESS);
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    if (!flag || strcmp(v, want) != 0) {
        fprintf(stderr, "hint %s: '%s', expected '%s'\n", key, flag ? v : "(unset)", want);
        CHECK(0);
    }
    MPI_Info_free(&info);
}

/* Rank r writes ints r, r + size, r + 2 size, ... of an array of N * size ints
 * collectively, through a vector view; everyone reads back the whole array. */
static void strided(MPI_File fh, int rank, int size, const char *how)
{
    MPI_Datatype ft, rs;
    MPI_Type_vector(1, 1, size, MPI_INT, &ft);
    MPI_Type_create_resized(ft, 0, (MPI_Aint)size * (MPI_Aint)sizeof(int), &rs);
    MPI_Type_commit(&rs);
    CHECK_RC(MPI_File_set_view(fh, (MPI_Offset)rank * (MPI_Offset)sizeof(int), MPI_INT, rs,
                               "native", MPI_INFO_NULL), MPI_SUCCESS);
    int *mine = malloc(N * sizeof *mine), *all = malloc((size_t)N * size * sizeof *all);
    CHECK(mine && all);
    for (int i = 0; i < N; i++)
        mine[i] = (i * size + rank) ^ how[0];
    MPI_Status st;
    CHECK_RC(MPI_File_write_at_all(fh, 0, mine, N, MPI_INT, &st), MPI_SUCCESS);
    int got;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == N);
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
    memset(mine, 0, N * sizeof *mine);
    CHECK_RC(MPI_File_read_at_all(fh, 0, mine, N, MPI_INT, &st), MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == N);
    for (int i = 0; i < N; i++)
        CHECK(mine[i] == ((i * size + rank) ^ how[0]));
    /* the same data independently (data sieving) */
    memset(mine, 0, N * sizeof *mine);
    CHECK_RC(MPI_File_read_at(fh, 0, mine, N, MPI_INT, &st), MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(mine[i] == ((i * size + rank) ^ how[0]));
    /* past the end: the count says how much came */
    CHECK_RC(MPI_File_read_at(fh, N - 5, mine, 10, MPI_INT, &st), MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == 5 && mine[4] == (((N - 1) * size + rank) ^ how[0]));
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_at(fh, 0, all, N * size, MPI_INT, &st), MPI_SUCCESS);
    for (int i = 0; i < N * size; i++)
        CHECK(all[i] == (i ^ how[0]));
    MPI_Barrier(MPI_COMM_WORLD);
    free(mine);
    free(all);
    MPI_Type_free(&ft);
    MPI_Type_free(&rs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[300];
    MPI_File fh;
    /* defaults */
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, io_path(path, sizeof path, "hints"),
                           MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_SUCCESS);
    expect(fh, "cb_buffer_size", "16777216");
    expect(fh, "romio_cb_write", "automatic");
    expect(fh, "ind_rd_buffer_size", "4194304");
    expect(fh, "romio_ds_write", "disable");
    expect(fh, "metampi_file_sites", "shared");
    strided(fh, rank, size, "default");
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);

    /* a tiny collective buffer, every rank an aggregator; rank 0's values win */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", rank == 0 ? "1024" : "2048");
    MPI_Info_set(info, "cb_nodes", "1000");
    MPI_Info_set(info, "ind_rd_buffer_size", "100");
    MPI_Info_set(info, "romio_ds_read", "enable");
    MPI_Info_set(info, "my_own_key", "kept");
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh), MPI_SUCCESS);
    expect(fh, "cb_buffer_size", "1024");
    char n[16];
    snprintf(n, sizeof n, "%d", size);
    expect(fh, "cb_nodes", n);
    expect(fh, "ind_rd_buffer_size", "100");
    expect(fh, "romio_ds_read", "enable");
    expect(fh, "my_own_key", "kept");
    strided(fh, rank, size, "tiny");

    /* set_info: a bad value keeps the old one; the independent path when disabled */
    MPI_Info_set(info, "cb_buffer_size", "lots");
    MPI_Info_set(info, "romio_cb_write", "disable");
    MPI_Info_set(info, "romio_cb_read", "disable");
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "romio_ds_read", "disable");
    CHECK_RC(MPI_File_set_info(fh, info), MPI_SUCCESS);
    expect(fh, "cb_buffer_size", "1024");
    expect(fh, "romio_cb_write", "disable");
    expect(fh, "cb_nodes", "1");
    strided(fh, rank, size, "independent");

    /* set_view's info counts too */
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "cb_buffer_size", "4096");
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info), MPI_SUCCESS);
    expect(fh, "romio_cb_write", "enable");
    expect(fh, "cb_buffer_size", "4096");
    strided(fh, rank, size, "view");
    MPI_Info_free(&info);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    io_dir_remove();
    MPI_Finalize();
    return 0;
}
