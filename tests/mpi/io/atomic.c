/* Atomic mode: every rank writes the same strided region (many file runs, so without locks
 * the writes could interleave) again and again while others read it; every read and the
 * final contents hold one writer's data only. Also set/get_atomicity and a mismatch. */
#include "io_util.h"

#define RUNS 64
#define ROUNDS 20

static int one_writer(const int *v, int n)
{
    for (int i = 1; i < n; i++)
        if (v[i] != v[0])
            return 0;
    return 1;
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
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, io_path(path, sizeof path, "atomic"),
                           MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_SUCCESS);
    int flag = -1;
    CHECK_RC(MPI_File_get_atomicity(fh, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    if (size > 1)
        CHECK_RC(MPI_File_set_atomicity(fh, rank == 0), MPI_ERR_NOT_SAME);
    CHECK_RC(MPI_File_set_atomicity(fh, 1), MPI_SUCCESS);
    CHECK_RC(MPI_File_get_atomicity(fh, &flag), MPI_SUCCESS);
    CHECK(flag == 1);

    /* a strided view: RUNS runs of 16 ints with gaps of 16 */
    MPI_Datatype vec;
    MPI_Type_vector(RUNS, 16, 32, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, vec, "native", MPI_INFO_NULL), MPI_SUCCESS);
    int n = RUNS * 16, *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < n; i++)
            out[i] = round * 1000 + rank + 1;
        CHECK_RC(MPI_File_write_at(fh, 0, out, n, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
        MPI_Status st;
        CHECK_RC(MPI_File_read_at(fh, 0, in, n, MPI_INT, &st), MPI_SUCCESS);
        CHECK(one_writer(in, n));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_File_read_at(fh, 0, in, n, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(one_writer(in, n) && in[0] % 1000 >= 1 && in[0] % 1000 <= size);
    CHECK_RC(MPI_File_set_atomicity(fh, 0), MPI_SUCCESS);
    MPI_Type_free(&vec);
    free(out);
    free(in);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    io_dir_remove();
    MPI_Finalize();
    return 0;
}
