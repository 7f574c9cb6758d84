/* MPI_Register_datarep: a representation that stores ints byte-swapped (conversion
 * functions called with the user's datatype and count), one without conversion functions,
 * duplicates (MPI_ERR_DUP_DATAREP), and a representation whose extents differ from the
 * native ones (refused: MPI_ERR_UNSUPPORTED_DATAREP). */
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
    /* extents other than the native ones: refused */
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "wide", MPI_INFO_NULL),
             MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    io_dir_remove();
    MPI_Finalize();
    return 0;
}
