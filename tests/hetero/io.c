/* MPI-IO in one job of unlike architectures (tests/hetero; docs/heterogeneity.md): the
 * members agree on the open, the view, atomicity and the hints although their byte orders
 * differ, and an external32 file written by all of them together is portable:
 *  - a view interleaving the members' ints (element k of rank r at k * size + r), written by
 *    two-phase collective I/O in small cycles (cb_buffer_size 64, every rank an aggregator),
 *    read back whole by every member and checked byte by byte as big-endian;
 *  - doubles and long longs at explicit offsets, written independently, read collectively;
 *  - the shared file pointer: write_ordered, seek_shared, read_ordered, write_shared;
 *  - native data read back by the rank that wrote it.
 * Run on one architecture it checks the same. */
#include "../mpi/io/io_util.h"

#include <stdint.h>

enum { K = 40 }; /* ints per member */

static int ival(int r, int k) { return -(r + 1) * 100000 - k; }
static double dval(int r, int k) { return r * 0.5 + k * 1e-3 - 7.0; }
static long long llval(int r, int k) { return ((long long)(r + 3) << 40) - k; }

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void settle(MPI_File fh)
{
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
}

/* ints interleaved by a strided filetype, collectively, in cycles of 64 bytes */
static void interleaved(const char *path, int rank, int size)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "64");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    char nodes[16];
    snprintf(nodes, sizeof nodes, "%d", size);
    MPI_Info_set(info, "cb_nodes", nodes);
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh),
             MPI_SUCCESS);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_File_set_atomicity(fh, 0), MPI_SUCCESS);
    MPI_Info used;
    CHECK_RC(MPI_File_get_info(fh, &used), MPI_SUCCESS);
    char v[32];
    int flag = 0;
    CHECK_RC(MPI_Info_get(used, "cb_buffer_size", sizeof v - 1, v, &flag), MPI_SUCCESS);
    CHECK(flag && strcmp(v, "64") == 0); /* rank 0's value everywhere, whatever byte order */
    MPI_Info_free(&used);
    MPI_Datatype every, resized;
    MPI_Type_vector(K, 1, size, MPI_INT, &every);
    MPI_Type_create_resized(every, 0, (MPI_Aint)(K * size) * 4, &resized);
    MPI_Type_commit(&resized);
    CHECK_RC(MPI_File_set_view(fh, (MPI_Offset)rank * 4, MPI_INT, resized, "external32", info),
             MPI_SUCCESS);
    int mine[K], all[K * 8];
    for (int k = 0; k < K; k++)
        mine[k] = ival(rank, k);
    CHECK_RC(MPI_File_write_at_all(fh, 0, mine, K, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    settle(fh);
    MPI_Offset bytes = 0;
    CHECK_RC(MPI_File_get_size(fh, &bytes), MPI_SUCCESS);
    CHECK(bytes == (MPI_Offset)K * size * 4);
    /* the whole file, collectively, in a plain external32 view */
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", info), MPI_SUCCESS);
    CHECK(size <= 8);
    CHECK_RC(MPI_File_read_at_all(fh, 0, all, K * size, MPI_INT, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    for (int k = 0; k < K; k++)
        for (int r = 0; r < size; r++)
            CHECK(all[k * size + r] == ival(r, k));
    unsigned char raw[4 * 8];
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_at(fh, 0, raw, 4 * size, MPI_BYTE, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        CHECK((int32_t)be32(raw + 4 * r) == ival(r, 0));
    MPI_Type_free(&resized);
    MPI_Type_free(&every);
    MPI_Info_free(&info);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
}

/* doubles and long longs at explicit offsets, independent writes, collective reads */
static void explicit_offsets(const char *path, int rank, int size)
{
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                           MPI_INFO_NULL, &fh), MPI_SUCCESS);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL),
             MPI_SUCCESS);
    double d[3];
    long long l[3];
    for (int k = 0; k < 3; k++)
        d[k] = dval(rank, k), l[k] = llval(rank, k);
    MPI_Offset at = (MPI_Offset)rank * 48;
    CHECK_RC(MPI_File_write_at(fh, at, d, 3, MPI_DOUBLE, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_File_write_at(fh, at + 24, l, 3, MPI_LONG_LONG, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    settle(fh);
    int peer = (rank + 1) % size;
    MPI_Offset pat = (MPI_Offset)peer * 48;
    double pd[3];
    long long pl[3];
    CHECK_RC(MPI_File_read_at_all(fh, pat, pd, 3, MPI_DOUBLE, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_at_all(fh, pat + 24, pl, 3, MPI_LONG_LONG, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    for (int k = 0; k < 3; k++)
        CHECK(pd[k] == dval(peer, k) && pl[k] == llval(peer, k));
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
}

/* the shared file pointer, held by rank 0, moved by every member */
static void shared_pointer(const char *path, int rank, int size)
{
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                           MPI_INFO_NULL, &fh), MPI_SUCCESS);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL),
             MPI_SUCCESS);
    int mine[3] = { ival(rank, 0), ival(rank, 1), ival(rank, 2) };
    CHECK_RC(MPI_File_write_ordered(fh, mine, 3, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    MPI_Offset pos = -1;
    CHECK_RC(MPI_File_get_position_shared(fh, &pos), MPI_SUCCESS);
    CHECK(pos == 3 * size);
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), MPI_SUCCESS);
    int got[3];
    CHECK_RC(MPI_File_read_ordered(fh, got, 3, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int k = 0; k < 3; k++)
        CHECK(got[k] == ival(rank, k));
    /* one int each, in any order, after the ordered ones */
    CHECK_RC(MPI_File_seek_shared(fh, 3 * size, MPI_SEEK_SET), MPI_SUCCESS);
    int one = ival(rank, 9), seen = 0;
    CHECK_RC(MPI_File_write_shared(fh, &one, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    settle(fh);
    int tail[8];
    CHECK(size <= 8);
    CHECK_RC(MPI_File_read_at(fh, 3 * size, tail, size, MPI_INT, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        for (int j = 0; j < size; j++)
            seen += tail[j] == ival(r, 9);
    CHECK(seen == size);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
}

/* native data: the writer's own bytes, read back by the writer */
static void native(const char *path, int rank)
{
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                           MPI_INFO_NULL, &fh), MPI_SUCCESS);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    long v[2] = { llval(rank, 1), -rank }, back[2] = { 0, 0 };
    MPI_Offset at = (MPI_Offset)rank * (MPI_Offset)sizeof v;
    CHECK_RC(MPI_File_write_at_all(fh, at, v, 2, MPI_LONG, MPI_STATUS_IGNORE), MPI_SUCCESS);
    settle(fh);
    CHECK_RC(MPI_File_read_at_all(fh, at, back, 2, MPI_LONG, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(back[0] == v[0] && back[1] == v[1]);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (getenv("EXPECT_ARCHS")) { /* the members differ in byte order */
        const uint16_t one = 1;
        int big = *(const unsigned char *)&one == 0, orders[2] = { big, -big };
        MPI_Allreduce(MPI_IN_PLACE, orders, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(orders[0] == 1 && orders[1] == 0);
    }
    io_dir_make();
    char path[300];
    interleaved(io_path(path, sizeof path, "interleaved"), rank, size);
    explicit_offsets(io_path(path, sizeof path, "offsets"), rank, size);
    shared_pointer(io_path(path, sizeof path, "shared"), rank, size);
    native(io_path(path, sizeof path, "native"), rank);
    io_dir_remove();
    if (rank == 0)
        printf("hetero io: %d ranks passed\n", size);
    MPI_Finalize();
    return 0;
}
