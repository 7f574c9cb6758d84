/* A stuck mpirun at another site of a federated job (docs/dynproc.md, "Federated jobs"):
 * alive but unresponsive (SIGSTOP, through run_federated.sh's @MPIRUNCTL@ directory CTL).
 * Layout: two sites, the first site's ranks first (EXPECT_SITE_SIZES); METAMPI_FED_TIMEOUT
 * short (the test sets 2 s).
 * fed_stuck CTL: the last site's mpirun is stopped; a spawn at its host (info key host) is
 * MPI_ERR_SPAWN at every rank after the timeout, not a hang; it is continued: its late
 * answer is declined, so those children ("late") never run (one that does says FAIL); a
 * spawn there then works (the job goes on). The first site's mpirun (the keeper of the
 * names) is stopped; a lookup at the last site is MPI_ERR_OTHER after the timeout; it is
 * continued and the lookup works.
 * fed_stuck CTL why | name: the spawn, the lookup under MPI_ERRORS_ARE_FATAL (the other
 * mpirun stopped for 8 s): the report names the site and what timed out (the test checks). */
#include "../check.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char ctl[4096];

/* Has the harness send SIGSTOP (what "stop") or SIGCONT ("cont") to the mpirun of site
 * (1-based), and waits until it has; secs > 0: SIGCONT follows by itself after secs. */
static void signal_mpirun(const char *what, int site, int secs)
{
    char path[4200], tmp[4200];
    snprintf(path, sizeof path, "%s/%s-s%d", ctl, what, site);
    snprintf(tmp, sizeof tmp, "%s/tmp-%s-s%d", ctl, what, site);
    FILE *f = fopen(tmp, "w");   /* whole when it appears under its name */
    CHECK(f != NULL);
    if (!f)
        return;
    if (secs > 0)
        fprintf(f, "%d\n", secs);
    fclose(f);
    CHECK(rename(tmp, path) == 0);
    for (int i = 0; i < 300 && access(path, F_OK) == 0; i++)
        usleep(100000);
    CHECK(access(path, F_OK) != 0);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A spawn of one child "what" on host; its return code. */
static int spawn_at(char *self, const char *host, const char *what, MPI_Comm *inter)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", host);
    char *args[] = { (char *)what, NULL };
    int code = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    *inter = MPI_COMM_NULL;
    int rc = MPI_Comm_spawn(self, args, 1, info, 0, MPI_COMM_WORLD, inter, &code);
    CHECK(rank != 0 || (rc == MPI_SUCCESS) == (code == MPI_SUCCESS));
    MPI_Info_free(&info);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        /* "late": started for a spawn that timed out, which must never happen */
        CHECK(argc >= 2 && strcmp(argv[1], "child") == 0);
        CHECK_RC(MPI_Comm_disconnect(&parent), MPI_SUCCESS);
        MPI_Finalize();
        return 0;
    }
    CHECK(argc >= 2);
    snprintf(ctl, sizeof ctl, "%s", argc >= 2 ? argv[1] : "");
    const char *mode = argc >= 3 ? argv[2] : "";
    int rank, size, len;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *sizes = getenv("EXPECT_SITE_SIZES");
    int first_site = sizes ? atoi(sizes) : 1;   /* ranks 0..first_site-1: site 1 */
    CHECK(first_site >= 1 && first_site < size);
    char *names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME), mine[MPI_MAX_PROCESSOR_NAME];
    CHECK(names);
    MPI_Get_processor_name(mine, &len);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    const char *last = names + (size_t)(size - 1) * MPI_MAX_PROCESSOR_NAME;
    MPI_Comm inter;
    char port[MPI_MAX_PORT_NAME];
    if (strcmp(mode, "why") == 0) {   /* the report says why; the job ends */
        if (rank == 0)
            signal_mpirun("stop", 2, 8);
        MPI_Barrier(MPI_COMM_WORLD);
        spawn_at(argv[0], last, "late", &inter);
        CHECK(0);   /* not reached */
    }
    if (strcmp(mode, "name") == 0) {
        if (rank == 0)
            signal_mpirun("stop", 1, 8);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == size - 1)
            MPI_Lookup_name("metampi-stuck", MPI_INFO_NULL, port);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(rank != size - 1);   /* not reached there */
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* the last site's mpirun stuck: the spawn there fails after the timeout */
    if (rank == 0)
        signal_mpirun("stop", 2, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    int cls = -1;
    MPI_Error_class(spawn_at(argv[0], last, "late", &inter), &cls);
    double waited = now() - t0;
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    CHECK(waited < 30);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        signal_mpirun("cont", 2, 0);
        sleep(3);   /* its late answer comes and is declined meanwhile */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* the job goes on: a spawn there works */
    CHECK_RC(spawn_at(argv[0], last, "child", &inter), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);

    /* the keeper of the names (the first site's mpirun) stuck */
    char opened[MPI_MAX_PORT_NAME] = "";
    if (rank == 0) {
        CHECK_RC(MPI_Open_port(MPI_INFO_NULL, opened), MPI_SUCCESS);
        CHECK_RC(MPI_Publish_name("metampi-stuck", MPI_INFO_NULL, opened), MPI_SUCCESS);
        signal_mpirun("stop", 1, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        t0 = now();
        MPI_Error_class(MPI_Lookup_name("metampi-stuck", MPI_INFO_NULL, port), &cls);
        CHECK(cls == MPI_ERR_OTHER);
        CHECK(now() - t0 < 30);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        signal_mpirun("cont", 1, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(opened, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == size - 1) {
        CHECK_RC(MPI_Lookup_name("metampi-stuck", MPI_INFO_NULL, port), MPI_SUCCESS);
        CHECK(strcmp(port, opened) == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_RC(MPI_Unpublish_name("metampi-stuck", MPI_INFO_NULL, opened), MPI_SUCCESS);
        CHECK_RC(MPI_Close_port(opened), MPI_SUCCESS);
        printf("a stuck mpirun: spawn and lookup refused after the timeout, then served\n");
    }
    free(names);
    MPI_Finalize();
    return 0;
}
