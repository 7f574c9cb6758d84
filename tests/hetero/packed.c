/* MPI_PACKED between ranks of unlike architectures (tests/hetero, issue 19): the bytes of a
 * packed message stay their writer's, so the conversion happens where they are read — a typed
 * receive of what MPI_Pack made, MPI_Unpack of what a typed send sent, of a buffer packed on
 * MPI_COMM_SELF (no header), and of one forwarded by a third rank as MPI_PACKED. Every ordered
 * pair (and, from 3 ranks, every forwarding path) at an eager and a rendezvous size; on one
 * architecture the same program checks that nothing changed between like ranks. */
#include "../mpi/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SMALL = 3, LARGE = 9000 }; /* LARGE: 180 KB, beyond the eager limit */

typedef struct data {
    int n;
    int *i;
    double *d;
    long *l;
} data_t;

static data_t data_new(int n)
{
    data_t x = { n, calloc((size_t)n, sizeof(int)), calloc((size_t)n, sizeof(double)),
                 calloc((size_t)n, sizeof(long)) };
    CHECK(x.i && x.d && x.l);
    return x;
}

static void data_free(data_t *x)
{
    free(x->i);
    free(x->d);
    free(x->l);
}

/* the values rank `from` sends with seed s */
static void data_fill(data_t *x, int from, int s)
{
    for (int k = 0; k < x->n; k++) {
        x->i[k] = -(k % 1000) * 1000003 + from * 7 + s;
        x->d[k] = k * 0.25 - 3.5 + from + s * 1e-3;
        x->l[k] = (long)k * 300000000007L - 5 - from - s;
    }
}

static void data_check(const data_t *x, int from, int s)
{
    for (int k = 0; k < x->n; k++) {
        CHECK(x->i[k] == -(k % 1000) * 1000003 + from * 7 + s);
        CHECK(x->d[k] == k * 0.25 - 3.5 + from + s * 1e-3);
        CHECK(x->l[k] == (long)k * 300000000007L - 5 - from - s);
    }
}

/* The three arrays as one typed message (absolute addresses): n ints, n doubles, n longs,
 * the signature of the packed buffer. */
static MPI_Datatype data_type(const data_t *x)
{
    int bl[3] = { x->n, x->n, x->n };
    MPI_Aint disp[3];
    MPI_Get_address(x->i, &disp[0]);
    MPI_Get_address(x->d, &disp[1]);
    MPI_Get_address(x->l, &disp[2]);
    MPI_Datatype types[3] = { MPI_INT, MPI_DOUBLE, MPI_LONG }, t;
    MPI_Type_create_struct(3, bl, disp, types, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Packs x on comm into a new buffer; *size is the packed position. */
static char *pack(const data_t *x, MPI_Comm comm, int *size)
{
    int need = 0, part;
    MPI_Pack_size(x->n, MPI_INT, comm, &part);
    need += part;
    MPI_Pack_size(x->n, MPI_DOUBLE, comm, &part);
    need += part;
    MPI_Pack_size(x->n, MPI_LONG, comm, &part);
    need += part;
    char *buf = malloc((size_t)need);
    CHECK(buf);
    *size = 0;
    CHECK_RC(MPI_Pack(x->i, x->n, MPI_INT, buf, need, size, comm), MPI_SUCCESS);
    CHECK_RC(MPI_Pack(x->d, x->n, MPI_DOUBLE, buf, need, size, comm), MPI_SUCCESS);
    CHECK_RC(MPI_Pack(x->l, x->n, MPI_LONG, buf, need, size, comm), MPI_SUCCESS);
    CHECK(*size <= need);
    return buf;
}

static void unpack(const char *buf, int size, data_t *x)
{
    int pos = 0;
    CHECK_RC(MPI_Unpack(buf, size, &pos, x->i, x->n, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Unpack(buf, size, &pos, x->d, x->n, MPI_DOUBLE, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Unpack(buf, size, &pos, x->l, x->n, MPI_LONG, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos <= size);
}

/* A message as MPI_PACKED from `from`, received into a buffer sized by its probe. */
static char *recv_packed(int from, int tag, int *size)
{
    MPI_Status st;
    CHECK_RC(MPI_Probe(from, tag, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK_RC(MPI_Get_count(&st, MPI_PACKED, size), MPI_SUCCESS);
    char *buf = malloc(*size ? (size_t)*size : 1);
    CHECK(buf);
    CHECK_RC(MPI_Recv(buf, *size, MPI_PACKED, from, tag, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    int got = -1;
    MPI_Get_count(&st, MPI_PACKED, &got);
    CHECK(got == *size);
    return buf;
}

/* from packs on comm (world: with the header) and sends MPI_PACKED; to receives typed. */
static void packed_to_typed(int rank, int from, int to, int n, MPI_Comm comm, int s)
{
    data_t x = data_new(n);
    if (rank == from) {
        data_fill(&x, from, s);
        int size;
        char *buf = pack(&x, comm, &size);
        MPI_Request rq;
        CHECK_RC(MPI_Isend(buf, size, MPI_PACKED, to, s, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
        free(buf);
    } else if (rank == to) {
        MPI_Datatype t = data_type(&x);
        MPI_Status st;
        CHECK_RC(MPI_Recv(MPI_BOTTOM, 1, t, from, s, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        int count = -1, elements = -1;
        MPI_Get_count(&st, t, &count);
        MPI_Get_elements(&st, t, &elements);
        CHECK(count == 1 && elements == 3 * n);
        data_check(&x, from, s);
        MPI_Type_free(&t);
    }
    data_free(&x);
}

/* from sends typed (synchronous); to receives MPI_PACKED and unpacks. */
static void typed_to_packed(int rank, int from, int to, int n, int s)
{
    data_t x = data_new(n);
    if (rank == from) {
        data_fill(&x, from, s);
        MPI_Datatype t = data_type(&x);
        CHECK_RC(MPI_Ssend(MPI_BOTTOM, 1, t, to, s, MPI_COMM_WORLD), MPI_SUCCESS);
        MPI_Type_free(&t);
    } else if (rank == to) {
        int size;
        char *buf = recv_packed(from, s, &size);
        unpack(buf, size, &x);
        data_check(&x, from, s);
        free(buf);
    }
    data_free(&x);
}

/* from packs on comm and sends MPI_PACKED (buffered); to receives MPI_PACKED and unpacks. */
static void packed_to_packed(int rank, int from, int to, int n, MPI_Comm comm, int s)
{
    data_t x = data_new(n);
    if (rank == from) {
        data_fill(&x, from, s);
        int size, room;
        char *buf = pack(&x, comm, &size);
        MPI_Pack_size(size, MPI_PACKED, MPI_COMM_WORLD, &room);
        room += MPI_BSEND_OVERHEAD;
        char *attached = malloc((size_t)room);
        CHECK(attached);
        MPI_Buffer_attach(attached, room);
        CHECK_RC(MPI_Bsend(buf, size, MPI_PACKED, to, s, MPI_COMM_WORLD), MPI_SUCCESS);
        MPI_Buffer_detach(&attached, &room);
        free(attached);
        free(buf);
    } else if (rank == to) {
        int size;
        char *buf = recv_packed(from, s, &size);
        unpack(buf, size, &x);
        data_check(&x, from, s);
        free(buf);
    }
    data_free(&x);
}

/* a packs on world and sends MPI_PACKED to b, which forwards what it received as MPI_PACKED
 * to c, which unpacks a's data. */
static void forwarded(int rank, int a, int b, int c, int n, int s)
{
    data_t x = data_new(n);
    if (rank == a) {
        data_fill(&x, a, s);
        int size;
        char *buf = pack(&x, MPI_COMM_WORLD, &size);
        CHECK_RC(MPI_Send(buf, size, MPI_PACKED, b, s, MPI_COMM_WORLD), MPI_SUCCESS);
        free(buf);
    }
    if (rank == b) {
        int size;
        char *buf = recv_packed(a, s, &size);
        CHECK_RC(MPI_Send(buf, size, MPI_PACKED, c, s, MPI_COMM_WORLD), MPI_SUCCESS);
        free(buf);
    }
    if (rank == c) {
        int size;
        char *buf = recv_packed(b, s, &size);
        unpack(buf, size, &x);
        data_check(&x, a, s);
        free(buf);
    }
    data_free(&x);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int sizes[2] = { SMALL, LARGE };
    int s = 0;
    for (int z = 0; z < 2; z++) {
        int n = sizes[z];
        for (int from = 0; from < size; from++)
            for (int to = 0; to < size; to++) {
                if (from == to)
                    continue;
                packed_to_typed(rank, from, to, n, MPI_COMM_WORLD, ++s);
                packed_to_typed(rank, from, to, n, MPI_COMM_SELF, ++s);
                typed_to_packed(rank, from, to, n, ++s);
                packed_to_packed(rank, from, to, n, MPI_COMM_WORLD, ++s);
                packed_to_packed(rank, from, to, n, MPI_COMM_SELF, ++s);
            }
        for (int a = 0; a < size && size > 2; a++)
            for (int b = 0; b < size; b++)
                for (int c = 0; c < size; c++)
                    if (a != b && b != c)
                        forwarded(rank, a, b, c, n, ++s);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("hetero_packed: %d cases on %d ranks passed\n", s, size);
    MPI_Finalize();
    return 0;
}
