/* Wildcard receives racing with specific ones. Every rank (rank 0 included, to itself) sends
 * M numbered messages with one tag to rank 0, which has posted a shuffled mix of
 * MPI_ANY_SOURCE and specific-source MPI_Irecvs: once before the messages are sent (round A:
 * rank 0 says "go" after posting) and once after they have all been sent (round B: the
 * messages wait as unexpected ones). Per sender, the receives that got its messages, taken in
 * posting order, hold increasing sequence numbers (a message goes to the earliest posted
 * matching receive; a receive takes the earliest matching message); every message arrives
 * exactly once. At most M - A specific receives per sender (A = number of wildcard ones)
 * guarantees all posted receives can complete; the rest is collected with MPI_ANY_SOURCE. */
#include "p2p.h"

enum { M = 24, A = 12, KS = 12, T_GO = 130, T_DONE = 131 };

static unsigned lcg = 12345;
static unsigned rnd(void) { return lcg = lcg * 1103515245u + 12345u, (lcg >> 16) & 0x7fff; }

static void round_(int tag, int preposted)
{
    int rank = p2p_rank, size = p2p_size;
    int msgs[M][2];
    MPI_Request sq[M];
    for (int i = 0; i < M; i++)
        msgs[i][0] = rank, msgs[i][1] = i;

    int npost = KS * size + A, total = M * size;
    int *src = malloc(sizeof(int) * (size_t)total), (*rv)[2] = malloc(sizeof(int[2]) * (size_t)total);
    MPI_Request *rq = malloc(sizeof *rq * (size_t)npost);
    MPI_Status *st = malloc(sizeof *st * (size_t)total);
    CHECK(src && rv && rq && st);

    if (rank == 0) {
        /* the posting order: KS specific receives per sender and A wildcards, shuffled */
        for (int j = 0; j < npost; j++)
            src[j] = j < A ? MPI_ANY_SOURCE : (j - A) / KS;
        for (int j = npost - 1; j > 0; j--) {
            int k = (int)(rnd() % (unsigned)(j + 1)), t = src[j];
            src[j] = src[k], src[k] = t;
        }
        if (!preposted) { /* wait until every sender has sent all (rank 0 itself first) */
            for (int i = 0; i < M; i++)
                CHECK_RC(MPI_Isend(msgs[i], 2, MPI_INT, 0, tag, MPI_COMM_WORLD, &sq[i]),
                         MPI_SUCCESS);
            for (int s = 1; s < size; s++)
                CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, s, T_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
        }
        for (int j = 0; j < npost; j++) {
            rv[j][0] = rv[j][1] = -1;
            CHECK_RC(MPI_Irecv(rv[j], 2, MPI_INT, src[j], tag, MPI_COMM_WORLD, &rq[j]),
                     MPI_SUCCESS);
        }
        if (preposted) {
            for (int s = 1; s < size; s++)
                CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, s, T_GO, MPI_COMM_WORLD), MPI_SUCCESS);
            for (int i = 0; i < M; i++)
                CHECK_RC(MPI_Isend(msgs[i], 2, MPI_INT, 0, tag, MPI_COMM_WORLD, &sq[i]),
                         MPI_SUCCESS);
        }
        CHECK_RC(MPI_Waitall(npost, rq, st), MPI_SUCCESS);
        for (int j = npost; j < total; j++) {
            src[j] = MPI_ANY_SOURCE;
            CHECK_RC(MPI_Recv(rv[j], 2, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st[j]),
                     MPI_SUCCESS);
        }
        int *last = malloc(sizeof(int) * (size_t)size), *cnt = calloc((size_t)size, sizeof(int));
        for (int s = 0; s < size; s++)
            last[s] = -1;
        for (int j = 0; j < total; j++) {
            int s = st[j].MPI_SOURCE;
            CHECK(s >= 0 && s < size && st[j].MPI_TAG == tag);
            CHECK(src[j] == MPI_ANY_SOURCE || src[j] == s);
            CHECK(rv[j][0] == s && rv[j][1] > last[s] && rv[j][1] < M);
            last[s] = rv[j][1];
            cnt[s]++;
        }
        for (int s = 0; s < size; s++)
            CHECK(cnt[s] == M && last[s] == M - 1);
        free(last);
        free(cnt);
    } else {
        if (preposted)
            CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, T_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
        for (int i = 0; i < M; i++)
            CHECK_RC(MPI_Isend(msgs[i], 2, MPI_INT, 0, tag, MPI_COMM_WORLD, &sq[i]), MPI_SUCCESS);
        if (!preposted)
            CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 0, T_DONE, MPI_COMM_WORLD), MPI_SUCCESS);
    }
    CHECK_RC(MPI_Waitall(M, sq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    free(src), free(rv), free(rq), free(st);
}

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    for (int r = 0; r < 4; r++) {
        round_(140 + r, r % 2 == 0);
        p2p_barrier();
    }

    /* equal envelopes: receives posted in order A (wildcard), B (specific), C (wildcard)
     * for three messages of one sender get them in that order */
    int partner = (p2p_rank + 1) % p2p_size, from = (p2p_rank + p2p_size - 1) % p2p_size;
    int v[3], got[3] = {-1, -1, -1};
    MPI_Request rq[3], sq[3];
    CHECK_RC(MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, 150, MPI_COMM_WORLD, &rq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Irecv(&got[1], 1, MPI_INT, from, 150, MPI_COMM_WORLD, &rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Irecv(&got[2], 1, MPI_INT, MPI_ANY_SOURCE, 150, MPI_COMM_WORLD, &rq[2]), MPI_SUCCESS);
    for (int i = 0; i < 3; i++) {
        v[i] = i;
        CHECK_RC(MPI_Isend(&v[i], 1, MPI_INT, partner, 150, MPI_COMM_WORLD, &sq[i]), MPI_SUCCESS);
    }
    CHECK_RC(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(got[0] == 0 && got[1] == 1 && got[2] == 2);
    CHECK_RC(MPI_Waitall(3, sq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    p2p_finish("wildcard");
    return 0;
}
