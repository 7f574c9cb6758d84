/* MPI_Register_datarep: a representation that stores ints byte-swapped (conversion
 * functions called with the user's datatype and count), one without conversion functions,
 * duplicates (MPI_ERR_DUP_DATAREP), and representations whose extents differ from the
 * native ones: with conversion functions the file layout uses their sizes (an int in 16
 * bytes), without them the access is MPI_ERR_UNSUPPORTED_DATAREP. */
#include "io_util.h"

#include <stdint.h>

static int conversions;

static uint32_t swap(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static int write_swapped(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                         MPI_Offset position, void *extra)
{
    CHECK(datatype == MPI_INT && position == 0 && extra == &conversions);
    const uint32_t *u = userbuf;
    uint32_t *fb = filebuf;
    for (int i = 0; i < count; i++)
        fb[i] = swap(u[i]);
    conversions++;
    return MPI_SUCCESS;
}

static int read_swapped(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                        MPI_Offset position, void *extra)
{
    CHECK(datatype == MPI_INT && position == 0 && extra == &conversions);
    uint32_t *u = userbuf;
    const uint32_t *fb = filebuf;
    for (int i = 0; i < count; i++)
        u[i] = swap(fb[i]);
    conversions++;
    return MPI_SUCCESS;
}

static int native_extent(MPI_Datatype datatype, MPI_Aint *extent, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(datatype, &lb, extent);
}

/* "padded": an int in 16 bytes, big-endian value then 12 bytes of 0xaa */
static int write_padded(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                        MPI_Offset position, void *extra)
{
    (void)extra;
    CHECK(datatype == MPI_INT && position == 0);
    const uint32_t *u = userbuf;
    unsigned char *fb = filebuf;
    for (int i = 0; i < count; i++, fb += 16) {
        for (int b = 0; b < 4; b++)
            fb[b] = (unsigned char)(u[i] >> (24 - 8 * b));
        memset(fb + 4, 0xaa, 12);
    }
    return MPI_SUCCESS;
}

static int read_padded(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                       MPI_Offset position, void *extra)
{
    (void)extra;
    CHECK(datatype == MPI_INT && position == 0);
    uint32_t *u = userbuf;
    const unsigned char *fb = filebuf;
    for (int i = 0; i < count; i++, fb += 16)
        u[i] = (uint32_t)fb[0] << 24 | (uint32_t)fb[1] << 16 | (uint32_t)fb[2] << 8 | fb[3];
    return MPI_SUCCESS;
}

static void padded(MPI_File fh, int rank)
{
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "padded", MPI_INFO_NULL), MPI_SUCCESS);
    MPI_Aint ext;
    CHECK_RC(MPI_File_get_type_extent(fh, MPI_INT, &ext), MPI_SUCCESS);
    CHECK(ext == 16);
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    CHECK_RC(MPI_File_get_type_extent(fh, vec, &ext), MPI_SUCCESS);
    CHECK(ext == 48);
    MPI_Type_free(&vec);
    int v[2] = { 0x01020304, rank }, back[2] = { 0, 0 };
    MPI_Status st;
    CHECK_RC(MPI_File_write_at_all(fh, 2 * rank, v, 2, MPI_INT, &st), MPI_SUCCESS);
    int got;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == 2);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    CHECK_RC(MPI_File_read_at(fh, 2 * rank, back, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(back[0] == v[0] && back[1] == rank);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
             MPI_SUCCESS);
    unsigned char raw[32];
    CHECK_RC(MPI_File_read_at(fh, 32 * rank, raw, 32, MPI_BYTE, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    CHECK(raw[0] == 1 && raw[3] == 4 && raw[4] == 0xaa && raw[15] == 0xaa);
    CHECK(raw[16] == 0 && raw[19] == (unsigned char)rank && raw[31] == 0xaa);
    MPI_Barrier(MPI_COMM_WORLD);
}

static int wide_extent(MPI_Datatype datatype, MPI_Aint *extent, void *extra)
{
    (void)datatype, (void)extra;
    *extent = 16;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();

    CHECK_RC(MPI_Register_datarep("swapped", read_swapped, write_swapped, native_extent,
                                  &conversions), MPI_SUCCESS);
    CHECK_RC(MPI_Register_datarep("swapped", read_swapped, write_swapped, native_extent, NULL),
             MPI_ERR_DUP_DATAREP);
    CHECK_RC(MPI_Register_datarep("external32", read_swapped, write_swapped, native_extent,
                                  NULL), MPI_ERR_DUP_DATAREP);
    CHECK_RC(MPI_Register_datarep("plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                  native_extent, NULL), MPI_SUCCESS);
    CHECK_RC(MPI_Register_datarep("wide", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                  wide_extent, NULL), MPI_SUCCESS);
    CHECK_RC(MPI_Register_datarep("padded", read_padded, write_padded, wide_extent, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Register_datarep("nameless", NULL, NULL, NULL, NULL), MPI_ERR_ARG);

    char path[300];
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, io_path(path, sizeof path, "datarep"),
                           MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "swapped", MPI_INFO_NULL), MPI_SUCCESS);
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft;
    CHECK_RC(MPI_File_get_view(fh, &disp, &et, &ft, rep), MPI_SUCCESS);
    CHECK(strcmp(rep, "swapped") == 0);
    int v[2] = { 0x01020304, rank }, back[2];
    CHECK_RC(MPI_File_write_at(fh, 2 * rank, v, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(conversions == 1);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    CHECK_RC(MPI_File_read_at(fh, 2 * rank, back, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(conversions == 2 && back[0] == v[0] && back[1] == rank);
    MPI_Aint ext;
    CHECK_RC(MPI_File_get_type_extent(fh, MPI_INT, &ext), MPI_SUCCESS);
    CHECK(ext == sizeof(int));
    /* the bytes in the file are swapped: seen through the plain representation */
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "plain", MPI_INFO_NULL), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_at(fh, 2 * rank, back, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(back[0] == 0x04030201 && (uint32_t)back[1] == swap((uint32_t)rank));
    /* extents other than the native ones without conversion functions: the view is
     * measured, but no data can move */
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "wide", MPI_INFO_NULL), MPI_SUCCESS);
    CHECK_RC(MPI_File_write_at(fh, 0, v, 1, MPI_INT, MPI_STATUS_IGNORE),
             MPI_ERR_UNSUPPORTED_DATAREP);
    MPI_Barrier(MPI_COMM_WORLD);
    padded(fh, rank);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    io_dir_remove();
    MPI_Finalize();
    return 0;
}
