/* Paths in a job across sites (docs/io.md): the info key metampi_file_sites, with a file
 * system per site emulated by METAMPI_IO_SITE_DIRS=DIR (a rank at site S opens DIR/S/name).
 * "root": one file, at rank 0's site, holds every rank's block written and read collectively;
 * ranks of other sites get MPI_ERR_UNSUPPORTED_OPERATION for independent access. "each":
 * one file per site (EXPECT_SITE_SIZES: the ranks of each site, else one site), each holding
 * the blocks of its site's ranks alone. The payload this rank sent to other sites during the
 * collective write (MPI_T's sent_bytes_wan) shows where the data went: with "root", each
 * block of another site crosses the WAN once; otherwise none does (aggregators per site).
 * Ordered access keeps one shared pointer per file (below, ordered()).
 * Run on one host, emulated hosts and emulated sites. */
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glob.h>
#include <sys/stat.h>

#define B 1000 /* ints per rank */
#define RUN 10 /* in runs of RUN ints, interleaved: run c of rank r is the file's run c*size+r */

/* The index in the file of rank r's int k */
static size_t at_in_file(int r, int k, int size)
{
    return ((size_t)(k / RUN) * (size_t)size + (size_t)r) * RUN + (size_t)(k % RUN);
}

static MPI_T_pvar_session session;
static MPI_T_pvar_handle wan_bytes;

/* MPI_T's counter of payload bytes this rank sent to other sites, started. */
static void wan_counter(void)
{
    int provided, n;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
    MPI_T_pvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[64], desc[256];
        int nlen = sizeof name, dlen = sizeof desc, verb, cls, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &en, desc, &dlen, &bind, &ro,
                            &cont, &atomic);
        if (strcmp(name, "sent_bytes_wan") == 0) {
            int count;
            CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS);
            CHECK(MPI_T_pvar_handle_alloc(session, i, NULL, &wan_bytes, &count) ==
                  MPI_SUCCESS);
            CHECK(MPI_T_pvar_start(session, wan_bytes) == MPI_SUCCESS);
            return;
        }
    }
    CHECK(0);
}

static unsigned long long wan_sent(void)
{
    unsigned long long v;
    CHECK(MPI_T_pvar_read(session, wan_bytes, &v) == MPI_SUCCESS);
    return v;
}

static int nsites(void)
{
    const char *s = getenv("EXPECT_SITE_SIZES");
    int n = 1;
    for (; s && *s; s++)
        n += *s == ',';
    return n;
}

/* The files DIR/<any site>/name (shared: DIR/name): their number; *blocks: the ranks' blocks
 * found in them. */
static int site_files(const char *dir, const char *name, int shared, int size, int *blocks)
{
    char pattern[600];
    snprintf(pattern, sizeof pattern, shared ? "%s/%s" : "%s/*/%s", dir, name);
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
        /* every rank's ints are all there or all holes (zeros or past the end) */
        for (int r = 0; r < size; r++) {
            size_t first = at_in_file(r, 0, size);
            int full = first < got && v[first] == r * 100000 + 1;
            for (int k = 0; k < B; k++) {
                size_t i = at_in_file(r, k, size);
                CHECK(full ? i < got && v[i] == r * 100000 + k + 1 : i >= got || v[i] == 0);
            }
            *blocks += full;
        }
        unlink(g.gl_pathv[i]);
    }
    free(v);
    globfree(&g);
    return n;
}

/* A new file PREFIX-MODE-<tag> opened by every rank with metampi_file_sites=mode; its name in
 * name. shared: an absolute path in dir, the one file every site reaches (no per-site
 * directory); otherwise relative, so each site's directory holds its own. */
static MPI_File open_in_mode(const char *mode, const char *prefix, const char *dir, char *name,
                             size_t cap)
{
    int tag = (int)getpid();
    MPI_Bcast(&tag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(name, cap, "%s-%s-%d", prefix, mode, tag);
    char path[600];
    snprintf(path, sizeof path, strcmp(mode, "shared") == 0 ? "%s/%s" : "%.0s%s", dir, name);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "metampi_file_sites", mode);
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh),
             MPI_SUCCESS);
    MPI_Info_free(&info);
    return fh;
}

/* Ordered access with the shared file pointer: one pointer per file, so with a file per
 * site each site's file holds its own ranks' pairs in rank order without holes, and reading
 * in order from the start gives every rank its own pair back. Every file named name (in DIR,
 * or in DIR/<site>) is a run of pairs (10r+1, 10r+2), r rising, and the files hold every
 * rank's pair once. */
static void ordered(const char *mode, int rank, int size, const char *dir)
{
    char name[100];
    int shared = strcmp(mode, "shared") == 0;
    MPI_File fh = open_in_mode(mode, "ordered", dir, name, sizeof name);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_SUCCESS);
    int pair[2] = { 10 * rank + 1, 10 * rank + 2 }, back[2] = { 0, 0 };
    CHECK_RC(MPI_File_write_ordered(fh, pair, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    MPI_Offset pos = -1;
    CHECK_RC(MPI_File_get_position_shared(fh, &pos), MPI_SUCCESS);
    CHECK(pos % 2 == 0 && pos >= 2 && pos <= 2 * size && (shared ? pos == 2 * size : 1));
    CHECK_RC(MPI_File_sync(fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_ordered(fh, back, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(back[0] == pair[0] && back[1] == pair[1]);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    if (rank == 0) {
        char pattern[700];
        snprintf(pattern, sizeof pattern, shared ? "%s/%s" : "%s/*/%s", dir, name);
        glob_t g;
        CHECK(glob(pattern, 0, NULL, &g) == 0);
        char *seen = calloc((size_t)size, 1);
        CHECK(seen);
        for (size_t i = 0; i < g.gl_pathc; i++) {
            FILE *fp = fopen(g.gl_pathv[i], "rb");
            CHECK(fp);
            int v[2], last = -1;
            while (fread(v, sizeof v, 1, fp) == 1) {
                int r = (v[0] - 1) / 10;
                CHECK(r > last && r < size && v[0] == 10 * r + 1 && v[1] == 10 * r + 2);
                CHECK(!seen[r]);
                seen[r] = 1, last = r;
            }
            fclose(fp);
            unlink(g.gl_pathv[i]);
        }
        for (int r = 0; r < size; r++)
            CHECK(seen[r]);
        CHECK(g.gl_pathc == (size_t)(shared ? 1 : nsites()));
        free(seen);
        globfree(&g);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void run(const char *mode, int rank, int size, const char *dir)
{
    char name[100];
    int shared = strcmp(mode, "shared") == 0;
    MPI_File fh = open_in_mode(mode, "sites", dir, name, sizeof name);
    int *mine = malloc(B * sizeof *mine), *back = malloc(B * sizeof *back);
    CHECK(mine && back);
    for (int k = 0; k < B; k++)
        mine[k] = rank * 100000 + k + 1;
    MPI_Datatype ft;
    MPI_Type_vector(B / RUN, RUN, RUN * size, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    CHECK_RC(MPI_File_set_view(fh, (MPI_Offset)rank * RUN * (MPI_Offset)sizeof(int), MPI_INT,
                               ft, "native", MPI_INFO_NULL), MPI_SUCCESS);
    MPI_Type_free(&ft);
    MPI_Offset at = 0;
    MPI_Status st;
    unsigned long long before = wan_sent();
    CHECK_RC(MPI_File_write_at_all(fh, at, mine, B, MPI_INT, &st), MPI_SUCCESS);
    unsigned long long sent = wan_sent() - before, all_sent;
    MPI_Allreduce(&sent, &all_sent, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
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
    /* the data: B ints per rank; metadata (spans, counts, pieces, outcomes) stays below 1 KiB
     * per rank in one cycle, a quarter of a block */
    size_t block = B * sizeof(int), meta = 1024 * (size_t)size;
    if (strcmp(mode, "root") == 0 && indep != MPI_SUCCESS)
        CHECK(sent >= block && sent < block + meta); /* my block crossed the WAN, once */
    else if (strcmp(mode, "root") != 0)
        CHECK(all_sent < meta); /* no file data crossed the WAN */
    CHECK(indep == MPI_SUCCESS || (strcmp(mode, "root") == 0 &&
                                   indep == MPI_ERR_UNSUPPORTED_OPERATION));
    int reached = indep == MPI_SUCCESS, all_reached;
    MPI_Allreduce(&reached, &all_reached, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
    if (rank == 0) {
        int blocks;
        int files = site_files(dir, name, shared, size, &blocks);
        if (strcmp(mode, "root") == 0) {
            CHECK(files == 1 && blocks == size);
            CHECK(all_reached <= size && (nsites() > 1 || all_reached == size));
            if (nsites() > 1)
                CHECK(all_reached < size);
        } else {
            CHECK(files == (shared ? 1 : nsites()) && blocks == size && all_reached == size);
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
    wan_counter();
    run("root", rank, size, dir);
    run("each", rank, size, dir);
    run("shared", rank, size, dir);
    ordered("each", rank, size, dir);
    ordered("shared", rank, size, dir);
    MPI_T_pvar_handle_free(session, &wan_bytes);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
