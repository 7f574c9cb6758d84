/* Collective I/O bandwidth of the demo's checkpoint (examples/demo/decomp.h): a G^3 grid of
 * doubles split in blocks over MPI_Dims_create's 3-D grid of ranks; each rank's block lives
 * in a local array with one layer of ghost points (the memory type: the interior subarray)
 * and goes to its place in the global array in the file (the file type: a subarray of the
 * global grid). Timed: MPI_File_write_at_all and MPI_File_read_at_all of the whole grid (the
 * data then sits in the page cache: no sync is timed, for any MPI), and as the limit, rank 0
 * alone write()s and pread()s the same number of bytes from one contiguous buffer.
 * Prints "op bytes MB/s" lines (MB = 10^6 bytes; op: write_all, read_all, posix_write,
 * posix_read), the median of `reps` repetitions, and checks what it read.
 * Usage: io_bandwidth DIR [G [reps]]: files DIR/io_bandwidth.<pid>*, removed at the end. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void block(int g, int p, int c, int *n, int *off)
{
    *n = g / p + (c < g % p);
    *off = c * (g / p) + (c < g % p ? c : g % p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: io_bandwidth DIR [G [reps]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int g = argc > 2 ? atoi(argv[2]) : 160, reps = argc > 3 ? atoi(argv[3]) : 5;
    int dims[3] = { 0, 0, 0 }, periods[3] = { 0, 0, 0 }, coords[3];
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 3, coords);
    int gsz[3] = { g, g, g }, n[3], off[3], lsz[3], one[3] = { 1, 1, 1 };
    for (int d = 0; d < 3; d++) {
        block(g, dims[d], coords[d], &n[d], &off[d]);
        lsz[d] = n[d] + 2;
    }
    MPI_Datatype ftype, mtype;
    MPI_Type_create_subarray(3, gsz, n, off, MPI_ORDER_C, MPI_DOUBLE, &ftype);
    MPI_Type_create_subarray(3, lsz, n, one, MPI_ORDER_C, MPI_DOUBLE, &mtype);
    MPI_Type_commit(&ftype);
    MPI_Type_commit(&mtype);
    size_t local = (size_t)lsz[0] * lsz[1] * lsz[2];
    double *a = calloc(local, sizeof *a), *b = calloc(local, sizeof *b);
    if (!a || !b)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < n[0]; i++)
        for (int j = 0; j < n[1]; j++)
            for (int k = 0; k < n[2]; k++)
                a[((size_t)(i + 1) * lsz[1] + (size_t)(j + 1)) * lsz[2] + (size_t)(k + 1)] =
                    ((double)(off[0] + i) * g + (off[1] + j)) * g + (off[2] + k);
    char path[4096], raw[4200];
    int tag = (int)getpid();
    MPI_Bcast(&tag, 1, MPI_INT, 0, cart);
    snprintf(path, sizeof path, "%s/io_bandwidth.%d", argv[1], tag);
    snprintf(raw, sizeof raw, "%s.raw", path);
    double total = (double)g * g * g * sizeof(double);
    double *tw = malloc((size_t)reps * sizeof *tw), *tr = malloc((size_t)reps * sizeof *tr);
    MPI_File fh;
    if (MPI_File_open(cart, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ftype, "native", MPI_INFO_NULL);
    int bad = 0;
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(cart);
        double t0 = MPI_Wtime();
        MPI_File_write_at_all(fh, 0, a, 1, mtype, MPI_STATUS_IGNORE);
        double t1 = MPI_Wtime(), dt = t1 - t0;
        MPI_Allreduce(&dt, &tw[r], 1, MPI_DOUBLE, MPI_MAX, cart);
        memset(b, 0, local * sizeof *b);
        MPI_Barrier(cart);
        t0 = MPI_Wtime();
        MPI_File_read_at_all(fh, 0, b, 1, mtype, MPI_STATUS_IGNORE);
        dt = MPI_Wtime() - t0;
        MPI_Allreduce(&dt, &tr[r], 1, MPI_DOUBLE, MPI_MAX, cart);
        for (size_t i = 0; i < local; i++)
            bad |= a[i] != b[i];
    }
    MPI_File_close(&fh);
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, cart);
    if (rank == 0) {
        printf("write_all %.0f %.1f\n", total, total / median(tw, reps) / 1e6);
        printf("read_all %.0f %.1f\n", total, total / median(tr, reps) / 1e6);
        /* the limit: one process, one write() of the same bytes, one pread() back */
        char *buf = malloc((size_t)total);
        int fd = open(raw, O_CREAT | O_RDWR | O_TRUNC, 0644);
        if (!buf || fd < 0)
            MPI_Abort(MPI_COMM_WORLD, 5);
        memset(buf, 1, (size_t)total);
        for (int r = 0; r < reps; r++) {
            double t0 = MPI_Wtime();
            size_t done = 0;
            while (done < (size_t)total) {
                ssize_t w = pwrite(fd, buf + done, (size_t)total - done, (off_t)done);
                if (w <= 0)
                    MPI_Abort(MPI_COMM_WORLD, 6);
                done += (size_t)w;
            }
            tw[r] = MPI_Wtime() - t0;
            t0 = MPI_Wtime();
            done = 0;
            while (done < (size_t)total) {
                ssize_t w = pread(fd, buf + done, (size_t)total - done, (off_t)done);
                if (w <= 0)
                    MPI_Abort(MPI_COMM_WORLD, 7);
                done += (size_t)w;
            }
            tr[r] = MPI_Wtime() - t0;
        }
        close(fd);
        unlink(raw);
        unlink(path);
        free(buf);
        printf("posix_write %.0f %.1f\n", total, total / median(tw, reps) / 1e6);
        printf("posix_read %.0f %.1f\n", total, total / median(tr, reps) / 1e6);
        if (anybad)
            printf("ERROR: read_all returned other data than was written\n");
    }
    free(tw);
    free(tr);
    free(a);
    free(b);
    MPI_Type_free(&ftype);
    MPI_Type_free(&mtype);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
