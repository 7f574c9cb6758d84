/* Nonblocking data access (iread/iwrite at offsets, at the individual and shared pointers,
 * and the _all forms) completed by MPI_Wait / MPI_Waitall / MPI_Test with their statuses, and
 * the split collectives (begin/end pairs, and their misuse). */
#include "io_util.h"

#define N 16

static void settle(MPI_File fh)
{
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
}

static void expect_count(MPI_Status *st, int n)
{
    int count;
    MPI_Get_count(st, MPI_INT, &count);
    CHECK(count == n);
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
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, io_path(path, sizeof path, "nb"),
                           MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_SUCCESS);
    int out[N], in[N], peer = (rank + 1) % size;
    for (int i = 0; i < N; i++)
        out[i] = rank * 100 + i;
    MPI_Request req[4];
    MPI_Status st[4];
    MPI_Offset mine = (MPI_Offset)rank * N, theirs = (MPI_Offset)peer * N;

    /* at offsets: two halves, waited together */
    CHECK_RC(MPI_File_iwrite_at(fh, mine, out, N / 2, MPI_INT, &req[0]), MPI_SUCCESS);
    CHECK_RC(MPI_File_iwrite_at_all(fh, mine + N / 2, out + N / 2, N / 2, MPI_INT, &req[1]),
             MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(2, req, st), MPI_SUCCESS);
    CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL);
    expect_count(&st[0], N / 2);
    expect_count(&st[1], N / 2);
    settle(fh);
    CHECK_RC(MPI_File_iread_at(fh, theirs, in, N / 2, MPI_INT, &req[0]), MPI_SUCCESS);
    CHECK_RC(MPI_File_iread_at_all(fh, theirs + N / 2, in + N / 2, N / 2, MPI_INT, &req[1]),
             MPI_SUCCESS);
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Test(&req[0], &flag, &st[0]), MPI_SUCCESS);
    expect_count(&st[0], N / 2);
    CHECK_RC(MPI_Wait(&req[1], &st[1]), MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == peer * 100 + i);

    /* the individual pointer moves at the start */
    CHECK_RC(MPI_File_seek(fh, theirs, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_iread(fh, in, N / 2, MPI_INT, &req[0]), MPI_SUCCESS);
    CHECK_RC(MPI_File_iread_all(fh, in + N / 2, N / 2, MPI_INT, &req[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == peer * 100 + i);
    MPI_Offset pos;
    CHECK_RC(MPI_File_get_position(fh, &pos), MPI_SUCCESS);
    CHECK(pos == theirs + N);
    settle(fh);
    CHECK_RC(MPI_File_seek(fh, (MPI_Offset)(size + rank) * N, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_iwrite(fh, out, N / 2, MPI_INT, &req[0]), MPI_SUCCESS);
    CHECK_RC(MPI_File_iwrite_all(fh, out + N / 2, N / 2, MPI_INT, &req[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(2, req, st), MPI_SUCCESS);
    expect_count(&st[1], N / 2);
    settle(fh);
    CHECK_RC(MPI_File_read_at(fh, (MPI_Offset)(size + peer) * N, in, N, MPI_INT,
                              MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == peer * 100 + i);

    /* the shared pointer */
    CHECK_RC(MPI_File_seek_shared(fh, (MPI_Offset)2 * size * N, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_iwrite_shared(fh, out, N, MPI_INT, &req[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&req[0], &st[0]), MPI_SUCCESS);
    expect_count(&st[0], N);
    settle(fh);
    CHECK_RC(MPI_File_seek_shared(fh, (MPI_Offset)2 * size * N, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_iread_shared(fh, in, N, MPI_INT, &req[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&req[0], &st[0]), MPI_SUCCESS);
    expect_count(&st[0], N);
    CHECK(in[0] % 100 == 0 && in[N - 1] == in[0] + N - 1); /* one writer's whole block */

    /* an I/O request may be freed (and a cancel leaves it to complete) */
    CHECK_RC(MPI_File_iread_at(fh, theirs, in, 1, MPI_INT, &req[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Cancel(&req[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Request_free(&req[0]), MPI_SUCCESS);
    CHECK(req[0] == MPI_REQUEST_NULL);

    /* errors at the start: no request */
    CHECK_RC(MPI_File_iread_at(fh, -1, in, 1, MPI_INT, &req[0]), MPI_ERR_ARG);
    CHECK(req[0] == MPI_REQUEST_NULL);
    CHECK_RC(MPI_File_iread_at(fh, 0, in, 1, MPI_INT, NULL), MPI_ERR_ARG);

    /* split collectives */
    settle(fh);
    CHECK_RC(MPI_File_write_at_all_begin(fh, mine, out, N, MPI_INT), MPI_SUCCESS);
    CHECK_RC(MPI_File_write_all_begin(fh, out, N, MPI_INT), MPI_ERR_OTHER); /* one at a time */
    CHECK_RC(MPI_File_read_at_all_end(fh, in, &st[0]), MPI_ERR_OTHER);     /* not this one */
    CHECK_RC(MPI_File_write_at_all_end(fh, out, &st[0]), MPI_SUCCESS);
    expect_count(&st[0], N);
    CHECK_RC(MPI_File_write_at_all_end(fh, out, &st[0]), MPI_ERR_OTHER);   /* ended already */
    settle(fh);
    CHECK_RC(MPI_File_read_at_all_begin(fh, theirs, in, N, MPI_INT), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_at_all_end(fh, in, &st[0]), MPI_SUCCESS);
    expect_count(&st[0], N);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == peer * 100 + i);
    CHECK_RC(MPI_File_seek(fh, theirs, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_all_begin(fh, in, N, MPI_INT), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_all_end(fh, in, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(in[N - 1] == peer * 100 + N - 1);
    CHECK_RC(MPI_File_seek(fh, mine, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_write_all_begin(fh, out, N, MPI_INT), MPI_SUCCESS);
    CHECK_RC(MPI_File_write_all_end(fh, out, MPI_STATUS_IGNORE), MPI_SUCCESS);
    settle(fh);
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_write_ordered_begin(fh, out, N, MPI_INT), MPI_SUCCESS);
    CHECK_RC(MPI_File_write_ordered_end(fh, out, &st[0]), MPI_SUCCESS);
    expect_count(&st[0], N);
    settle(fh);
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_ordered_begin(fh, in, N, MPI_INT), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_ordered_end(fh, in, &st[0]), MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == rank * 100 + i);

    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    io_dir_remove();
    MPI_Finalize();
    return 0;
}
