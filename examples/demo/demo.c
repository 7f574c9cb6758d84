/*
 * metampi-demo: a PROMETHEUS-like stencil code (seed digest §2) on a metacomputer.
 *
 * A 3-D grid split over a Cartesian communicator; every step each rank exchanges its ghost
 * faces with its six neighbours (derived datatypes, halo.c), does a Jacobi sweep
 * (jacobi.c) and takes part in a global reduction of the residual (MPI_Allreduce). The time
 * of every step is split into computation, communication with ranks at the same site and
 * communication across the WAN (placement.c tells the sites apart); rank 0 shows the
 * progress, the summary, and a checksum of the final field that is the same bit for bit
 * for any number of ranks and any placement.
 *
 * Output (rank 0), besides the progress lines "step S/N ...":
 *   N ranks on S sites; grid ... split ...      the placement, one line per site
 *   result: checksum 0x... residual ... max ...  after the last step
 *   time per step, ms ...                        the mean split, see report.h
 */
#include "decomp.h"
#include "halo.h"
#include "jacobi.h"
#include "options.h"
#include "placement.h"
#include "progress.h"
#include "report.h"

#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>

static int run(const demo_options_t *o)
{
    decomp_t d;
    placement_t pl;
    char err[256];
    if (decomp_create(MPI_COMM_WORLD, o->grid, &d, err, sizeof err) != 0) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, "metampi-demo: %s\n", err);
        return 2;
    }
    if (placement_find(&d, &pl, err, sizeof err) != 0) {
        fprintf(stderr, "metampi-demo: rank %d: %s\n", d.rank, err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    placement_print(&d, &pl);

    field_t fl;
    timings_t tm;
    if (field_init(&d, &fl) != 0 || timings_init(&tm, o->steps) != 0) {
        fprintf(stderr, "metampi-demo: rank %d: out of memory for a %dx%dx%d block\n", d.rank,
                d.n[0], d.n[1], d.n[2]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    progress_t pr;
    if (d.rank == 0) {
        progress_start(&pr, o->progress, o->steps);
        fflush(stdout);   /* the placement, before the run */
    }
    double residual = -1;

    MPI_Barrier(d.cart);
    double start = MPI_Wtime();
    for (int s = 0; s < o->steps; s++) {
        double *t = &tm.t[T_SLOTS * s];
        halo_exchange(&d, &pl, fl.u, &t[T_LOCAL], &t[T_WAN]);
        double t0 = MPI_Wtime();
        double change = jacobi_sweep(&d, &fl);
        double t1 = MPI_Wtime();
        t[T_COMPUTE] += t1 - t0;
        if ((s + 1) % o->reduce_every == 0 || s + 1 == o->steps) {
            MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_MAX, d.cart);
            /* the reduction spans every rank: across the WAN as soon as there are two sites */
            double tr = MPI_Wtime() - t1;
            t[pl.nsites > 1 ? T_WAN : T_LOCAL] += tr;
            t[T_REDUCE] += tr;
        }
        if (d.rank == 0)
            progress_step(&pr, s + 1, t, residual);
    }
    double elapsed = MPI_Wtime() - start;
    if (d.rank == 0)
        progress_end(&pr);

    uint64_t sum = field_checksum(&d, &fl), checksum;
    double umax = field_max(&d, &fl), gmax;
    MPI_Reduce(&sum, &checksum, 1, MPI_UINT64_T, MPI_SUM, 0, d.cart);
    MPI_Reduce(&umax, &gmax, 1, MPI_DOUBLE, MPI_MAX, 0, d.cart);
    if (d.rank == 0) {
        printf("result: checksum 0x%016" PRIx64 "  residual %.6e  max %.6e  after %d steps "
               "(%.2f s)\n", checksum, residual, gmax, o->steps, elapsed);
    }
    int rc = report_times(&d, &pl, &tm, o) == 0 ? 0 : 1;
    MPI_Bcast(&rc, 1, MPI_INT, 0, d.cart);
    timings_free(&tm);
    field_free(&fl);
    decomp_free(&d);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    demo_options_t o;
    int rc = options_parse(argc, argv, rank, &o);
    if (rc == 0)
        rc = run(&o);
    else if (rc == 1)
        rc = 0;   /* --help */
    MPI_Finalize();
    return rc;
}
