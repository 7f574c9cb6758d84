/* Several nonblocking neighbourhood collectives outstanding at once (MPI-3.1 §5.12, §7.7):
 * twelve MPI_Ineighbor_alltoall(v) on three communicators (a periodic ring, whose extent-1
 * and extent-2 cases make a process both neighbours, a 2-D torus and a distributed graph with
 * repeated edges), small and large (rendezvous) blocks, contiguous and derived types, started
 * in one order with user point-to-point traffic and blocking neighbourhood collectives on
 * the same communicators in between, and completed in another order (Waitall on a reversed
 * array, Test polling, Waitany). The derived type and a duplicated communicator are freed
 * while operations on them are pending. Blocks are checked as in nbr.h. */
#include "nbr.h"

enum { NJOBS = 12, LARGE = 20000 };

typedef struct job {
    nbr_t n;
    int count, salt, skind, rkind;
    MPI_Datatype stype;
    int *sb, *rb, rlen;
    MPI_Request req;
} job_t;

static int rank, size;

static int jval(const job_t *j, int sender, int key, int e)
{
    return nbr_val(sender, key + 4096 * j->salt, e);
}

static void job_start(job_t *j, MPI_Comm comm, int count, int salt, int skind, int rkind,
                      MPI_Datatype stype)
{
    nbr_init(&j->n, comm);
    j->count = count;
    j->salt = salt;
    j->skind = skind;
    j->rkind = rkind;
    j->stype = stype;
    int slen = j->n.outdeg * count * 2 + 1;
    j->rlen = j->n.indeg * count * 2 + 1;
    j->sb = nbr_ints(slen);
    j->rb = nbr_ints(j->rlen);
    nbr_fill(j->sb, slen, SEND_FILL);
    for (int k = 0; k < j->n.outdeg; k++)
        for (int e = 0; e < count; e++)
            j->sb[(k * count + e) * nbr_stride(skind)] = jval(j, rank, nbr_skey(&j->n, k), e);
    nbr_fill(j->rb, j->rlen, SENTINEL);
    CHECK_RC(MPI_Ineighbor_alltoall(j->sb, count, stype, j->rb, count, nbr_type(rkind), comm,
                                    &j->req), MPI_SUCCESS);
    CHECK(j->req != MPI_REQUEST_NULL);
}

static void job_check(job_t *j)
{
    CHECK(j->req == MPI_REQUEST_NULL);
    int *want = nbr_ints(j->rlen);
    nbr_fill(want, j->rlen, SENTINEL);
    for (int l = 0; l < j->n.indeg; l++) {
        if (j->n.srcs[l] == MPI_PROC_NULL)
            continue;
        for (int e = 0; e < j->count; e++) {
            int i = (l * j->count + e) * nbr_stride(j->rkind);
            want[i] = nbr_checked(&j->n, l) ? jval(j, j->n.srcs[l], nbr_rkey(&j->n, l), e)
                                             : j->rb[i];
        }
    }
    nbr_compare("Ineighbor_alltoall (outstanding)", &j->n, j->rb, want, j->rlen);
    free(want);
    free(j->sb);
    free(j->rb);
    nbr_free(&j->n);
}

/* user traffic on comm: every process sends its rank around the ring (tag 7) */
static void ring_traffic(MPI_Comm comm)
{
    int r, n, got = -1;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    CHECK_RC(MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % n, 7, &got, 1, MPI_INT, (r + n - 1) % n, 7,
                          comm, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(got == (r + n - 1) % n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nbr_types();

    MPI_Comm comms[3], ring_dup;
    int yes = 1, d2[2] = { 0, 0 }, per2[2] = { 1, 1 };
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &yes, 0, &comms[0]), MPI_SUCCESS);
    MPI_Dims_create(size, 2, d2);
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, d2, per2, 0, &comms[1]), MPI_SUCCESS);
    int dst[3] = { (rank + 1) % size, (rank + 1) % size, (rank + size - 1) % size };
    int src[3] = { (rank + size - 1) % size, (rank + size - 1) % size, (rank + 1) % size };
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, src, MPI_UNWEIGHTED, 3, dst,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comms[2]),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_dup(comms[0], &ring_dup), MPI_SUCCESS);

    /* a strided type the program frees while operations using it are pending */
    MPI_Datatype mine;
    CHECK_RC(MPI_Type_dup(nbr_strided, &mine), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&mine), MPI_SUCCESS);

    job_t jobs[NJOBS];
    for (int i = 0; i < NJOBS; i++) {
        int large = i % 4 == 3, skind = i % 3 == 1, rkind = i % 3 == 2;
        MPI_Comm c = i == 5 ? ring_dup : comms[i % 3];
        MPI_Datatype st = skind ? (i == 4 ? mine : nbr_strided) : MPI_INT;
        job_start(&jobs[i], c, large ? LARGE : 1 + i % 3, i, skind, rkind, st);
        if (i == 4)
            CHECK_RC(MPI_Type_free(&mine), MPI_SUCCESS);
        if (i == 5)
            CHECK_RC(MPI_Comm_free(&ring_dup), MPI_SUCCESS);
        ring_traffic(comms[i % 3]);
        if (i == 6)
            nbr_check_all(comms[1]); /* blocking ones while the others are pending */
    }

    /* complete: the first four by polling, the next four by Waitany, the rest by Waitall in
     * reverse order */
    for (int done = 0; done < 4;) {
        done = 0;
        for (int i = 0; i < 4; i++) {
            int flag = 0;
            if (jobs[i].req != MPI_REQUEST_NULL)
                CHECK_RC(MPI_Test(&jobs[i].req, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
            done += jobs[i].req == MPI_REQUEST_NULL;
        }
    }
    MPI_Request any[4];
    for (int i = 0; i < 4; i++)
        any[i] = jobs[4 + i].req;
    for (int i = 0; i < 4; i++) {
        int idx = -1;
        CHECK_RC(MPI_Waitany(4, any, &idx, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(idx >= 0 && idx < 4);
        jobs[4 + idx].req = MPI_REQUEST_NULL;
    }
    MPI_Request rev[NJOBS - 8];
    for (int i = 8; i < NJOBS; i++)
        rev[NJOBS - 1 - i] = jobs[i].req;
    CHECK_RC(MPI_Waitall(NJOBS - 8, rev, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int i = 8; i < NJOBS; i++)
        jobs[i].req = rev[NJOBS - 1 - i];
    for (int i = 0; i < NJOBS; i++)
        job_check(&jobs[i]);

    for (int i = 0; i < 3; i++)
        MPI_Comm_free(&comms[i]);
    nbr_types_free();
    MPI_Finalize();
    return 0;
}
