/* Reads and writes with explicit offsets and individual file pointers, blocking, independent
 * and collective: every rank writes a block, another rank reads it back; reads at the end of
 * the file; seek (SET/CUR/END), get_position; APPEND; a noncontiguous memory type; the error
 * paths (access modes, offsets, counts, types, SEQUENTIAL). */
#include "io_util.h"

#define N 100

/* MPI's consistency for nonatomic access by different processes: sync-barrier-sync */
static void settle(MPI_File fh)
{
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[300];
    io_path(path, sizeof path, "rw");
    int buf[N], in[2 * N];
    MPI_Status st;
    int count;
    int peer = (rank + 1) % size;

    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh), MPI_SUCCESS);
    /* explicit offsets (the default view: bytes) */
    for (int i = 0; i < N; i++)
        buf[i] = rank * 1000 + i;
    CHECK_RC(MPI_File_write_at(fh, (MPI_Offset)rank * sizeof buf, buf, N, MPI_INT, &st),
             MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == N);
    settle(fh);
    CHECK_RC(MPI_File_read_at(fh, (MPI_Offset)peer * sizeof buf, in, N, MPI_INT, &st),
             MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == N);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == peer * 1000 + i);
    /* at the end of the file a read gets what there is */
    MPI_Offset end = (MPI_Offset)size * sizeof buf;
    CHECK_RC(MPI_File_read_at(fh, end - 2 * sizeof(int), in, 10, MPI_INT, &st), MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 2 && in[1] == (size - 1) * 1000 + N - 1);
    CHECK_RC(MPI_File_read_at(fh, end + 100, in, 10, MPI_INT, &st), MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0);

    /* the collective forms, with a noncontiguous memory type: every other int */
    MPI_Datatype every_other;
    MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    settle(fh);
    CHECK_RC(MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof buf, buf, 1, every_other, &st),
             MPI_SUCCESS);
    MPI_Get_elements(&st, MPI_INT, &count);
    CHECK(count == N / 2);
    settle(fh);
    CHECK_RC(MPI_File_read_at_all(fh, (MPI_Offset)peer * sizeof buf, in, N, MPI_INT, &st),
             MPI_SUCCESS);
    for (int i = 0; i < N / 2; i++)
        CHECK(in[i] == peer * 1000 + 2 * i);
    for (int i = N / 2; i < N; i++)
        CHECK(in[i] == peer * 1000 + i);
    memset(in, 0, sizeof in);
    CHECK_RC(MPI_File_read_at_all(fh, (MPI_Offset)peer * sizeof buf, in, 1, every_other, &st),
             MPI_SUCCESS);
    for (int i = 0; i < N / 2; i++)
        CHECK(in[2 * i] == peer * 1000 + 2 * i && in[2 * i + 1] == 0);

    /* individual pointers in a view of ints */
    settle(fh);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_SUCCESS);
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position(fh, &pos), MPI_SUCCESS);
    CHECK(pos == 0);
    CHECK_RC(MPI_File_seek(fh, (MPI_Offset)peer * N, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_read(fh, in, N / 2, MPI_INT, &st), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position(fh, &pos), MPI_SUCCESS);
    CHECK(pos == (MPI_Offset)peer * N + N / 2);
    CHECK_RC(MPI_File_read_all(fh, in + N / 2, N / 2, MPI_INT, &st), MPI_SUCCESS);
    for (int i = N / 2; i < N; i++)
        CHECK(in[i] == peer * 1000 + i);
    CHECK_RC(MPI_File_seek(fh, -N, MPI_SEEK_CUR), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position(fh, &pos), MPI_SUCCESS);
    CHECK(pos == (MPI_Offset)peer * N);
    CHECK_RC(MPI_File_seek(fh, 0, MPI_SEEK_END), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position(fh, &pos), MPI_SUCCESS);
    CHECK(pos == (MPI_Offset)size * N);
    CHECK_RC(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    CHECK_RC(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
    /* writes through the pointer: each rank appends a block after everyone's */
    CHECK_RC(MPI_File_seek(fh, (MPI_Offset)rank * N, MPI_SEEK_END), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank saw the end before anyone writes past it */
    CHECK_RC(MPI_File_write_all(fh, buf, N, MPI_INT, &st), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position(fh, &pos), MPI_SUCCESS);
    CHECK(pos == (MPI_Offset)(size + rank + 1) * N);

    /* errors, on the file's handler (MPI_ERRORS_RETURN) */
    CHECK_RC(MPI_File_read_at(fh, -1, in, 1, MPI_INT, &st), MPI_ERR_ARG);
    CHECK_RC(MPI_File_read_at(fh, 0, in, -1, MPI_INT, &st), MPI_ERR_COUNT);
    CHECK_RC(MPI_File_write(fh, buf, 1, MPI_DATATYPE_NULL, &st), MPI_ERR_TYPE);
    CHECK_RC(MPI_File_write(fh, buf, 1, MPI_CHAR, &st), MPI_ERR_TYPE); /* not whole etypes */
    MPI_Datatype loose;
    MPI_Type_contiguous(2, MPI_INT, &loose);
    CHECK_RC(MPI_File_write(fh, buf, 1, loose, &st), MPI_ERR_TYPE); /* not committed */
    MPI_Type_free(&loose);
    CHECK_RC(MPI_File_read(MPI_FILE_NULL, in, 1, MPI_INT, &st), MPI_ERR_FILE);
    /* a collective call where one member's arguments are bad: nobody hangs, all fail */
    CHECK_RC(MPI_File_write_at_all(fh, 0, buf, rank == 0 ? -1 : 1, MPI_INT, &st),
             rank == 0 ? MPI_ERR_COUNT : MPI_ERR_OTHER);
    CHECK_RC(MPI_File_read_all(fh, in, 1, rank == size - 1 ? MPI_DATATYPE_NULL : MPI_INT, &st),
             rank == size - 1 ? MPI_ERR_TYPE : MPI_ERR_OTHER);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);

    /* access modes */
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
             MPI_SUCCESS);
    CHECK_RC(MPI_File_read_at(fh, 0, in, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    CHECK_RC(MPI_File_read(fh, in, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
             MPI_SUCCESS);
    CHECK_RC(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    CHECK_RC(MPI_File_write_all(fh, buf, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                           MPI_INFO_NULL, &fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_RC(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);

    /* APPEND: the pointer starts at the end */
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_APPEND, MPI_INFO_NULL,
                           &fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position(fh, &pos), MPI_SUCCESS);
    CHECK(pos == (MPI_Offset)(2 * size * sizeof buf));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_RC(MPI_File_write(fh, buf, 1, MPI_INT, &st), MPI_SUCCESS);
        MPI_Offset sz;
        CHECK_RC(MPI_File_get_size(fh, &sz), MPI_SUCCESS);
        CHECK(sz == pos + (MPI_Offset)sizeof(int));
    }
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);

    MPI_Type_free(&every_other);
    io_dir_remove();
    MPI_Finalize();
    return 0;
}
