/* A rank's shared-memory segment has memory only where it is used: its header, every pair's
 * control words (256 B) and cells (64 B each; 128 per pair, fewer above 32 ranks on a host),
 * packed without padding, and of a pair's data ring the pages its sender's frames reached (at
 * 256 ranks on one host, fully allocated rings made 9.4 GB; a page of control words per pair
 * and whole rings given memory at a pair's first long frame made 1 GB). mincore() tells
 * which pages of a segment's file exist in memory, whoever touched them: after MPI_Init each
 * segment must hold little more than its header, control words and cells, and a ring of
 * 4 KiB messages may add only the pages those messages took. The collectives' shared area
 * (fully allocated) stays within its 8 MiB budget of slots. All ranks run on one host. */
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Pages of this rank's own segment (the one named after its rank) that have memory. */
static size_t backed_pages(int rank, size_t *total)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL);
    char line[4096], mine[64];
    snprintf(mine, sizeof mine, ".shm.%d ", rank);
    size_t backed = 0;
    *total = 0;
    while (fgets(line, sizeof line, maps)) {
        if (!strstr(line, "/dev/shm/metampi.") || !strstr(line, mine))
            continue;
        uintptr_t lo, hi;
        CHECK(sscanf(line, "%lx-%lx", &lo, &hi) == 2);
        size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (hi - lo) / page;
        unsigned char *vec = malloc(n);
        CHECK(vec != NULL);
        CHECK(mincore((void *)lo, hi - lo, vec) == 0);
        for (size_t i = 0; i < n; i++)
            backed += vec[i] & 1;
        free(vec);
        *total += n;
    }
    fclose(maps);
    return backed;
}

/* Bytes of this process's mappings whose path has both parts. */
static size_t mapped_bytes(const char *part1, const char *part2)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL);
    char line[4096];
    size_t bytes = 0;
    while (fgets(line, sizeof line, maps)) {
        uintptr_t lo, hi;
        if (strstr(line, part1) && strstr(line, part2) && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
            bytes += hi - lo;
    }
    fclose(maps);
    return bytes;
}

/* Pages of a segment with np pairs that open() gives memory: the header page, then np * (256 +
 * 64 * cells) bytes, with the default cells (docs/shm-transport.md, "Environment"). */
static unsigned long long control_pages(unsigned long long np)
{
    unsigned long long cells = 128;
    while (cells > 16 && cells * np > 4096)
        cells /= 2;
    return 1 + (np * (256 + 64 * cells) + 4095) / 4096;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    /* the job's segments hold one pair per ordered pair of ranks; their rings are most of
     * them, and MPI_Init sends long frames through a few only */
    size_t total, mine = backed_pages(rank, &total);
    unsigned long long pages[2] = { mine, total }, sum[2];
    MPI_Allreduce(pages, sum, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum[1] > 0);
    if (sum[0] * 2 >= sum[1]) {
        fprintf(stderr, "rank %d: %llu of the segments' %llu pages have memory after MPI_Init\n",
                rank, sum[0], sum[1]);
        CHECK(!"most of the segments have no memory before they are used");
    }
    unsigned long long before = sum[0], np = (unsigned long long)size - 1;
    /* MPI_Init sends no frame longer than a cell to most peers */
    unsigned long long bound = (unsigned long long)size * (control_pages(np) + 2 + np / 4);
    if (sum[0] > bound) {
        fprintf(stderr, "rank %d: %llu pages of the segments have memory after MPI_Init, more "
                "than the %llu their control words and cells need\n", rank, sum[0], bound);
        CHECK(!"only the control words and cells have memory after MPI_Init");
    }

    enum { LONG = 4096 };
    char out[LONG], in[LONG];
    for (int i = 0; i < LONG; i++)
        out[i] = (char)(rank * 7 + i);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(out, LONG, MPI_CHAR, right, 0, in, LONG, MPI_CHAR, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < LONG; i++)
        CHECK(in[i] == (char)(left * 7 + i));
    MPI_Barrier(MPI_COMM_WORLD);
    pages[0] = backed_pages(rank, &total);
    MPI_Allreduce(pages, sum, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum[0] >= before && sum[0] < sum[1]);
    /* one 4 KiB message (and its header) per pair takes two pages of its ring, not the ring */
    if (sum[0] - before > 3ull * (unsigned long long)size) {
        fprintf(stderr, "rank %d: a ring of %d-byte messages gave %llu pages memory (%d ranks)\n",
                rank, LONG, sum[0] - before, size);
        CHECK(!"a ring gets memory only for the pages its frames reach");
    }
    /* the collectives' shared area (MPI_Allreduce made it): at most 8 MiB of slots, whatever
     * the number of ranks, unless METAMPI_COLL_SHM_CHUNK says otherwise */
    size_t area = mapped_bytes("/dev/shm/metampi.", ".coll.");
    if (area > (9u << 20)) {
        fprintf(stderr, "rank %d: the collectives' area of %d ranks maps %zu bytes\n", rank, size,
                area);
        CHECK(!"the collectives' area stays within its budget");
    }
    MPI_Finalize();
    if (rank == 0)
        printf("shm_sparse: ok (%d ranks; %llu then %llu of %llu pages)\n", size, before,
               sum[0], sum[1]);
    return 0;
}
