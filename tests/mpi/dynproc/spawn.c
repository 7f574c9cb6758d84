/* MPI_Comm_spawn (MPI-3.1 §10.3): the parents (mpirun -n P) spawn NCHILD copies of this
 * program (argument "child P") and talk to them over the inter-communicator: point-to-point
 * both ways, a rooted and an all-to-all collective, MPI_Intercomm_merge, then
 * MPI_Comm_disconnect (after which MPI_Comm_get_parent answers MPI_COMM_NULL in the
 * children). A program that does not exist fails with MPI_ERR_SPAWN at every parent, and
 * every error code says so. Usage: spawn NCHILD | spawn refused [UNIVERSE] (a launcher that
 * cannot spawn: MPI_ERR_SPAWN and MPI_ERR_PORT, never a failed job; MPI_UNIVERSE_SIZE is
 * UNIVERSE when given; with a third argument "why", first a spawn under MPI_ERRORS_ARE_FATAL,
 * which ends the job with the reason) */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static void talk(MPI_Comm inter, int parent_side)
{
    int rank, lsize, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    /* point-to-point: local rank 0 of the parents greets every child, which answers */
    if (parent_side && rank == 0) {
        for (int c = 0; c < rsize; c++) {
            int v = 100 + c, back = -1;
            MPI_Send(&v, 1, MPI_INT, c, 7, inter);
            MPI_Recv(&back, 1, MPI_INT, c, 8, inter, MPI_STATUS_IGNORE);
            CHECK(back == 1000 + c);
        }
    } else if (!parent_side) {
        int v = -1;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, 0, 7, inter, &st);
        CHECK(v == 100 + rank && st.MPI_SOURCE == 0);
        int back = 1000 + rank;
        MPI_Send(&back, 1, MPI_INT, 0, 8, inter);
    }
    /* a rooted collective: the parents' rank 0 broadcasts to the children */
    int word = parent_side ? 4242 : 0;
    int root = parent_side ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    CHECK_RC(MPI_Bcast(&word, 1, MPI_INT, root, inter), MPI_SUCCESS);
    CHECK(word == 4242);
    /* all-to-all: each side gets the sum over the other side */
    int mine = parent_side ? 1 : 10, sum = 0;
    CHECK_RC(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter), MPI_SUCCESS);
    CHECK(sum == rsize * (parent_side ? 10 : 1));
    /* merged: the parents first */
    MPI_Comm merged;
    CHECK_RC(MPI_Intercomm_merge(inter, !parent_side, &merged), MPI_SUCCESS);
    int mrank, msize, total = 0;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == lsize + rsize);
    CHECK(parent_side ? mrank == rank : mrank == rsize + rank);
    CHECK_RC(MPI_Allreduce(&mrank, &total, 1, MPI_INT, MPI_SUM, merged), MPI_SUCCESS);
    CHECK(total == msize * (msize - 1) / 2);
    /* groups and splits of members of both parts */
    MPI_Group mg, pg, ug;
    int translated = -1, zero = 0, usize = 0;
    MPI_Comm_group(merged, &mg);
    MPI_Comm_group(inter, &pg);
    MPI_Group_translate_ranks(pg, 1, &zero, mg, &translated);
    CHECK(translated == (parent_side ? 0 : rsize));
    MPI_Group_union(mg, pg, &ug);
    MPI_Group_size(ug, &usize);
    CHECK(usize == msize);
    MPI_Group_free(&ug);
    MPI_Group_free(&pg);
    MPI_Group_free(&mg);
    MPI_Comm odd;
    int osize = 0, ototal = 0;
    CHECK_RC(MPI_Comm_split(merged, mrank % 2, -mrank, &odd), MPI_SUCCESS);
    MPI_Comm_size(odd, &osize);
    CHECK(osize == (msize + (mrank % 2 ? 0 : 1)) / 2);
    CHECK_RC(MPI_Allreduce(&mrank, &ototal, 1, MPI_INT, MPI_MAX, odd), MPI_SUCCESS);
    CHECK(ototal % 2 == mrank % 2);
    MPI_Comm_free(&odd);
    MPI_Comm_free(&merged);
    /* equal high values: the order is ours to choose, but the same on both sides */
    int first_rank = -1, nfirst = 0;
    CHECK_RC(MPI_Intercomm_merge(inter, 0, &merged), MPI_SUCCESS);
    MPI_Comm_rank(merged, &mrank);
    nfirst = mrank < (parent_side ? lsize : rsize) ? 1 : 0;
    CHECK_RC(MPI_Allreduce(&mrank, &first_rank, 1, MPI_INT, MPI_MIN, merged), MPI_SUCCESS);
    CHECK(first_rank == 0);
    (void)nfirst;
    MPI_Group own;
    MPI_Comm local;
    MPI_Comm_group(inter, &own);   /* each side its own group: disjoint groups (MPI-2.2) */
    CHECK_RC(MPI_Comm_create(merged, own, &local), MPI_SUCCESS);
    int lcount = 0;
    MPI_Comm_size(local, &lcount);
    CHECK(lcount == lsize);
    MPI_Comm_free(&local);
    MPI_Group_free(&own);
    MPI_Comm_free(&merged);
}

static void parent(int nchild, const char *self)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *flagp = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flagp, &flag);
    CHECK(flag && *flagp >= size);
    MPI_Comm parent_comm;
    MPI_Comm_get_parent(&parent_comm);
    CHECK(parent_comm == MPI_COMM_NULL);

    char psize[16];
    snprintf(psize, sizeof psize, "%d", size);
    char *args[] = { "child", psize, NULL };
    int *codes = malloc((size_t)nchild * sizeof *codes);
    CHECK(codes);
    for (int i = 0; i < nchild; i++)
        codes[i] = -1;
    MPI_Comm inter;
    CHECK_RC(MPI_Comm_spawn(self, args, nchild, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes),
             MPI_SUCCESS);
    for (int i = 0; i < nchild; i++)
        CHECK(codes[i] == MPI_SUCCESS);
    int flag_inter = 0, rsize = 0;
    MPI_Comm_test_inter(inter, &flag_inter);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(flag_inter && rsize == nchild);
    talk(inter, 1);
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    CHECK(inter == MPI_COMM_NULL);

    /* a command that does not exist: an error at every parent, not a hang */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < nchild; i++)
        codes[i] = -1;
    int rc = MPI_Comm_spawn("/nonexistent/metampi-spawned", MPI_ARGV_NULL, nchild, MPI_INFO_NULL,
                            size - 1, MPI_COMM_WORLD, &inter, codes);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    if (rank == size - 1)
        for (int i = 0; i < nchild; i++)
            CHECK(codes[i] == MPI_ERR_SPAWN);
    /* bad maxprocs at root: an error at every member too */
    rc = MPI_Comm_spawn(self, MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                        MPI_ERRCODES_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG && inter == MPI_COMM_NULL);
    free(codes);
    if (rank == 0)
        printf("parents: %d children spawned and disconnected\n", nchild);
}

static void child(int nparents)
{
    MPI_Comm inter;
    MPI_Comm_get_parent(&inter);
    CHECK(inter != MPI_COMM_NULL);
    int rsize = 0, *appnum = NULL, flag = 0;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == nparents);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    CHECK(flag && *appnum == 0);
    talk(inter, 0);
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    MPI_Comm_get_parent(&inter);
    CHECK(inter == MPI_COMM_NULL);
}

static void spawn_on_host(const char *self, int universe)
{
    int *flagp = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flagp, &flag);
    CHECK(flag && (universe <= 0 || *flagp == universe));
    int rank, size, len;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char target[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(target, &len);
    MPI_Bcast(target, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, size - 1, MPI_COMM_WORLD);
    char psize[16];
    snprintf(psize, sizeof psize, "%d", size);
    char *args[] = { "child", psize, "host", NULL };
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", target);
    MPI_Comm inter;
    CHECK_RC(MPI_Comm_spawn(self, args, 2, info, 0, MPI_COMM_WORLD, &inter,
                            MPI_ERRCODES_IGNORE), MPI_SUCCESS);
    if (rank == 0)
        for (int c = 0; c < 2; c++) {
            char where[MPI_MAX_PROCESSOR_NAME] = "";
            MPI_Recv(where, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, c, 9, inter, MPI_STATUS_IGNORE);
            if (strcmp(where, target) != 0)
                fprintf(stderr, "child %d runs on '%s', not on '%s'\n", c, where, target);
            CHECK(strcmp(where, target) == 0);
        }
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    /* a host that is not the job's: an error at every parent, nothing started */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Info_set(info, "host", "no-such-host.invalid");
    int codes[2] = { -1, -1 }, cls = -1;
    MPI_Error_class(MPI_Comm_spawn(self, args, 2, info, 0, MPI_COMM_WORLD, &inter, codes),
                    &cls);
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    CHECK(rank != 0 || (codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN));
    MPI_Info_free(&info);
    if (rank == 0)
        printf("parents: 2 children spawned on host %s\n", target);
}

static void refused(const char *self, int universe, int fatal)
{
    int *flagp = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flagp, &flag);
    CHECK(flag && (universe <= 0 || *flagp == universe));
    MPI_Comm inter;
    if (fatal)   /* the job ends with the reason */
        MPI_Comm_spawn(self, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int codes[2] = { -1, -1 }, cls = -1;
    MPI_Error_class(MPI_Comm_spawn(self, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                                   &inter, codes), &cls);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    CHECK(rank != 0 || (codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN));
    char port[MPI_MAX_PORT_NAME];
    MPI_Error_class(MPI_Open_port(MPI_INFO_NULL, port), &cls);
    CHECK(cls == MPI_ERR_PORT);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc >= 2 && strcmp(argv[1], "refused") == 0) {
        refused(argv[0], argc >= 3 ? atoi(argv[2]) : 0, argc >= 4 && !strcmp(argv[3], "why"));
    } else if (argc >= 2 && strcmp(argv[1], "host") == 0) {
        spawn_on_host(argv[0], argc >= 3 ? atoi(argv[2]) : 0);
    } else if (argc >= 2 && strcmp(argv[1], "die") == 0) {
        char *args[] = { "child", "0", "die", NULL };
        MPI_Comm inter;
        int v;
        MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);   /* never sent */
    } else if (argc >= 4 && strcmp(argv[1], "child") == 0 && strcmp(argv[3], "die") == 0) {
        exit(5);
    } else if (argc >= 4 && strcmp(argv[1], "child") == 0 && strcmp(argv[3], "host") == 0) {
        MPI_Comm inter;
        char where[MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_Comm_get_parent(&inter);
        MPI_Get_processor_name(where, &len);
        MPI_Send(where, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 9, inter);
        CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    } else if (argc >= 3 && strcmp(argv[1], "child") == 0) {
        child(atoi(argv[2]));
    } else {
        parent(argc >= 2 ? atoi(argv[1]) : 2, argv[0]);
    }
    MPI_Finalize();
    return 0;
}
