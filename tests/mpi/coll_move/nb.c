/* Nonblocking data-movement collectives in flight together on one communicator and on a
 * duplicate, interleaved with point-to-point traffic on the same communicator (whose tags
 * they must never match), completed by MPI_Test polling, MPI_Waitany and MPI_Waitall; the
 * datatypes are freed while the operations run. */
#include "common.h"

enum { B = 40, NOPS = 8 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD, dup;
    MPI_Comm_dup(comm, &dup);
    int me = rank_of(comm), n = size_of(comm);
    for (int iter = 0; iter < 20; iter++) {
        MPI_Datatype t;
        MPI_Type_contiguous(2, MPI_INT, &t); /* B ints = B / 2 elements */
        MPI_Type_commit(&t);
        int *bc = malloc(B * sizeof(int)), *ag_s = malloc(B * sizeof(int));
        size_t nb = (size_t)n * B * sizeof(int);
        int *ag_r = malloc(nb), *a2a_s = malloc(nb), *a2a_r = malloc(nb), *g_r = malloc(nb);
        int *sc_s = malloc(nb), *sc_r = malloc(B * sizeof(int));
        int *bc2 = malloc(B * sizeof(int));
        int root = iter % n;
        for (int i = 0; i < B; i++) {
            bc[i] = me == root ? val(root, 0, i, iter) : -1;
            bc2[i] = me == (root + 1) % n ? val(root, 9, i, iter) : -1;
            ag_s[i] = val(me, 1, i, iter);
            for (int j = 0; j < n; j++) {
                a2a_s[j * B + i] = val(me, j, i, iter);
                sc_s[j * B + i] = val(root, j, i, iter);
            }
        }
        /* point-to-point around a ring, tags that the collectives' internal tags could be */
        int ptx[4] = { me, iter, 0, 1 }, prx[4] = { -1, -1, -1, -1 };
        MPI_Request req[NOPS + 2];
        MPI_Irecv(prx, 4, MPI_INT, (me - 1 + n) % n, 0, comm, &req[NOPS]);
        MPI_Ibcast(bc, B / 2, t, root, comm, &req[0]);
        MPI_Iallgather(ag_s, B / 2, t, ag_r, B, MPI_INT, comm, &req[1]);
        MPI_Ialltoall(a2a_s, B, MPI_INT, a2a_r, B / 2, t, comm, &req[2]);
        MPI_Igather(ag_s, B, MPI_INT, g_r, B / 2, t, root, comm, &req[3]);
        MPI_Iscatter(sc_s, B / 2, t, sc_r, B, MPI_INT, root, comm, &req[4]);
        MPI_Ibcast(bc2, B, MPI_INT, (root + 1) % n, dup, &req[5]);
        MPI_Type_free(&t);
        MPI_Isend(ptx, 4, MPI_INT, (me + 1) % n, 0, comm, &req[NOPS + 1]);
        int *big_s = malloc((size_t)n * 5000 * sizeof(int));
        int *big_r = malloc((size_t)n * 5000 * sizeof(int));
        int *big_r2 = malloc((size_t)n * 5000 * sizeof(int));
        for (int i = 0; i < n * 5000; i++)
            big_s[i] = val(me, 2, i, iter);
        MPI_Iallgather(big_s, 5000, MPI_INT, big_r, 5000, MPI_INT, dup, &req[6]);
        MPI_Ialltoall(big_s, 5000, MPI_INT, big_r2, 5000, MPI_INT, comm, &req[7]);
        int flag = 0;
        while (!flag) /* poll the first broadcast, "computing" meanwhile */
            CHECK_RC(MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
        for (int k = 1; k < NOPS + 2; k += 2) { /* some by Waitany, the rest by Waitall */
            int idx;
            CHECK_RC(MPI_Waitany(NOPS + 2, req, &idx, MPI_STATUS_IGNORE), MPI_SUCCESS);
        }
        CHECK_RC(MPI_Waitall(NOPS + 2, req, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 5000; i++) {
                CHECK(big_r[r * 5000 + i] == val(r, 2, i, iter));
                CHECK(big_r2[r * 5000 + i] == val(r, 2, me * 5000 + i, iter));
            }
        for (int i = 0; i < B; i++) {
            CHECK(bc[i] == val(root, 0, i, iter));
            CHECK(bc2[i] == val(root, 9, i, iter));
            CHECK(sc_r[i] == val(root, me, i, iter));
            for (int r = 0; r < n; r++) {
                CHECK(ag_r[r * B + i] == val(r, 1, i, iter));
                CHECK(a2a_r[r * B + i] == val(r, me, i, iter));
                if (me == root)
                    CHECK(g_r[r * B + i] == val(r, 1, i, iter));
            }
        }
        CHECK(prx[0] == (me - 1 + n) % n && prx[1] == iter);
        free(bc), free(bc2), free(ag_s), free(ag_r), free(a2a_s), free(a2a_r), free(g_r);
        free(sc_s), free(sc_r), free(big_s), free(big_r), free(big_r2);
    }
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
