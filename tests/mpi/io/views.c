/* Views with vector, subarray, indexed and resized filetypes: a strided collective write read
 * back whole by another rank, a 2-D array of column blocks, get_view / get_type_extent /
 * get_byte_offset, seek to the end of a strided view, external32, and invalid views. */
#include "io_util.h"

#include <stdint.h>

#define B 3   /* ints per block */
#define NB 5  /* blocks per rank */

static void settle(MPI_File fh)
{
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
}

/* Ranks' blocks of B ints interleaved round robin: rank r owns blocks r, r + size, ... */
static void strided(MPI_File fh, int rank, int size)
{
    MPI_Datatype vec, ft;
    MPI_Type_vector(NB, B, B * size, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    /* repetitions of the filetype follow each other (NB * size blocks) */
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(NB * size * B * sizeof(int)), &ft);
    MPI_Type_commit(&ft);
    MPI_Offset disp = (MPI_Offset)rank * B * sizeof(int);
    CHECK_RC(MPI_File_set_view(fh, disp, MPI_INT, ft, "native", MPI_INFO_NULL), MPI_SUCCESS);
    int out[NB * B];
    for (int i = 0; i < NB * B; i++)
        out[i] = rank * 1000 + i;
    MPI_Status st;
    CHECK_RC(MPI_File_write_all(fh, out, NB * B, MPI_INT, &st), MPI_SUCCESS);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == NB * B);

    /* the queries of the view */
    MPI_Offset d, off;
    MPI_Datatype et, ft2;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_RC(MPI_File_get_view(fh, &d, &et, &ft2, rep), MPI_SUCCESS);
    CHECK(d == disp && et == MPI_INT && strcmp(rep, "native") == 0);
    MPI_Aint lb2, ext2;
    MPI_Type_get_extent(ft2, &lb2, &ext2);
    CHECK(lb2 == 0 && ext2 == (MPI_Aint)(NB * size * B * sizeof(int)));
    MPI_Type_free(&ft2);
    CHECK_RC(MPI_File_get_byte_offset(fh, B + 1, &off), MPI_SUCCESS);
    CHECK(off == disp + (MPI_Offset)(B * size + 1) * (MPI_Offset)sizeof(int));
    MPI_Aint ext;
    CHECK_RC(MPI_File_get_type_extent(fh, ft, &ext), MPI_SUCCESS);
    CHECK(ext == (MPI_Aint)(NB * size * B * sizeof(int)));
    CHECK_RC(MPI_File_get_type_extent(fh, vec, &ext), MPI_SUCCESS);
    CHECK(ext == (MPI_Aint)(((NB - 1) * size + 1) * B * sizeof(int)));
    settle(fh);
    CHECK_RC(MPI_File_seek(fh, 0, MPI_SEEK_END), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position(fh, &off), MPI_SUCCESS);
    CHECK(off == NB * B);
    /* the end of the file in a view whose repetitions interleave (the vector's extent ends
     * after its last block): counted block by block here */
    CHECK_RC(MPI_File_set_view(fh, disp, MPI_INT, vec, "native", MPI_INFO_NULL), MPI_SUCCESS);
    CHECK_RC(MPI_File_seek(fh, 0, MPI_SEEK_END), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position(fh, &off), MPI_SUCCESS);
    MPI_Offset fsize = (MPI_Offset)(NB * B * size * sizeof(int)), below = 0;
    MPI_Offset vext = (MPI_Offset)(((NB - 1) * size + 1) * B * sizeof(int));
    for (MPI_Offset k = 0; disp + k * vext < fsize; k++)
        for (int j = 0; j < NB; j++)
            if (disp + k * vext + (MPI_Offset)(j * B * size * sizeof(int)) < fsize)
                below += B;
    CHECK(off == below);
    CHECK_RC(MPI_File_set_view(fh, disp, MPI_INT, ft, "native", MPI_INFO_NULL), MPI_SUCCESS);
    /* reading through the view: this rank's blocks */
    int in[NB * B];
    CHECK_RC(MPI_File_read_at_all(fh, 0, in, NB * B, MPI_INT, &st), MPI_SUCCESS);
    for (int i = 0; i < NB * B; i++)
        CHECK(in[i] == out[i]);

    /* the whole file, with the plain view: every rank reads the others' blocks */
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
             MPI_SUCCESS);
    int total = NB * B * size;
    int *all = malloc(sizeof(int) * (size_t)total);
    CHECK_RC(MPI_File_read_at(fh, 0, all, total, MPI_INT, &st), MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == total);
    for (int i = 0; i < total; i++) {
        int block = i / B, owner = block % size, k = (block / size) * B + i % B;
        CHECK(all[i] == owner * 1000 + k);
    }
    free(all);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    settle(fh);
}

/* A ROWS x COLS array of ints in C order; rank r owns a band of columns (subarray). */
static void columns(MPI_File fh, int rank, int size)
{
    enum { ROWS = 4, W = 2 };
    int cols = W * size;
    int gsizes[2] = { ROWS, cols }, lsizes[2] = { ROWS, W }, starts[2] = { 0, W * rank };
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, 64, MPI_INT, ft, "native", MPI_INFO_NULL), MPI_SUCCESS);
    int out[ROWS * W];
    for (int i = 0; i < ROWS * W; i++)
        out[i] = (i / W) * cols + W * rank + i % W;     /* the element's global index */
    CHECK_RC(MPI_File_write_at_all(fh, 0, out, ROWS * W, MPI_INT, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    settle(fh);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
             MPI_SUCCESS);
    int all[ROWS * 64];
    CHECK_RC(MPI_File_read_at(fh, 64, all, ROWS * cols, MPI_INT, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    for (int i = 0; i < ROWS * cols; i++)
        CHECK(all[i] == i);
    MPI_Type_free(&ft);
    settle(fh);
}

/* Indexed blocks of growing length with holes, and a resized type whose extent leaves a gap
 * after each repetition; memory read back through the same view. */
static void indexed(MPI_File fh, int rank)
{
    int lens[3] = { 1, 2, 3 }, displs[3] = { 0, 2, 6 };
    MPI_Datatype idx, ft;
    MPI_Type_indexed(3, lens, displs, MPI_DOUBLE, &idx);
    MPI_Type_create_resized(idx, 0, 12 * sizeof(double), &ft);
    MPI_Type_commit(&ft);
    MPI_Offset disp = 4096 + (MPI_Offset)rank * 4 * 12 * sizeof(double);
    CHECK_RC(MPI_File_set_view(fh, disp, MPI_DOUBLE, ft, "native", MPI_INFO_NULL), MPI_SUCCESS);
    double out[24], in[24];
    for (int i = 0; i < 24; i++)
        out[i] = rank + i / 100.0;
    CHECK_RC(MPI_File_write_all(fh, out, 24, MPI_DOUBLE, MPI_STATUS_IGNORE), MPI_SUCCESS);
    MPI_Offset off;
    CHECK_RC(MPI_File_get_byte_offset(fh, 7, &off), MPI_SUCCESS); /* rep 1, piece at 2 */
    CHECK(off == disp + (12 + 2) * (MPI_Offset)sizeof(double));
    settle(fh);
    CHECK_RC(MPI_File_read_at(fh, 0, in, 24, MPI_DOUBLE, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < 24; i++)
        CHECK(in[i] == out[i]);
    /* the holes stayed holes (zeros in a new file) */
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
             MPI_SUCCESS);
    double raw[12];
    CHECK_RC(MPI_File_read_at(fh, disp, raw, 12, MPI_DOUBLE, MPI_STATUS_IGNORE), MPI_SUCCESS);
    const double want[12] = { out[0], 0, out[1], out[2], 0, 0, out[3], out[4], out[5], 0, 0, 0 };
    for (int i = 0; i < 12; i++)
        CHECK(raw[i] == want[i]);
    MPI_Type_free(&idx);
    MPI_Type_free(&ft);
    settle(fh);
}

/* external32: big-endian in the file, native in memory */
static void external32(MPI_File fh, int rank)
{
    CHECK_RC(MPI_File_set_view(fh, 8192, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL),
             MPI_SUCCESS);
    int v[2] = { 0x01020304 + rank, -2 };
    CHECK_RC(MPI_File_write_at(fh, 2 * rank, v, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    settle(fh);
    int back[2];
    CHECK_RC(MPI_File_read_at(fh, 2 * rank, back, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(back[0] == v[0] && back[1] == -2);
    /* a long is 4 bytes in external32, one etype here (tests/mpi/io/external32.c has more) */
    long l = v[0];
    CHECK_RC(MPI_File_write_at(fh, 2 * rank, &l, 1, MPI_LONG, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
             MPI_SUCCESS);
    unsigned char raw[8];
    CHECK_RC(MPI_File_read_at(fh, 8192 + 8 * rank, raw, 8, MPI_BYTE, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    CHECK(raw[0] == 1 && raw[1] == 2 && raw[2] == 3 && raw[3] == 4 + rank);
    CHECK(raw[4] == 0xff && raw[7] == 0xfe);
    settle(fh);
}

static void invalid(MPI_File fh)
{
    MPI_Datatype backwards;
    int lens[2] = { 1, 1 };
    MPI_Aint displs[2] = { 8, 0 };
    MPI_Type_create_hindexed(2, lens, displs, MPI_INT, &backwards);
    MPI_Type_commit(&backwards);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_INT, "native", MPI_INFO_NULL),
             MPI_ERR_ARG);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, backwards, "native", MPI_INFO_NULL),
             MPI_ERR_TYPE);
    CHECK_RC(MPI_File_set_view(fh, -8, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_ERR_ARG);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL),
             MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_DATATYPE_NULL, MPI_INT, "native", MPI_INFO_NULL),
             MPI_ERR_TYPE);
    MPI_Type_free(&backwards);
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
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, io_path(path, sizeof path, "views"),
                           MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_SUCCESS);
    strided(fh, rank, size);
    CHECK_RC(MPI_File_set_size(fh, 0), MPI_SUCCESS);
    columns(fh, rank, size);
    indexed(fh, rank);
    external32(fh, rank);
    invalid(fh);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    io_dir_remove();
    MPI_Finalize();
    return 0;
}
