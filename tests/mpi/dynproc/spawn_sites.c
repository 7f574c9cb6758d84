/* Spawning across sites (docs/dynproc.md, "Several sites"): parents on every site of a
 * metacomputer (mpirun --metacomputer) spawn, by MPI_Comm_spawn_multiple, one child on the
 * host of world rank 0 (the first site) and NCHILD on the host of the last world rank (the
 * last site), by info key host. Every child checks it runs where it was asked to
 * (MPI_Get_processor_name). Then, over the inter-communicator: point-to-point both ways
 * between every parent and every child, small (eager) and large (1 MiB: rendezvous);
 * Bcast and Allreduce; the children's own world, which spans both sites, reduces; the merged
 * intra-communicator reduces and its size is every process; everyone disconnects.
 * Usage: spawn_sites [NCHILD] (default 2).
 * spawn_sites nogw: in gateway mode, with the ranks all at the first site (so the second runs
 * no gateway), a child asked for on the second site's first host (this host's run_on_sites.sh
 * name with s1h1 made s2h1) fails the spawn with MPI_ERR_SPAWN at every rank, and the reason
 * names the site (spawn_sites nogw why: errors are fatal, the report says it); nothing
 * starts.
 * spawn_sites fed [NCHILD] (a federated job: one mpirun per site, docs/dynproc.md, "Federated
 * jobs"): world rank 0 (first site) spawns NCHILD children on its own host, then on the last
 * world rank's host (the last site: that site's mpirun starts them), then the last world rank
 * (last site) NCHILD on its own host and on rank 0's, and rank 0 two commands
 * (MPI_Comm_spawn_multiple, 1 and NCHILD ranks) both on the last site's host; each time
 * point-to-point both ways between every parent (at both sites) and every child, Bcast and
 * Allreduce on the inter-communicator, the merged communicator, disconnect; every child checks
 * it runs where it was asked to. Before, refused with MPI_ERR_SPAWN at every rank, never a
 * hang: a spawn_multiple whose commands name hosts at two sites or one host at the other site
 * and none, and a command the other site cannot execute (the reason comes from there).
 * spawn_sites fedwhy spawn|nohost|nocmd: the same refusals under MPI_ERRORS_ARE_FATAL (the
 * report says why; the test checks it).
 * spawn_sites fedlost STOPFILE: rank 0 creates STOPFILE, whereupon the test stops the
 * rendezvous server; the ranks spawn one child a second (each disconnects at once) until a
 * spawn fails, which must be MPI_ERR_SPAWN at every rank within 60 s; a name looked up is
 * then unknown at the first site (MPI_ERR_NAME) and cannot be asked for at the others
 * (MPI_ERR_OTHER); then a spawn once more under MPI_ERRORS_ARE_FATAL (the report says why;
 * the test checks it). spawn_sites fedlost STOPFILE name: the lookup at the other sites under
 * MPI_ERRORS_ARE_FATAL (the report says why). */
#include "../check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BIG = 1 << 20 };

static void fill(int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = seed * 7919 + i;
}

static void check_fill(const int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        CHECK(b[i] == seed * 7919 + i);
}

/* Both sides of the same exchanges; parent: this process is a parent. rank is its rank in
 * its own group, remote the other group's size. */
static void exchange(MPI_Comm inter, int parent, int rank, int remote)
{
    int n = BIG / (int)sizeof(int);
    int *big = malloc(BIG), *in = malloc(BIG);
    CHECK(big && in);
    for (int peer = 0; peer < remote; peer++) {
        /* parents send first, children receive first: no two sends wait on each other */
        int me = parent ? rank : 1000 + rank, them = parent ? 1000 + peer : peer;
        for (int round = 0; round < 2; round++) {
            int sending = (round == 0) == parent;
            if (sending) {
                CHECK_RC(MPI_Send(&me, 1, MPI_INT, peer, 1, inter), MPI_SUCCESS);
                fill(big, n, me);
                CHECK_RC(MPI_Send(big, n, MPI_INT, peer, 2, inter), MPI_SUCCESS);
            } else {
                int v = -1;
                CHECK_RC(MPI_Recv(&v, 1, MPI_INT, peer, 1, inter, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
                CHECK(v == them);
                memset(in, 0, BIG);
                CHECK_RC(MPI_Recv(in, n, MPI_INT, peer, 2, inter, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
                check_fill(in, n, them);
            }
        }
    }
    free(big);
    free(in);
    /* a collective from the parents' root to the children, and an allreduce both ways */
    int token = parent ? -1 : 0;
    if (parent)
        token = 4242;
    int root = parent ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    CHECK_RC(MPI_Bcast(&token, 1, MPI_INT, root, inter), MPI_SUCCESS);
    CHECK(token == 4242);
    int one = 1, sum = 0;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter), MPI_SUCCESS);
    CHECK(sum == remote);
}

static void merged(MPI_Comm inter, int high, int total)
{
    MPI_Comm all;
    CHECK_RC(MPI_Intercomm_merge(inter, high, &all), MPI_SUCCESS);
    int size, rank, sum = 0;
    MPI_Comm_size(all, &size);
    MPI_Comm_rank(all, &rank);
    CHECK(size == total);
    CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, all), MPI_SUCCESS);
    CHECK(sum == total * (total - 1) / 2);
    CHECK_RC(MPI_Comm_free(&all), MPI_SUCCESS);
}

static void child(const char *want)
{
    MPI_Comm inter;
    char where[MPI_MAX_PROCESSOR_NAME];
    int len, rank, size, nparents;
    MPI_Comm_get_parent(&inter);
    CHECK(inter != MPI_COMM_NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_remote_size(inter, &nparents);
    MPI_Get_processor_name(where, &len);
    if (strcmp(where, want) != 0)
        fprintf(stderr, "child %d runs on '%s', not on '%s'\n", rank, where, want);
    CHECK(strcmp(where, want) == 0);
    /* the children's world spans both sites */
    int sum = 0;
    CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(sum == size * (size - 1) / 2);
    exchange(inter, 0, rank, nparents);
    merged(inter, 1, size + nparents);
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
}

static void no_gateway(char *self, int fatal)
{
    char name[MPI_MAX_PROCESSOR_NAME], *at;
    int len, code = 0;
    MPI_Get_processor_name(name, &len);
    CHECK((at = strstr(name, "s1h1")) != NULL);
    at[1] = '2';
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", name);
    if (!fatal)   /* fatal: the handler's report names the reason (the test checks it) */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm inter = MPI_COMM_NULL;
    char *args[] = { "child", name, NULL };
    int rc = MPI_Comm_spawn(self, args, 1, info, 0, MPI_COMM_WORLD, &inter, &code);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN);
    CHECK(code == MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL);
    MPI_Info_free(&info);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("refused with MPI_ERR_SPAWN\n");
}

/* One spawn by root of nchild children on the host of world rank at (of each of two
 * commands when two: spawn_multiple); then everything. */
static void fed_spawn(char *self, const char *names, int root, int at, int nchild, int two)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *host = names + (size_t)at * MPI_MAX_PROCESSOR_NAME;
    MPI_Info info[2];
    MPI_Info_create(&info[0]);
    MPI_Info_set(info[0], "host", host);
    MPI_Info_create(&info[1]);
    MPI_Info_set(info[1], "host", host);
    char *args[] = { "child", (char *)host, NULL };
    char *cmds[2] = { self, self }, **argvs[2] = { args, args };
    int np[2] = { 1, nchild }, total = two ? 1 + nchild : nchild;
    int *codes = malloc((size_t)total * sizeof *codes);
    CHECK(codes);
    MPI_Comm inter;
    if (two)
        CHECK_RC(MPI_Comm_spawn_multiple(2, cmds, argvs, np, info, root, MPI_COMM_WORLD, &inter,
                                         codes), MPI_SUCCESS);
    else
        CHECK_RC(MPI_Comm_spawn(self, args, nchild, info[0], root, MPI_COMM_WORLD, &inter,
                                codes), MPI_SUCCESS);
    for (int c = 0; rank == root && c < total; c++)
        CHECK(codes[c] == MPI_SUCCESS);
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    CHECK(remote == total);
    exchange(inter, 1, rank, remote);
    merged(inter, 0, size + remote);
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    MPI_Info_free(&info[0]);
    MPI_Info_free(&info[1]);
    free(codes);
}

/* Refused at every rank: what says 'spawn' (commands at two sites: first's and other's),
 * 'nohost' (one command at the other site, one without host, which would start here) or
 * 'nocmd' (a command the other site cannot execute). */
static void fed_refusals(char *self, const char *first, const char *other, int fatal,
                         const char *what)
{
    if (!fatal)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls = -1, codes[2] = { 0, 0 };
    MPI_Info info[2];
    MPI_Info_create(&info[0]);
    if (strcmp(what, "nohost") != 0)
        MPI_Info_set(info[0], "host", first);
    MPI_Info_create(&info[1]);
    MPI_Info_set(info[1], "host", other);
    MPI_Comm inter = MPI_COMM_NULL;
    char *args[] = { "child", (char *)other, NULL };
    if (strcmp(what, "nocmd") == 0) {
        MPI_Error_class(MPI_Comm_spawn("metampi-no-such-command", args, 1, info[1], 0,
                                       MPI_COMM_WORLD, &inter, codes), &cls);
    } else {
        char *cmds[2] = { self, self }, **argvs[2] = { args, args };
        int np[2] = { 1, 1 };
        MPI_Error_class(MPI_Comm_spawn_multiple(2, cmds, argvs, np, info, 0, MPI_COMM_WORLD,
                                                &inter, codes), &cls);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    CHECK(rank != 0 || codes[0] == MPI_ERR_SPAWN);   /* significant at the root only */
    MPI_Info_free(&info[0]);
    MPI_Info_free(&info[1]);
}

static void federated(char *self, int nchild, const char *why)
{
    int rank, size, len;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME), mine[MPI_MAX_PROCESSOR_NAME];
    CHECK(names);
    MPI_Get_processor_name(mine, &len);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    const char *last = names + (size_t)(size - 1) * MPI_MAX_PROCESSOR_NAME;
    if (why) {   /* the job ends with the reason */
        fed_refusals(self, names, last, 1, why);
        free(names);
        return;
    }
    fed_refusals(self, names, last, 0, "spawn");
    fed_refusals(self, names, last, 0, "nohost");
    fed_refusals(self, names, last, 0, "nocmd");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    fed_spawn(self, names, 0, 0, nchild, 0);
    fed_spawn(self, names, 0, size - 1, nchild, 0);
    fed_spawn(self, names, size - 1, size - 1, nchild, 0);
    fed_spawn(self, names, size - 1, 0, nchild, 0);
    fed_spawn(self, names, 0, size - 1, nchild, 1);
    if (rank == 0)
        printf("federated: parents on %d ranks spawned %d children at each site from each, "
               "and %d by spawn_multiple at the other site, all reached\n", size, nchild,
               1 + nchild);
    free(names);
}

static void fed_lost(char *self, const char *stopfile, int name_fatal)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        FILE *f = fopen(stopfile, "w");
        CHECK(f != NULL);
        if (f)
            fclose(f);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char *args[] = { "lostchild", NULL };
    int refused = 0;
    for (int tries = 0; tries < 60 && !refused; tries++) {
        sleep(1);
        MPI_Comm inter = MPI_COMM_NULL;
        int code = 0, cls = -1;
        int rc = MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, &code);
        if (rc == MPI_SUCCESS) {   /* the server was still there */
            CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
            continue;
        }
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
        refused = 1;
    }
    CHECK(refused);
    /* names and ports: kept by the first site's mpirun, which the others cannot reach now */
    const char *sizes = getenv("EXPECT_SITE_SIZES");
    int first_site = sizes ? atoi(sizes) : 1, cls = -1;
    char port[MPI_MAX_PORT_NAME];
    if (name_fatal && rank >= first_site)   /* the report says why (the test checks it) */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Error_class(MPI_Lookup_name("metampi-fedlost", MPI_INFO_NULL, port), &cls);
    CHECK(cls == (rank < first_site ? MPI_ERR_NAME : MPI_ERR_OTHER));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm inter;
    MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                   MPI_ERRCODES_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc >= 3 && strcmp(argv[1], "fedlost") == 0) {
        fed_lost(argv[0], argv[2], argc >= 4 && strcmp(argv[3], "name") == 0);
        MPI_Finalize();
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "lostchild") == 0) {
        MPI_Comm parent;
        MPI_Comm_get_parent(&parent);
        CHECK(parent != MPI_COMM_NULL);
        CHECK_RC(MPI_Comm_disconnect(&parent), MPI_SUCCESS);
        MPI_Finalize();
        return 0;
    }
    if (argc >= 2 && (strcmp(argv[1], "fed") == 0 || strcmp(argv[1], "fedwhy") == 0)) {
        int why = strcmp(argv[1], "fedwhy") == 0;
        federated(argv[0], !why && argc >= 3 ? atoi(argv[2]) : 2,
                  why ? (argc >= 3 ? argv[2] : "spawn") : NULL);
        MPI_Finalize();
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "nogw") == 0) {
        no_gateway(argv[0], argc >= 3 && strcmp(argv[2], "why") == 0);
        MPI_Finalize();
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "child") == 0) {
        child(argv[2]);
        MPI_Finalize();
        return 0;
    }
    int nchild = argc >= 2 ? atoi(argv[1]) : 2;
    CHECK(nchild >= 1 && nchild <= 16);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME), mine[MPI_MAX_PROCESSOR_NAME];
    int len;
    CHECK(names);
    MPI_Get_processor_name(mine, &len);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    char *first = names, *last = names + (size_t)(size - 1) * MPI_MAX_PROCESSOR_NAME;
    char *cmds[2] = { argv[0], argv[0] };
    char *args0[] = { "child", first, NULL }, *args1[] = { "child", last, NULL };
    char **args[2] = { args0, args1 };
    int np[2] = { 1, nchild };
    MPI_Info info[2];
    MPI_Info_create(&info[0]);
    MPI_Info_set(info[0], "host", first);
    MPI_Info_create(&info[1]);
    MPI_Info_set(info[1], "host", last);
    int *codes = malloc((size_t)(1 + nchild) * sizeof *codes);
    CHECK(codes);
    MPI_Comm inter;
    CHECK_RC(MPI_Comm_spawn_multiple(2, cmds, args, np, info, 0, MPI_COMM_WORLD, &inter, codes),
             MPI_SUCCESS);
    for (int c = 0; c < 1 + nchild; c++)
        CHECK(codes[c] == MPI_SUCCESS);
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    CHECK(remote == 1 + nchild);
    exchange(inter, 1, rank, remote);
    merged(inter, 0, size + remote);
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    MPI_Info_free(&info[0]);
    MPI_Info_free(&info[1]);
    free(codes);
    free(names);
    if (rank == 0)
        printf("parents on %d ranks: %d children at the first and last sites, all reached\n",
               size, 1 + nchild);
    MPI_Finalize();
    return 0;
}
