/* The collective buffer is bounded (cb_buffer_size): rank 0, an aggregator (the lowest rank
 * of its host), receives the data of every rank of its host in a write_at_all of 8 MiB per
 * rank, interleaved in the file so its domain holds everyone's data; with a buffer of 1 MiB its
 * peak memory (getrusage's maxrss) grows by its own packed data and about one window, not by
 * its whole domain. Run at 4 ranks on one host. Under AddressSanitizer (whose allocator keeps
 * freed memory in quarantine and adds shadow pages) only the data is checked. */
#include "io_util.h"

#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__)
#define MEASURED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEASURED 0
#endif
#endif
#ifndef MEASURED
#define MEASURED 1
#endif

#define PER_RANK (8 << 20)
#define RUN 4096 /* bytes per run, interleaved over the ranks */

static long maxrss_kib(void)
{
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char *mine = malloc(PER_RANK), *back = malloc(PER_RANK);
    CHECK(mine && back);
    for (int i = 0; i < PER_RANK; i++)
        mine[i] = (char)(i * 7 + rank);
    memset(back, 0, PER_RANK);
    char path[300];
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, io_path(path, sizeof path, "bounded"),
                           MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, info,
                           &fh), MPI_SUCCESS);
    MPI_Info_free(&info);
    MPI_Datatype ft;
    MPI_Type_vector(PER_RANK / RUN, RUN, RUN * size, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, (MPI_Offset)rank * RUN, MPI_BYTE, ft, "native",
                               MPI_INFO_NULL), MPI_SUCCESS);
    long before = maxrss_kib();
    CHECK_RC(MPI_File_write_at_all(fh, 0, mine, PER_RANK, MPI_BYTE, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    long grew = maxrss_kib() - before;
    CHECK_RC(MPI_File_read_at_all(fh, 0, back, PER_RANK, MPI_BYTE, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    CHECK(memcmp(mine, back, PER_RANK) == 0);
    if (rank == 0 && MEASURED) {
        /* unbounded, rank 0 would hold its whole domain: size * 8 MiB / aggregators (at
         * least 8 MiB with 2 or more ranks); bounded, its packed data (8 MiB) and a window */
        long limit = (PER_RANK + 4 * (1 << 20)) / 1024;
        if (grew > limit)
            fprintf(stderr, "rank 0's peak memory grew by %ld KiB in write_at_all (limit %ld)\n",
                    grew, limit);
        CHECK(grew <= limit);
    }
    MPI_Type_free(&ft);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    free(mine);
    free(back);
    io_dir_remove();
    MPI_Finalize();
    return 0;
}
