/* Bandwidth of non-contiguous transfers between ranks 0 and 1, OSU method (osu_bw: a window
 * of MPI_Isend / MPI_Irecv, then a zero-byte ack), for messages of `total` bytes:
 *   contig      total bytes of MPI_BYTE: the reference
 *   vector B    MPI_Type_vector of doubles, blocks of B bytes every 2 B (B = 8 B ... 64 KiB),
 *               sent and received with the same type
 *   face_x/y/z  the faces of an n x n x n array of doubles (n * n * 8 bytes) as
 *               MPI_Type_create_subarray: face_x is one contiguous plane (C order), face_y
 *               n rows of n doubles, face_z n * n single doubles — the halo exchange of a
 *               3-D domain decomposition
 * Each case is verified first (every byte the type covers, and for the vectors the gaps);
 * wrong data aborts the job.
 *
 * Usage: mpirun -n 2 noncontig [total_bytes [scale [n]]]: the vectors of total bytes (a
 * multiple of 64 KiB), or with n > 1 the faces of an n^3 array (and contig of a face's bytes).
 * Rank 0 prints one line per case: "<case> <block_bytes> <bytes> <iterations> <MB_per_s>". */
#include "common.h"

enum { TAG = 3, WINDOW = 16 };
static const char PROG[] = "noncontig";

typedef struct tcase {
    char name[16];
    long block;               /* bytes per contiguous block (the face's row for faces) */
    MPI_Datatype type;        /* MPI_BYTE for contig */
    int count;
    long span;                /* bytes of buffer the type spans */
    int (*covered)(long j, const struct tcase *c); /* byte j of the buffer is data */
    long n;                   /* faces: the array's edge */
    int dim;                  /* faces: the fixed dimension */
} tcase_t;

static int cov_contig(long j, const tcase_t *c)
{
    (void)c;
    (void)j;
    return 1;
}

static int cov_vector(long j, const tcase_t *c)
{
    return (j / c->block) % 2 == 0;
}

/* the face is index 1 of dimension dim */
static int cov_face(long j, const tcase_t *c)
{
    long e = j / 8, n = c->n;
    long idx[3] = { e / (n * n), (e / n) % n, e % n };
    return idx[c->dim] == 1;
}

static unsigned char pat(long j, int seed)
{
    return (unsigned char)(j * 131 + (j >> 9) * 17 + seed * 31 + 1);
}

static void die(const char *what, const tcase_t *c, long at)
{
    fprintf(stderr, "%s: %s (%s, block %ld): byte %ld wrong\n", PROG, what, c->name, c->block,
            at);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One window: WINDOW messages, then the receiver's ack. */
static void window(const tcase_t *c, unsigned char *buf, int rank)
{
    MPI_Request req[WINDOW];
    MPI_Status st[WINDOW]; /* not MPI_STATUSES_IGNORE: MPICH's header makes GCC warn */
    char ack;
    for (int k = 0; k < WINDOW; k++) {
        if (rank == 0)
            MPI_Isend(buf, c->count, c->type, 1, TAG, MPI_COMM_WORLD, &req[k]);
        else
            MPI_Irecv(buf, c->count, c->type, 0, TAG, MPI_COMM_WORLD, &req[k]);
    }
    MPI_Waitall(WINDOW, req, st);
    if (rank == 0)
        MPI_Recv(&ack, 0, MPI_CHAR, 1, TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&ack, 0, MPI_CHAR, 0, TAG + 1, MPI_COMM_WORLD);
}

static void run_case(const tcase_t *c, long total, int rank, double scale)
{
    unsigned char *buf = xmalloc((size_t)c->span);
    /* verify once: sender's pattern at every covered byte, receiver's poison elsewhere */
    if (rank == 0) {
        for (long j = 0; j < c->span; j++)
            buf[j] = pat(j, 1);
        MPI_Send(buf, c->count, c->type, 1, TAG, MPI_COMM_WORLD);
    } else {
        memset(buf, POISON, (size_t)c->span);
        MPI_Status st;
        MPI_Recv(buf, c->count, c->type, 0, TAG, MPI_COMM_WORLD, &st);
        int bytes;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        if (bytes != total)
            die("wrong count", c, -1);
        for (long j = 0; j < c->span; j++) {
            int cov = c->covered(j, c);
            if ((cov && buf[j] != pat(j, 1)) || (!cov && c->n == 0 && buf[j] != POISON))
                die(cov ? "wrong data" : "gap overwritten", c, j);
        }
    }
    int iters = iterations_for(total * WINDOW, 256.0 * 1024 * 1024, 4, 1000, scale);
    for (int i = 0; i < (iters + 9) / 10; i++)
        window(c, buf, rank);
    char sync = 0; /* both ranks start timing together (no collectives needed) */
    MPI_Sendrecv(&sync, 0, MPI_CHAR, 1 - rank, TAG + 2, &sync, 0, MPI_CHAR, 1 - rank, TAG + 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        window(c, buf, rank);
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("%s %ld %ld %d %.1f\n", c->name, c->block, total, iters,
               (double)total * WINDOW * iters / t / 1e6);
    fflush(stdout);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "%s: needs exactly 2 ranks\n", PROG);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long total;
    double scale;
    parse_args(argc, argv, &total, &scale);
    long n = argc > 3 ? atol(argv[3]) : 0;
    if (rank == 0)
        printf("# case block_bytes bytes iterations MB_per_s\n");
    if (n > 1) { /* the faces of an n^3 array, and contig of the same bytes */
        total = n * n * 8;
        tcase_t c = { "contig", total, MPI_BYTE, (int)total, total, cov_contig, 0, 0 };
        run_case(&c, total, rank, scale);
        for (int dim = 0; dim < 3; dim++) {
            int sizes[3] = { (int)n, (int)n, (int)n }, sub[3] = { (int)n, (int)n, (int)n },
                start[3] = { 0, 0, 0 };
            sub[dim] = 1;
            start[dim] = 1;
            tcase_t f = { "face_x", dim == 0 ? total : dim == 1 ? n * 8 : 8, MPI_DATATYPE_NULL,
                          1, n * n * n * 8, cov_face, n, dim };
            f.name[5] = (char)('x' + dim);
            MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &f.type);
            MPI_Type_commit(&f.type);
            run_case(&f, total, rank, scale);
            MPI_Type_free(&f.type);
        }
        MPI_Finalize();
        return 0;
    }
    total = total / 65536 * 65536;
    if (total < 65536)
        total = 65536;
    tcase_t c = { "contig", total, MPI_BYTE, (int)total, total, cov_contig, 0, 0 };
    run_case(&c, total, rank, scale);
    for (long b = 8; b <= 65536; b *= 2) {
        tcase_t v = { "vector", b, MPI_DATATYPE_NULL, 1, 2 * total, cov_vector, 0, 0 };
        MPI_Type_vector((int)(total / b), (int)(b / 8), (int)(2 * b / 8), MPI_DOUBLE, &v.type);
        MPI_Type_commit(&v.type);
        run_case(&v, total, rank, scale);
        MPI_Type_free(&v.type);
    }
    MPI_Finalize();
    return 0;
}
