/* MPI_Waitsome and MPI_Testsome: every rank receives K messages from every rank (itself
 * included) into an array of requests with MPI_REQUEST_NULL holes; each index is reported
 * exactly once, completed entries become MPI_REQUEST_NULL, statuses match; an array of only
 * null requests gives outcount MPI_UNDEFINED; Testsome with nothing complete gives 0;
 * MPI_STATUSES_IGNORE. */
#include "p2p.h"

enum { K = 6, T_WS = 40, T_TS = 41, T_NONE = 42 };

static int value(int from, int to, int k, int tag) { return (from * 1000 + to) * 64 + k + tag; }

/* Receives K messages from each rank with tag, completing them with Waitsome (testsome=0)
 * or by polling Testsome; ignore_status uses MPI_STATUSES_IGNORE. */
static void round_trip(int tag, int testsome, int ignore_status)
{
    int size = p2p_size, rank = p2p_rank;
    int n = 2 * K * size; /* every second entry is MPI_REQUEST_NULL */
    MPI_Request *rq = malloc(sizeof *rq * (size_t)n), *sq = malloc(sizeof *sq * (size_t)(K * size));
    MPI_Status *st = malloc(sizeof *st * (size_t)n);
    int *idx = malloc(sizeof(int) * (size_t)n), *rv = malloc(sizeof(int) * (size_t)n);
    int *sv = malloc(sizeof(int) * (size_t)(K * size));
    unsigned char *done = calloc((size_t)n, 1);
    CHECK(rq && sq && st && idx && rv && sv && done);
    for (int i = 0; i < n; i++) {
        rv[i] = -1;
        rq[i] = MPI_REQUEST_NULL;
        if (i % 2) { /* entry i receives message k = (i/2) % K of rank (i/2) / K */
            int src = i / 2 / K;
            CHECK_RC(MPI_Irecv(&rv[i], 1, MPI_INT, src, tag, MPI_COMM_WORLD, &rq[i]), MPI_SUCCESS);
        }
    }
    for (int d = 0; d < size; d++)
        for (int k = 0; k < K; k++) {
            sv[d * K + k] = value(rank, d, k, tag);
            CHECK_RC(MPI_Isend(&sv[d * K + k], 1, MPI_INT, d, tag, MPI_COMM_WORLD, &sq[d * K + k]),
                     MPI_SUCCESS);
        }
    int left = K * size, out;
    while (left > 0) {
        out = -5;
        if (testsome)
            CHECK_RC(MPI_Testsome(n, rq, &out, idx, ignore_status ? MPI_STATUSES_IGNORE : st),
                     MPI_SUCCESS);
        else
            CHECK_RC(MPI_Waitsome(n, rq, &out, idx, ignore_status ? MPI_STATUSES_IGNORE : st),
                     MPI_SUCCESS);
        CHECK(out >= (testsome ? 0 : 1) && out <= left);
        for (int j = 0; j < out; j++) {
            int i = idx[j], src = i / 2 / K, k = (i / 2) % K;
            CHECK(i >= 0 && i < n && i % 2 == 1 && !done[i] && rq[i] == MPI_REQUEST_NULL);
            done[i] = 1;
            /* messages of one sender with one tag fill the receives in posting order */
            CHECK(rv[i] == value(src, rank, k, tag));
            if (!ignore_status)
                CHECK(st[j].MPI_SOURCE == src && st[j].MPI_TAG == tag);
        }
        left -= out;
    }
    out = 0;
    CHECK_RC(MPI_Waitsome(n, rq, &out, idx, st), MPI_SUCCESS);
    CHECK(out == MPI_UNDEFINED);
    out = 0;
    CHECK_RC(MPI_Testsome(n, rq, &out, idx, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(out == MPI_UNDEFINED);
    /* the sends, by Waitsome with statuses ignored */
    left = K * size;
    while (left > 0) {
        CHECK_RC(MPI_Waitsome(K * size, sq, &out, idx, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        CHECK(out >= 1 && out <= left);
        left -= out;
    }
    CHECK_RC(MPI_Waitsome(K * size, sq, &out, idx, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(out == MPI_UNDEFINED);
    free(rq), free(sq), free(st), free(idx), free(rv), free(sv), free(done);
}

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    round_trip(T_WS, 0, 0);
    round_trip(T_WS + 10, 0, 1);
    round_trip(T_TS, 1, 0);
    round_trip(T_TS + 10, 1, 1);

    /* Testsome with nothing complete: outcount 0, requests left alone; then completion */
    int x = -1, y = 99, out = -1, idx[3];
    MPI_Request rq[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[3];
    CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, p2p_rank, T_NONE, MPI_COMM_WORLD, &rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Testsome(3, rq, &out, idx, st), MPI_SUCCESS);
    CHECK(out == 0 && rq[1] != MPI_REQUEST_NULL);
    CHECK_RC(MPI_Send(&y, 1, MPI_INT, p2p_rank, T_NONE, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Waitsome(3, rq, &out, idx, st), MPI_SUCCESS);
    CHECK(out == 1 && idx[0] == 1 && rq[1] == MPI_REQUEST_NULL && x == 99);
    CHECK(st[0].MPI_SOURCE == p2p_rank && st[0].MPI_TAG == T_NONE);
    /* count 0 */
    CHECK_RC(MPI_Waitsome(0, rq, &out, idx, st), MPI_SUCCESS);
    CHECK(out == MPI_UNDEFINED);
    p2p_finish("waitsome");
    return 0;
}
