/* Sites (include/mpi.h): MPI_Comm_split_type with METAMPI_COMM_TYPE_SITE and the predefined
 * attribute METAMPI_SITE, against the layout the test is told to expect.
 *
 * EXPECT_SITE_SIZES="n0,n1,..." is the number of ranks of each site in site order (mpirun
 * places ranks site by site, so site s holds the next n_s world ranks); without it the job
 * is expected to be one site. The checks: the attribute gives every rank its site on every
 * communicator (world, self, a dup, the site's own) and cannot be set or deleted; the split
 * gives each rank exactly its site's ranks, ordered by key, also with MPI_UNDEFINED on some
 * ranks and from a communicator that is not MPI_COMM_WORLD; messages flow in every site
 * communicator and among the sites' leaders; and, unless virtual sites are laid over one
 * real host (METAMPI_VIRTUAL_SITES without METAMPI_VIRTUAL_HOSTS), the ranks of a host
 * (MPI_COMM_TYPE_SHARED) all share one site. With EXPECT_MIN_WAN_RTT_US, messages between
 * sites take at least that long there and back (they cross the emulated WAN). */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;
static int *site_of;   /* the expected site of every world rank */
static int nsites;     /* the expected number of sites with ranks */

static int err_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

#define CHECK_ERR(expr, cls) CHECK(err_class(expr) == (cls))

static void expected_layout(void)
{
    site_of = malloc((size_t)size * sizeof *site_of);
    const char *e = getenv("EXPECT_SITE_SIZES");
    if (!e) {
        for (int r = 0; r < size; r++)
            site_of[r] = 0;
        nsites = 1;
        return;
    }
    int r = 0;
    char *end;
    for (const char *p = e;; p = end + 1) {
        long n = strtol(p, &end, 10);
        if (end == p || n < 1 || n > size - r || (*end != ',' && *end != '\0')) {
            fprintf(stderr, "FAIL rank %d: EXPECT_SITE_SIZES='%s' does not fit %d ranks\n", rank,
                    e, size);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (long i = 0; i < n; i++)
            site_of[r++] = nsites;
        nsites++;
        if (*end == '\0')
            break;
    }
    if (r != size) {
        fprintf(stderr, "FAIL rank %d: EXPECT_SITE_SIZES='%s' covers %d of %d ranks\n", rank, e,
                r, size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* c must hold exactly the world ranks members[0..n) in that order, and a message must go
 * around it as a ring. */
static void check_comm(MPI_Comm c, const int *members, int n)
{
    int csize, crank, me = -1;
    CHECK_RC(MPI_Comm_size(c, &csize), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_rank(c, &crank), MPI_SUCCESS);
    CHECK(csize == n);
    for (int i = 0; i < n; i++)
        if (members[i] == rank)
            me = i;
    CHECK(crank == me);
    MPI_Group g, w;
    CHECK_RC(MPI_Comm_group(c, &g), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &w), MPI_SUCCESS);
    int *idx = malloc((size_t)n * sizeof *idx), *wr = malloc((size_t)n * sizeof *wr);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    CHECK_RC(MPI_Group_translate_ranks(g, n, idx, w, wr), MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK(wr[i] == members[i]);
    free(idx);
    free(wr);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    int to = (crank + 1) % n, from = (crank - 1 + n) % n, got = -1;
    CHECK_RC(MPI_Sendrecv(&rank, 1, MPI_INT, to, 7, &got, 1, MPI_INT, from, 7, c,
                          MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(got == members[from]);
}

static void check_attr(MPI_Comm c)
{
    int *v = NULL, flag = 0;
    CHECK_RC(MPI_Comm_get_attr(c, METAMPI_SITE, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v != NULL);
    CHECK(*v == site_of[rank]);
}

static void attribute(void)
{
    check_attr(MPI_COMM_WORLD);
    check_attr(MPI_COMM_SELF);
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    check_attr(d);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    /* predefined: it cannot be set, deleted or freed */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, METAMPI_SITE, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_delete_attr(MPI_COMM_WORLD, METAMPI_SITE), MPI_ERR_KEYVAL);
    int k = METAMPI_SITE;
    CHECK_ERR(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    check_attr(MPI_COMM_WORLD);
}

static void split(void)
{
    int *ref = malloc((size_t)size * sizeof *ref), n = 0;
    /* key = -rank: each site's ranks in reverse order */
    for (int i = size - 1; i >= 0; i--)
        if (site_of[i] == site_of[rank])
            ref[n++] = i;
    MPI_Comm c = MPI_COMM_NULL;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, METAMPI_COMM_TYPE_SITE, -rank, MPI_INFO_NULL,
                                 &c), MPI_SUCCESS);
    check_comm(c, ref, n);
    check_attr(c);
    /* the site's ranks, summed within the site */
    int sum = 0, want = 0;
    for (int i = 0; i < n; i++)
        want += ref[i];
    CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
    CHECK(sum == want);
    /* the sites' leaders (rank 0 of each site communicator) count the sites */
    int crank;
    MPI_Comm_rank(c, &crank);
    MPI_Comm leaders;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, crank == 0 ? 0 : MPI_UNDEFINED, site_of[rank],
                            &leaders), MPI_SUCCESS);
    if (crank == 0) {
        int count = 0, one = 1, lrank;
        CHECK_RC(MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, leaders), MPI_SUCCESS);
        CHECK(count == nsites);
        MPI_Comm_rank(leaders, &lrank);
        CHECK(lrank == site_of[rank]);
        CHECK_RC(MPI_Comm_free(&leaders), MPI_SUCCESS);
    } else {
        CHECK(leaders == MPI_COMM_NULL);
    }
    CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);

    /* MPI_UNDEFINED on some ranks */
    int undef = rank % 3 == 1;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, undef ? MPI_UNDEFINED : METAMPI_COMM_TYPE_SITE,
                                 0, MPI_INFO_NULL, &c), MPI_SUCCESS);
    if (undef) {
        CHECK(c == MPI_COMM_NULL);
    } else {
        n = 0;
        for (int i = 0; i < size; i++)
            if (i % 3 != 1 && site_of[i] == site_of[rank])
                ref[n++] = i;
        check_comm(c, ref, n);
        CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    }

    /* from a communicator of the even or odd world ranks, in reverse order: the site of a
     * rank is that of its world rank, whatever its rank in the parent */
    MPI_Comm parity;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &parity), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_split_type(parity, METAMPI_COMM_TYPE_SITE, rank, MPI_INFO_NULL, &c),
             MPI_SUCCESS);
    n = 0;
    for (int i = 0; i < size; i++)
        if (i % 2 == rank % 2 && site_of[i] == site_of[rank])
            ref[n++] = i;
    check_comm(c, ref, n);
    check_attr(c);
    CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&parity), MPI_SUCCESS);
    free(ref);
}

/* EXPECT_MIN_WAN_RTT_US (emulated sites): the first rank of every other site answers a
 * ping of the first rank of site 0 no faster than the WAN's round trip, so their messages
 * did cross the emulated WAN (a lower bound only: a busy machine makes it slower, never
 * faster). */
static void wan_round_trips(void)
{
    const char *e = getenv("EXPECT_MIN_WAN_RTT_US");
    if (!e)
        return;
    double min_rtt = atof(e) * 1e-6;
    int first = rank == 0 || site_of[rank] != site_of[rank - 1];
    for (int peer = 1; peer < size; peer++) {
        if (site_of[peer] == site_of[peer - 1] || site_of[peer] == site_of[0])
            continue;  /* not the first rank of another site */
        char b = 0;
        if (rank == 0) {
            double best = 1e9;
            for (int i = 0; i < 5; i++) {
                double t = MPI_Wtime();
                CHECK_RC(MPI_Send(&b, 1, MPI_CHAR, peer, 9, MPI_COMM_WORLD), MPI_SUCCESS);
                CHECK_RC(MPI_Recv(&b, 1, MPI_CHAR, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
                t = MPI_Wtime() - t;
                best = t < best ? t : best;
            }
            if (best < min_rtt) {
                fprintf(stderr, "FAIL rank 0: round trip to rank %d (site %d) %.0f us, below "
                        "the WAN's %.0f us\n", peer, site_of[peer], best * 1e6, min_rtt * 1e6);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else if (rank == peer && first) {
            for (int i = 0; i < 5; i++) {
                CHECK_RC(MPI_Recv(&b, 1, MPI_CHAR, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
                CHECK_RC(MPI_Send(&b, 1, MPI_CHAR, 0, 9, MPI_COMM_WORLD), MPI_SUCCESS);
            }
        }
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
}

/* Every rank of this rank's host is at this rank's site. */
static void hosts_within_sites(void)
{
    MPI_Comm host;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host),
             MPI_SUCCESS);
    int n;
    MPI_Comm_size(host, &n);
    int *sites = malloc((size_t)n * sizeof *sites);
    CHECK_RC(MPI_Allgather(&site_of[rank], 1, MPI_INT, sites, 1, MPI_INT, host), MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK(sites[i] == site_of[rank]);
    free(sites);
    CHECK_RC(MPI_Comm_free(&host), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *es = getenv("EXPECT_SIZE");
    if (es)
        CHECK(atoi(es) == size);
    expected_layout();
    attribute();
    split();
    if (!getenv("METAMPI_VIRTUAL_SITES") || getenv("METAMPI_VIRTUAL_HOSTS"))
        hosts_within_sites();
    wan_round_trips();
    /* an unknown split type is still refused, naming the new one among the valid */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm c = MPI_COMM_NULL;
    CHECK_ERR(MPI_Comm_split_type(MPI_COMM_WORLD, METAMPI_COMM_TYPE_SITE + 1, 0, MPI_INFO_NULL,
                                  &c), MPI_ERR_ARG);
    free(site_of);
    MPI_Finalize();
    if (rank == 0)
        printf("sites: %d site(s) of %d ranks: ok\n", nsites, size);
    return 0;
}
