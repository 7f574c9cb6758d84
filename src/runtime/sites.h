/*
 * Which site each rank of the job runs at: the clusters of a metacomputer joined by a WAN.
 * mpirun publishes the layout from its metacomputer description (runtime/sitemap.h); a job
 * without one (no description, another launcher, a singleton) is one site. Computed once in
 * MPI_Init, right after the host map, and read-only afterwards.
 *
 * Invariants (checked for a published layout): every rank has a site in 0..count-1; ranks
 * that share a host share a site. Sites are numbered in description order; a site of the
 * description that got no rank keeps its number (and name) but has no member.
 *
 * METAMPI_VIRTUAL_SITES=k (testing) makes the job k sites of consecutive ranks instead, as
 * METAMPI_VIRTUAL_HOSTS does for hosts, named "virtual0", "virtual1", ... (rank r at site
 * r*k/size, k at most the job's size). The host invariant then holds only when the hosts are
 * virtual too and their number is a multiple of k.
 */
#ifndef METAMPI_SITES_H
#define METAMPI_SITES_H

/* Reads the layout; host_of[0..job.size) is the job's host map (hosts_map). 0, or -1 with a
 * message. */
int sites_init(const int *host_of, char *err, int errlen);
void sites_finalize(void);

/* The site of a job rank (0 before sites_init). */
int sites_of(int world_rank);
/* The number of sites of the job's description (1 without one). */
int sites_count(void);
/* The name of site s (0 <= s < sites_count()): from the description, "" without one. */
const char *sites_name(int s);

/* The site of process `rank` of another part of the job (kvsname; docs/dynproc.md, "Several
 * sites"): from that part's own layout in its space, whose site numbers and names must be
 * ours (mpirun numbers every part's sites in description order). A part without a layout
 * runs at our site (a job of one site). Read once per part (sites_parts.c). The site, or -1
 * with a message. */
int sites_of_part(const char *kvsname, int rank, char *err, int errlen);
void sites_parts_finalize(void);

#endif
