/* Sends to self at every rank count: MPI_Isend then MPI_Recv, MPI_Irecv then MPI_Send,
 * MPI_Issend + MPI_Irecv in both orders, MPI_Ssend with the receive posted first, sizes from
 * 0 to 4 MiB; and the same on MPI_COMM_SELF. (A blocking standard send to self with no
 * receive posted may block forever: MPI does not promise buffering.) */
#include "p2p.h"

enum { T_SELF = 200, MAXN = 4 << 20 };
static const int sizes[] = {0, 1, 1000, 65536, 1 << 20, MAXN};

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank;
    unsigned char *sb = malloc(MAXN), *rb = malloc(MAXN);
    CHECK(sb && rb);
    for (int c = 0; c < 2; c++) {
        MPI_Comm comm = c ? MPI_COMM_SELF : MPI_COMM_WORLD;
        int me = c ? 0 : rank;
        for (int k = 0; k < 6; k++)
            for (int way = 0; way < 5; way++) {
                int n = sizes[k], count = -1;
                unsigned seed = p2p_seed(me, (size_t)n, way + 10 * c);
                MPI_Request q[2];
                MPI_Status st;
                p2p_fill(sb, (size_t)n, seed);
                memset(rb, 0, (size_t)n);
                switch (way) {
                case 0:
                    CHECK_RC(MPI_Isend(sb, n, MPI_BYTE, me, T_SELF, comm, &q[0]), MPI_SUCCESS);
                    CHECK_RC(MPI_Recv(rb, MAXN, MPI_BYTE, me, T_SELF, comm, &st), MPI_SUCCESS);
                    CHECK_RC(MPI_Wait(&q[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
                    break;
                case 1:
                    CHECK_RC(MPI_Irecv(rb, MAXN, MPI_BYTE, MPI_ANY_SOURCE, T_SELF, comm, &q[0]),
                             MPI_SUCCESS);
                    CHECK_RC(MPI_Send(sb, n, MPI_BYTE, me, T_SELF, comm), MPI_SUCCESS);
                    CHECK_RC(MPI_Wait(&q[0], &st), MPI_SUCCESS);
                    break;
                case 2:
                case 3:
                    if (way == 2) {
                        CHECK_RC(MPI_Issend(sb, n, MPI_BYTE, me, T_SELF, comm, &q[1]), MPI_SUCCESS);
                        CHECK_RC(MPI_Irecv(rb, MAXN, MPI_BYTE, me, T_SELF, comm, &q[0]), MPI_SUCCESS);
                    } else {
                        CHECK_RC(MPI_Irecv(rb, MAXN, MPI_BYTE, me, T_SELF, comm, &q[0]), MPI_SUCCESS);
                        CHECK_RC(MPI_Issend(sb, n, MPI_BYTE, me, T_SELF, comm, &q[1]), MPI_SUCCESS);
                    }
                    {
                        MPI_Status sts[2];
                        CHECK_RC(MPI_Waitall(2, q, sts), MPI_SUCCESS);
                        st = sts[0];
                    }
                    break;
                default:
                    CHECK_RC(MPI_Irecv(rb, MAXN, MPI_BYTE, me, T_SELF, comm, &q[0]), MPI_SUCCESS);
                    CHECK_RC(MPI_Ssend(sb, n, MPI_BYTE, me, T_SELF, comm), MPI_SUCCESS);
                    CHECK_RC(MPI_Wait(&q[0], &st), MPI_SUCCESS);
                }
                CHECK(st.MPI_SOURCE == me && st.MPI_TAG == T_SELF);
                CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
                CHECK(count == n && p2p_verify(rb, (size_t)n, seed) == -1);
            }
    }
    free(sb);
    free(rb);
    p2p_finish("self");
    return 0;
}
