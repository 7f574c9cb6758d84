/* The external32 data representation with types whose external32 sizes differ from the
 * native ones (MPI-3.1 §13.5.1-2): views measured in external32 sizes (MPI_LONG is 4 bytes,
 * MPI_LONG_DOUBLE 16), MPI_File_get_type_extent (element-counting constructors scale, byte
 * displacements stay), a 3-D block decomposition of MPI_LONG written collectively and checked
 * byte by byte as big-endian 32-bit integers, read back collectively and independently, long
 * double as IEEE binary128, and a long beyond 32 bits (MPI_ERR_CONVERSION). */
#include "io_util.h"

#include <stdint.h>

#define N 6 /* the global array is N x N x N longs */

static void settle(MPI_File fh)
{
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void extents(MPI_File fh)
{
    MPI_Aint ext;
    CHECK_RC(MPI_File_get_type_extent(fh, MPI_LONG, &ext), MPI_SUCCESS);
    CHECK(ext == 4);
    CHECK_RC(MPI_File_get_type_extent(fh, MPI_LONG_DOUBLE, &ext), MPI_SUCCESS);
    CHECK(ext == 16);
    CHECK_RC(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext), MPI_SUCCESS);
    CHECK(ext == 8);
    MPI_Datatype vec, hvec, st;
    MPI_Type_vector(2, 1, 3, MPI_LONG, &vec); /* stride in elements: scaled */
    MPI_Type_commit(&vec);
    CHECK_RC(MPI_File_get_type_extent(fh, vec, &ext), MPI_SUCCESS);
    CHECK(ext == 16);
    MPI_Type_create_hvector(2, 1, 24, MPI_LONG, &hvec); /* stride in bytes: as given */
    MPI_Type_commit(&hvec);
    CHECK_RC(MPI_File_get_type_extent(fh, hvec, &ext), MPI_SUCCESS);
    CHECK(ext == 28);
    int lens[2] = { 1, 1 };
    MPI_Aint disps[2] = { 0, 8 };
    MPI_Datatype types[2] = { MPI_CHAR, MPI_LONG };
    MPI_Type_create_struct(2, lens, disps, types, &st);
    MPI_Type_commit(&st);
    CHECK_RC(MPI_File_get_type_extent(fh, st, &ext), MPI_SUCCESS);
    CHECK(ext == 12);
    MPI_Type_free(&vec);
    MPI_Type_free(&hvec);
    MPI_Type_free(&st);
}

/* Rank r owns a block of the N^3 array of longs (MPI_Dims_create's grid); the value of global
 * element (i, j, k) is its index, negated for odd ones so signs are checked too. */
static long value(int i, int j, int k)
{
    long idx = ((long)i * N + j) * N + k;
    return idx % 2 ? -idx : idx;
}

/* write: the ranks write their blocks (else the file holds them already, written by
 * another job: on another architecture, see main). */
static void grid(MPI_File fh, int rank, int size, int write)
{
    int dims[3] = { 0, 0, 0 }, periods[3] = { 0, 0, 0 }, coords[3];
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, coords);
    int sizes[3] = { N, N, N }, sub[3], starts[3];
    for (int d = 0; d < 3; d++) {
        int base = N / dims[d], extra = N % dims[d];
        sub[d] = base + (coords[d] < extra);
        starts[d] = coords[d] * base + (coords[d] < extra ? coords[d] : extra);
    }
    MPI_Datatype block;
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_LONG, &block);
    MPI_Type_commit(&block);
    int n = sub[0] * sub[1] * sub[2];
    long *mine = malloc((size_t)n * sizeof *mine), *back = calloc((size_t)n, sizeof *back);
    CHECK(mine && back);
    for (int i = 0, at = 0; i < sub[0]; i++)
        for (int j = 0; j < sub[1]; j++)
            for (int k = 0; k < sub[2]; k++)
                mine[at++] = value(starts[0] + i, starts[1] + j, starts[2] + k);
    CHECK_RC(MPI_File_set_view(fh, 64, MPI_LONG, block, "external32", MPI_INFO_NULL),
             MPI_SUCCESS);
    MPI_Status st;
    int got;
    if (write) {
        CHECK_RC(MPI_File_write_all(fh, mine, n, MPI_LONG, &st), MPI_SUCCESS);
        MPI_Get_count(&st, MPI_LONG, &got);
        CHECK(got == n);
        MPI_Offset pos;
        CHECK_RC(MPI_File_get_position(fh, &pos), MPI_SUCCESS);
        CHECK(pos == n);
    }
    MPI_Offset byte;
    CHECK_RC(MPI_File_get_byte_offset(fh, 0, &byte), MPI_SUCCESS);
    CHECK(byte == 64 + 4 * (((MPI_Offset)starts[0] * N + starts[1]) * N + starts[2]));
    settle(fh);
    /* back through the view, collectively and independently */
    CHECK_RC(MPI_File_read_at_all(fh, 0, back, n, MPI_LONG, &st), MPI_SUCCESS);
    MPI_Get_count(&st, MPI_LONG, &got);
    CHECK(got == n);
    for (int i = 0; i < n; i++)
        CHECK(back[i] == mine[i]);
    memset(back, 0, (size_t)n * sizeof *back);
    CHECK_RC(MPI_File_read_at(fh, 0, back, n, MPI_LONG, &st), MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK(back[i] == mine[i]);
    /* the file: N^3 big-endian 32-bit integers after 64 bytes, whoever wrote them */
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
             MPI_SUCCESS);
    MPI_Offset fsize;
    CHECK_RC(MPI_File_get_size(fh, &fsize), MPI_SUCCESS);
    CHECK(fsize == 64 + 4 * N * N * N);
    if (rank == 0) {
        unsigned char *raw = malloc(4 * N * N * N);
        CHECK(raw);
        CHECK_RC(MPI_File_read_at(fh, 64, raw, 4 * N * N * N, MPI_BYTE, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                for (int k = 0; k < N; k++) {
                    int idx = (i * N + j) * N + k;
                    CHECK((int32_t)be32(raw + 4 * idx) == (int32_t)value(i, j, k));
                }
        free(raw);
    }
    settle(fh);
    free(mine);
    free(back);
    MPI_Type_free(&block);
    MPI_Comm_free(&cart);
}

/* long double as binary128: 1.5 is 3fff 8000 0000 ... big-endian; a long that needs more than
 * 32 bits cannot be written (MPI_ERR_CONVERSION). */
static void wide_and_narrow(MPI_File fh, int rank)
{
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL),
             MPI_SUCCESS);
    long double ld = 1.5L;
    MPI_Offset at = 16 * (MPI_Offset)rank;
    CHECK_RC(MPI_File_write_at(fh, at, &ld, 1, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    settle(fh);
    unsigned char raw[16];
    CHECK_RC(MPI_File_read_at(fh, at, raw, 16, MPI_BYTE, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(raw[0] == 0x3f && raw[1] == 0xff && raw[2] == 0x80 && raw[15] == 0);
    long double back = 0;
    CHECK_RC(MPI_File_read_at(fh, at, &back, 1, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    CHECK(back == 1.5L);
    if (sizeof(long) > 4) {
        long big = (long)1 << 40;
        CHECK_RC(MPI_File_write_at(fh, at, &big, 1, MPI_LONG, MPI_STATUS_IGNORE),
                 MPI_ERR_CONVERSION);
    }
    settle(fh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc == 3) {
        /* `write FILE` / `read FILE`: the grid alone, written by one job and checked by
         * another (tests/mpi/io/CMakeLists.txt: x86-64 writes, s390x reads) */
        int write = strcmp(argv[1], "write") == 0;
        MPI_File fh;
        CHECK_RC(MPI_File_open(MPI_COMM_WORLD, argv[2],
                               write ? MPI_MODE_RDWR | MPI_MODE_CREATE : MPI_MODE_RDWR,
                               MPI_INFO_NULL, &fh), MPI_SUCCESS);
        grid(fh, rank, size, write);
        CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
        MPI_Finalize();
        return 0;
    }
    io_dir_make();
    char path[300];
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, io_path(path, sizeof path, "ext32"),
                           MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL),
             MPI_SUCCESS);
    extents(fh);
    grid(fh, rank, size, 1);
    CHECK_RC(MPI_File_set_size(fh, 0), MPI_SUCCESS);
    wide_and_narrow(fh, rank);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    io_dir_remove();
    MPI_Finalize();
    return 0;
}
