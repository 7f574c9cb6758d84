/*
 * Where the ranks run: the site and host of every rank, and which of a rank's six
 * neighbours are at another site, so that their exchanges count as WAN communication.
 *
 * Sites come from metampi (METAMPI_COMM_TYPE_SITE for MPI_Comm_split_type, the METAMPI_SITE
 * attribute for the site's index: see mpi.h). With another MPI, or a metampi without sites,
 * the program compiles without them and the whole job is one site.
 */
#ifndef DEMO_PLACEMENT_H
#define DEMO_PLACEMENT_H

#include "decomp.h"

typedef struct placement {
    int site;            /* this rank's site index */
    int nsites;          /* distinct sites among the job's ranks */
    int site_size;       /* ranks at this rank's site */
    int remote[3][2];    /* 1 if that neighbour exists and is at another site */
    int remote_faces;    /* faces of this rank that cross the WAN (0..6) */
    int sites_known;     /* 1 if the MPI library tells sites apart (compiled with metampi's) */
} placement_t;

/* Collective over d->cart. 0, or -1 with the reason in err. */
int placement_find(const decomp_t *d, placement_t *pl, char *err, size_t errlen);

/* Prints (rank 0) the hosts of every site with their ranks, and the faces crossing the WAN.
 * Collective over d->cart. */
void placement_print(const decomp_t *d, const placement_t *pl);

#endif
