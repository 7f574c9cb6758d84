/* The aggregators of collective I/O (docs/io.md, "Collective I/O"): by default the lowest
 * rank of each host of the file's communicator (the job's host map, as the collectives' host
 * level uses it), so every host's file traffic leaves through one process; cb_nodes asks for
 * another number, taken round-robin over the hosts (the k-th rank of every host before any
 * host's k+1-th), so fewer aggregators than hosts still sit on different hosts and more use
 * further ranks of each. Only members that have the file open qualify (sites.c: with
 * metampi_file_sites=root, those of rank 0's site). Rank 0's choice is everyone's: the
 * members' host maps may differ (the parts of a job grown by MPI_Comm_spawn). */
#include "io/file.h"

#include "core/errors.h"
#include "core/icoll.h"
#include "core/p2p.h"

#include <stdlib.h>
#include <string.h>

static int *choose(io_file_t *f, int *n)
{
    comm_t *c = f->comm;
    int size = c->size;
    int *host = malloc((size_t)size * sizeof *host);   /* host index of each rank */
    int *level = malloc((size_t)size * sizeof *level); /* its place among its host's ranks */
    int *aggr = malloc((size_t)size * sizeof *aggr);
    int *count = calloc((size_t)size, sizeof *count);  /* ranks seen per host index */
    int *hosts = malloc((size_t)size * sizeof *hosts); /* distinct hosts, in rank order */
    *n = 0;
    if (!host || !level || !aggr || !count || !hosts) {
        free(aggr);
        aggr = NULL;
        goto out;
    }
    int nhosts = 0;
    for (int r = 0; r < size; r++) {
        level[r] = -1;
        /* with the file at rank 0's site, only that site's members have it open */
        if (f->sites == IO_SITES_ROOT && f->site[r] != f->site[0])
            continue;
        int h = p2p_host_of(comm_peer_world_rank(c, r)), k = 0;
        while (k < nhosts && hosts[k] != h)
            k++;
        if (k == nhosts)
            hosts[nhosts++] = h;
        host[r] = k;
        level[r] = count[k]++;
    }
    int want = f->hints.cb_nodes > 0 ? f->hints.cb_nodes : nhosts, candidates = 0;
    for (int r = 0; r < size; r++)
        candidates += level[r] >= 0;
    if (want > candidates)
        want = candidates;
    for (int l = 0; *n < want; l++)
        for (int r = 0; r < size && *n < want; r++)
            if (level[r] == l)
                aggr[(*n)++] = r;
out:
    free(host);
    free(level);
    free(count);
    free(hosts);
    return aggr;
}

int io_aggregators_agree(io_file_t *f)
{
    int size = f->comm->size, n = 0;
    int *aggr = f->comm->rank == 0 ? choose(f, &n) : malloc((size_t)size * sizeof *aggr);
    int *msg = malloc(((size_t)size + 1) * sizeof *msg);
    if (!aggr || !msg) /* the others wait in the broadcast: the job cannot go on */
        err_fatal(MPI_ERR_NO_MEM, "MPI-IO", "out of memory for %d aggregators", size);
    msg[0] = n;
    memcpy(msg + 1, aggr, (size_t)n * sizeof *aggr);
    int rc = icoll_bcast_ints(f->comm, msg, size + 1, 0);
    if (rc == MPI_SUCCESS) {
        memcpy(aggr, msg + 1, (size_t)msg[0] * sizeof *aggr);
        free(f->aggr);
        f->aggr = aggr;
        f->naggr = msg[0];
    } else {
        free(aggr);
    }
    free(msg);
    return rc;
}
