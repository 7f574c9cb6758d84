#include "halo.h"

/* A face travelling towards the upper neighbour of dimension e has tag 2e, towards the lower
 * one 2e+1: what a rank receives from below was sent "up" by that neighbour. */
static int tag_of(int e, int towards)
{
    return 2 * e + (towards == HI ? 0 : 1);
}

/* Posts the transfers with the neighbours whose remote flag equals `remote`. */
static int post(const decomp_t *d, const placement_t *pl, double *u, int remote,
                MPI_Request *req)
{
    int n = 0;
    for (int e = 0; e < 3; e++)
        for (int s = LO; s <= HI; s++) {
            int nb = d->nbr[e][s];
            if (nb == MPI_PROC_NULL || pl->remote[e][s] != remote)
                continue;
            MPI_Irecv(u, 1, d->recv[e][s], nb, tag_of(e, 1 - s), d->cart, &req[n++]);
            MPI_Isend(u, 1, d->send[e][s], nb, tag_of(e, s), d->cart, &req[n++]);
        }
    return n;
}

void halo_exchange(const decomp_t *d, const placement_t *pl, double *u, double *local,
                   double *wan)
{
    MPI_Request rreq[12], lreq[12];
    MPI_Status st[12];   /* not MPI_STATUSES_IGNORE: MPICH's header declares an array there */
    double t0 = MPI_Wtime();
    int nr = post(d, pl, u, 1, rreq);
    double t1 = MPI_Wtime();
    int nl = post(d, pl, u, 0, lreq);
    MPI_Waitall(nl, lreq, st);
    double t2 = MPI_Wtime();
    MPI_Waitall(nr, rreq, st);
    double t3 = MPI_Wtime();
    *local += t2 - t1;
    *wan += (t1 - t0) + (t3 - t2);
}
