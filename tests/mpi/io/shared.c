/* The shared file pointer: independent shared writes and reads (no two overlap, the pointer
 * moves by their sum), ordered writes and reads (rank order), seek_shared /
 * get_position_shared, the reset by set_view, MPI_MODE_APPEND, MPI_MODE_SEQUENTIAL with
 * MPI_DISPLACEMENT_CURRENT, and errors. */
#include "io_util.h"

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
    char path[300], seq[300];
    io_path(path, sizeof path, "shared");
    io_path(seq, sizeof seq, "sequential");
    int total = size * (size + 1) / 2; /* rank r moves r + 1 ints */
    int mine = rank + 1, buf[64], *all = malloc(sizeof(int) * (size_t)(2 * total + 8));
    MPI_Offset pos;
    MPI_Status st;
    int count;

    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position_shared(fh, &pos), MPI_SUCCESS);
    CHECK(pos == 0);
    MPI_Barrier(MPI_COMM_WORLD);

    /* independent: blocks never overlap, each is whole */
    for (int i = 0; i < mine; i++)
        buf[i] = rank;
    CHECK_RC(MPI_File_write_shared(fh, buf, mine, MPI_INT, &st), MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == mine);
    settle(fh);
    CHECK_RC(MPI_File_get_position_shared(fh, &pos), MPI_SUCCESS);
    CHECK(pos == total);
    CHECK_RC(MPI_File_read_at(fh, 0, all, total, MPI_INT, &st), MPI_SUCCESS);
    for (int i = 0; i < total;) {
        int r = all[i];
        CHECK(r >= 0 && r < size);
        for (int k = 0; k <= r; k++)
            CHECK(all[i + k] == r);
        i += r + 1;
    }
    /* shared reads: together they cover the file once */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_shared(fh, buf, mine, MPI_INT, &st), MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == mine);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_get_position_shared(fh, &pos), MPI_SUCCESS);
    CHECK(pos == total);

    /* ordered: rank order after the current end */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < mine; i++)
        buf[i] = rank * 10;
    CHECK_RC(MPI_File_write_ordered(fh, buf, mine, MPI_INT, &st), MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == mine);
    settle(fh);
    CHECK_RC(MPI_File_read_at(fh, total, all, total, MPI_INT, &st), MPI_SUCCESS);
    for (int r = 0, i = 0; r < size; r++)
        for (int k = 0; k <= r; k++, i++)
            CHECK(all[i] == r * 10);
    CHECK_RC(MPI_File_seek_shared(fh, total, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_ordered(fh, buf, mine, MPI_INT, &st), MPI_SUCCESS);
    for (int i = 0; i < mine; i++)
        CHECK(buf[i] == rank * 10);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_get_position_shared(fh, &pos), MPI_SUCCESS);
    CHECK(pos == 2 * total);

    /* seek_shared: CUR and END, errors */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_seek_shared(fh, -total, MPI_SEEK_CUR), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position_shared(fh, &pos), MPI_SUCCESS);
    CHECK(pos == total);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_seek_shared(fh, -1, MPI_SEEK_END), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position_shared(fh, &pos), MPI_SUCCESS);
    CHECK(pos == 2 * total - 1);
    CHECK_RC(MPI_File_seek_shared(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    CHECK_RC(MPI_File_seek_shared(fh, 0, 4242), MPI_ERR_ARG);
    /* a new view resets it */
    CHECK_RC(MPI_File_set_view(fh, 4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position_shared(fh, &pos), MPI_SUCCESS);
    CHECK(pos == 0);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_SUCCESS);
    CHECK_RC(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                               MPI_INFO_NULL), MPI_ERR_ARG); /* not SEQUENTIAL */
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);

    /* APPEND: the shared pointer starts at the end too */
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_APPEND,
                           MPI_INFO_NULL, &fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_position_shared(fh, &pos), MPI_SUCCESS);
    CHECK(pos == (MPI_Offset)(2 * total * sizeof(int)));
    CHECK_RC(MPI_File_write_shared(fh, buf, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);

    /* SEQUENTIAL: ordered writes, then a view at the current position */
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, seq,
                           MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL,
                           MPI_INFO_NULL, &fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_write_ordered(fh, buf, mine, MPI_INT, &st), MPI_SUCCESS);
    CHECK_RC(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                               MPI_INFO_NULL), MPI_SUCCESS);
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_RC(MPI_File_get_view(fh, &disp, &et, &ft, rep), MPI_SUCCESS);
    CHECK(disp == (MPI_Offset)(total * sizeof(int)));
    CHECK_RC(MPI_File_write_shared(fh, buf, 1, MPI_INT, &st), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_shared(fh, buf, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);

    free(all);
    io_dir_remove();
    MPI_Finalize();
    return 0;
}
