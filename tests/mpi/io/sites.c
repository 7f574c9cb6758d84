/* Paths in a job across sites (docs/io.md): the info key metampi_file_sites, with a file
 * system per site emulated by METAMPI_IO_SITE_DIRS=DIR (a rank at site S opens DIR/S/name).
 * "root": one file, at rank 0's site, holds every rank's block written and read collectively;
 * ranks of other sites get MPI_ERR_UNSUPPORTED_OPERATION for independent access. "each":
 * one file per site (EXPECT_SITE_SIZES: the ranks of each site, else one site), each holding
 * the blocks of its site's ranks alone. Run on one host, emulated hosts and emulated sites. */
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glob.h>
#include <sys/stat.h>

#define B 1000 /* ints per rank */

static int nsites(void)
{
    const char *s = getenv("EXPECT_SITE_SIZES");
    int n = 1;
    for (; s && *s; s++)
        n += *s == ',';
    return n;
}

/* The files DIR/<any site>/name: their number; each is checked by `check`. */
static int site_files(const char *dir, const char *name, int size, int *blocks)
{
    char pattern[600];
    snprintf(pattern, sizeof pattern, "%s/*/%s", dir, name);
    glob_t g;
    int n = 0;
    *blocks = 0;
    if (glob(pattern, 0, NULL, &g) != 0)
        return 0;
    int *v = malloc((size_t)size * B * sizeof *v);
    CHECK(v);
    for (size_t i = 0; i < g.gl_pathc; i++, n++) {
        FILE *fp = fopen(g.gl_pathv[i], "rb");
        CHECK(fp);
        memset(v, 0, (size_t)size * B * sizeof *v);
        size_t got = fread(v, sizeof *v, (size_t)size * B, fp);
        fclose(fp);
        /* every block is a rank's data or a hole (zeros or past the end) */
        for (int r = 0; r < size; r++) {
            int full = (size_t)(r + 1) * B <= got && v[r * B] == r * 100000 + 1;
            for (int k = 0; full && k < B; k++)
                CHECK(v[r * B + k] == r * 100000 + k + 1);
            for (int k = 0; !full && k < B && (size_t)(r * B + k) < got; k++)
                CHECK(v[r * B + k] == 0);
            *blocks += full;
        }
        unlink(g.gl_pathv[i]);
    }
    free(v);
    globfree(&g);
    return n;
}

static void run(const char *mode, int rank, int size, const char *dir)
{
    char name[64];
    int tag = (int)getpid();
    MPI_Bcast(&tag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(name, sizeof name, "sites-%s-%d", mode, tag);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "metampi_file_sites", mode);
    MPI_Info_set(info, "cb_buffer_size", "1024"); /* several cycles */
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh),
             MPI_SUCCESS);
    MPI_Info_free(&info);
    int *mine = malloc(B * sizeof *mine), *back = malloc(B * sizeof *back);
    CHECK(mine && back);
    for (int k = 0; k < B; k++)
        mine[k] = rank * 100000 + k + 1;
    MPI_Offset at = (MPI_Offset)rank * B * (MPI_Offset)sizeof(int);
    MPI_Status st;
    CHECK_RC(MPI_File_write_at_all(fh, at, mine, B, MPI_INT, &st), MPI_SUCCESS);
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_at_all(fh, at, back, B, MPI_INT, &st), MPI_SUCCESS);
    int got;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == B);
    for (int k = 0; k < B; k++)
        CHECK(back[k] == mine[k]);
    /* independent access: where the file is open here */
    MPI_Offset fsize;
    int rc = MPI_File_get_size(fh, &fsize);
    int indep = MPI_File_read_at(fh, at, back, B, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(rc == indep);
    CHECK(indep == MPI_SUCCESS || (strcmp(mode, "root") == 0 &&
                                   indep == MPI_ERR_UNSUPPORTED_OPERATION));
    int reached = indep == MPI_SUCCESS, all_reached;
    MPI_Allreduce(&reached, &all_reached, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    if (rank == 0) {
        int blocks;
        int files = site_files(dir, name, size, &blocks);
        if (strcmp(mode, "root") == 0) {
            CHECK(files == 1 && blocks == size);
            CHECK(all_reached <= size && (nsites() > 1 || all_reached == size));
            if (nsites() > 1)
                CHECK(all_reached < size);
        } else {
            CHECK(files == nsites() && blocks == size && all_reached == size);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(mine);
    free(back);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *dir = getenv("METAMPI_IO_SITE_DIRS");
    CHECK(dir && *dir);
    run("root", rank, size, dir);
    run("each", rank, size, dir);
    MPI_Finalize();
    return 0;
}
