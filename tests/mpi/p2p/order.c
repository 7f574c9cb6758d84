/* The non-overtaking guarantee: every rank (rank 0 too, to itself) sends N messages with one
 * tag to rank 0, sizes mixed from 0 bytes to 1 MiB so that eager and rendezvous messages of
 * one sender race each other, partly with MPI_Send and partly with bursts of MPI_Isend. Rank 0
 * receives them with MPI_ANY_SOURCE and specific-source receives, blocking and in windows of
 * preposted MPI_Irecv; per sender they must arrive in send order (checked by a sequence number
 * in the first 4 bytes, the size that the sequence number implies, and the contents). Also
 * messages from one sender with different tags can be received out of order, and then each
 * tag's messages are still in order. */
#include "p2p.h"

enum { T_O = 120, T_X = 121, T_Y = 122, MAXN = 1 << 20, WINDOW = 8 };
static const int cycle[] = {1, 8, 100, 3000, 20000, 0, 70000, 5, 40000, 2};
#define NC 10

static int n_msgs;

static int size_of(int seq)
{
    return seq % 37 == 36 ? MAXN : cycle[seq % NC];
}

/* The sequence number in the first 4 bytes, little-endian whatever the rank's byte order
 * (the data is MPI_BYTE, which travels unconverted between ranks of unlike architecture). */
static void put_seq(unsigned char *b, int seq)
{
    for (int k = 0; k < 4; k++)
        b[k] = (unsigned char)((unsigned)seq >> (8 * k));
}

static int get_seq(const unsigned char *b)
{
    return (int)(b[0] | (unsigned)b[1] << 8 | (unsigned)b[2] << 16 | (unsigned)b[3] << 24);
}

static void make(unsigned char *b, int sender, int seq)
{
    int n = size_of(seq);
    p2p_fill(b, (size_t)n, p2p_seed(sender, (size_t)n, 0));
    if (n >= 4)
        put_seq(b, seq);
}

static void check_msg(const unsigned char *b, const MPI_Status *st, int *next)
{
    int s = st->MPI_SOURCE, count = -1, seq = next[s];
    CHECK(s >= 0 && s < p2p_size && st->MPI_TAG == T_O && seq < n_msgs);
    CHECK_RC(MPI_Get_count(st, MPI_BYTE, &count), MPI_SUCCESS);
    if (count != size_of(seq) || (count >= 4 && get_seq(b) != seq)) {
        int got = -1;
        if (count >= 4)
            got = get_seq(b);
        fprintf(stderr, "order: from %d expected #%d (%d bytes), got %d bytes, #%d\n", s, seq,
                size_of(seq), count, got);
        CHECK(0);
    }
    unsigned seed = p2p_seed(s, (size_t)count, 0);
    for (int i = 4; i < count; i++)
        CHECK(b[i] == p2p_byte((size_t)i, seed));
    next[s]++;
}

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size;
    /* fewer per sender at larger sizes: rank 0 receives (size * n_msgs) messages */
    n_msgs = size <= 2 ? 400 : 1600 / size;

    /* senders: all messages kept in their own buffers until all completed */
    unsigned char **bufs = malloc(sizeof *bufs * (size_t)n_msgs);
    MPI_Request *sq = malloc(sizeof *sq * (size_t)n_msgs);
    CHECK(bufs && sq);
    for (int i = 0; i < n_msgs; i++) {
        bufs[i] = malloc((size_t)size_of(i) + 1);
        CHECK(bufs[i]);
        make(bufs[i], rank, i);
        sq[i] = MPI_REQUEST_NULL;
    }
    if (rank == 0) { /* to itself: nonblocking only, completed after receiving */
        for (int i = 0; i < n_msgs; i++)
            CHECK_RC(MPI_Isend(bufs[i], size_of(i), MPI_BYTE, 0, T_O, MPI_COMM_WORLD, &sq[i]),
                     MPI_SUCCESS);
    } else { /* bursts of 10 Isends alternating with 10 blocking Sends */
        for (int i = 0; i < n_msgs; i++) {
            if ((i / 10) % 2 == 0)
                CHECK_RC(MPI_Isend(bufs[i], size_of(i), MPI_BYTE, 0, T_O, MPI_COMM_WORLD, &sq[i]),
                         MPI_SUCCESS);
            else
                CHECK_RC(MPI_Send(bufs[i], size_of(i), MPI_BYTE, 0, T_O, MPI_COMM_WORLD),
                         MPI_SUCCESS);
        }
    }

    if (rank == 0) {
        int *next = calloc((size_t)size, sizeof(int));
        unsigned char *rb[WINDOW];
        for (int w = 0; w < WINDOW; w++) {
            rb[w] = malloc(MAXN);
            CHECK(rb[w]);
        }
        int total = size * n_msgs, got = 0, step = 0;
        MPI_Status st[WINDOW];
        while (got < total) {
            int left = total - got;
            if (step % 3 == 0) { /* blocking, any source */
                CHECK_RC(MPI_Recv(rb[0], MAXN, MPI_BYTE, MPI_ANY_SOURCE, T_O, MPI_COMM_WORLD, st),
                         MPI_SUCCESS);
                check_msg(rb[0], st, next);
                got++;
            } else if (step % 3 == 1) { /* blocking, from a sender with messages left */
                int s = step % size;
                while (next[s] == n_msgs)
                    s = (s + 1) % size;
                CHECK_RC(MPI_Recv(rb[0], MAXN, MPI_BYTE, s, T_O, MPI_COMM_WORLD, st), MPI_SUCCESS);
                CHECK(st[0].MPI_SOURCE == s);
                check_msg(rb[0], st, next);
                got++;
            } else { /* a window of preposted any-source receives, checked in posting order */
                int w = left < WINDOW ? left : WINDOW;
                MPI_Request rq[WINDOW];
                for (int j = 0; j < w; j++)
                    CHECK_RC(MPI_Irecv(rb[j], MAXN, MPI_BYTE, MPI_ANY_SOURCE, T_O, MPI_COMM_WORLD,
                                       &rq[j]), MPI_SUCCESS);
                CHECK_RC(MPI_Waitall(w, rq, st), MPI_SUCCESS);
                for (int j = 0; j < w; j++)
                    check_msg(rb[j], &st[j], next);
                got += w;
            }
            step++;
        }
        for (int s = 0; s < size; s++)
            CHECK(next[s] == n_msgs);
        for (int w = 0; w < WINDOW; w++)
            free(rb[w]);
        free(next);
    }
    CHECK_RC(MPI_Waitall(n_msgs, sq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < n_msgs; i++)
        free(bufs[i]);
    free(bufs);
    free(sq);

    /* tags select past older messages; each tag's stream stays ordered: the right neighbour
     * gets X0 Y0 X1 Y1 ... (small and large), receives all Y first, then all X */
    enum { M = 6 };
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request xs[2 * M];
    static int xb[2 * M][30000];
    static int rbuf[30000];
    for (int i = 0; i < M; i++) {
        int len = i % 2 ? 30000 : 3;
        xb[2 * i][0] = i;
        xb[2 * i + 1][0] = 100 + i;
        CHECK_RC(MPI_Isend(xb[2 * i], len, MPI_INT, right, T_X, MPI_COMM_WORLD, &xs[2 * i]),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Isend(xb[2 * i + 1], len, MPI_INT, right, T_Y, MPI_COMM_WORLD, &xs[2 * i + 1]),
                 MPI_SUCCESS);
    }
    for (int i = 0; i < M; i++) {
        CHECK_RC(MPI_Recv(rbuf, 30000, MPI_INT, left, T_Y, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK(rbuf[0] == 100 + i);
    }
    for (int i = 0; i < M; i++) {
        CHECK_RC(MPI_Recv(rbuf, 30000, MPI_INT, left, T_X, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK(rbuf[0] == i);
    }
    CHECK_RC(MPI_Waitall(2 * M, xs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    p2p_finish("order");
    return 0;
}
