/*
 * The site layout of a job in its PMI key-value space: written by mpirun (from the
 * metacomputer description), read by every rank at MPI_Init (runtime/sites.c). Shared by
 * both, like the PMI wire format.
 *
 * Keys (a PMI value is at most `maxval` characters, so lists are cut into parts):
 *   metampi.sites          "S,N,R": S sites (1..SITEMAP_SITES_MAX); the names fill N parts,
 *                          the ranks' sites R parts (each 1..SITEMAP_PARTS_MAX)
 *   metampi.site_names     part 0 of the site names, comma-separated, in description order;
 *   metampi.site_names.<i> part i (i = 1..N-1)
 *   metampi.rank_sites     part 0 of the site of every rank in rank order, run-length coded:
 *   metampi.rank_sites.<i> "SITE" for one rank, "SITE*COUNT" for COUNT consecutive ranks
 * Each part holds whole list items; the list is the parts joined by commas. Example (two
 * sites of two ranks each): metampi.sites=2,1,1 metampi.site_names=stuttgart,berlin
 * metampi.rank_sites=0*2,1*2.
 *
 * The site of every rank rather than of every host: a rank's host index is the host's
 * position in mpirun's list only when PMI_process_mapping is published (it is not when it is
 * too long, and other launchers number hosts their own way), while ranks are the same
 * everywhere. mpirun places ranks site by site, so the runs are one per site.
 *
 * A job without these keys (no description, another launcher, a singleton) is one site.
 */
#ifndef METAMPI_SITEMAP_H
#define METAMPI_SITEMAP_H

#include <stddef.h>

#define SITEMAP_KEY_SITES "metampi.sites"
#define SITEMAP_KEY_NAMES "metampi.site_names"
#define SITEMAP_KEY_RANKS "metampi.rank_sites"
#define SITEMAP_SITES_MAX 256
#define SITEMAP_NAME_MAX 64
#define SITEMAP_PARTS_MAX 1024
#define SITEMAP_RANKS_MAX (1 << 30) /* job-wide numbers (tools' CTL_MAX_RANK_ID) */
#define SITEMAP_KEY_MAX 64      /* bytes of the longest key, with its NUL */

/* Nonzero when s[0..len) is a valid site name: 1..SITEMAP_NAME_MAX of [A-Za-z0-9_.-]. */
int sitemap_valid_name(const char *s, size_t len);

/* The key-value pairs of the layout: site_of[0..size) (each in 0..nsites-1) and
 * names[0..nsites) (valid, distinct). *kv gets 2*n malloc'ed strings (key, value, ...), each
 * value at most maxval characters; returns n, or -1 when the input is invalid or maxval is
 * too small for one name or run (maxval >= 80 always suffices). */
int sitemap_encode(int nsites, const char *const *names, const int *site_of, int size,
                   size_t maxval, char ***kv);
void sitemap_free_kv(char **kv, int n);

/* A lookup in the key-value space: 0 and the value, 1 when the key does not exist, -1 on
 * error (message in err). */
typedef int sitemap_get_fn(void *ctx, const char *key, char *value, int vallen, char *err,
                           int errlen);

/* Reads the layout of a job of size ranks through get; values are at most vallen-1
 * characters. Returns 1 when the job publishes none (then nothing is set), 0 with
 * site_of[0..size), *nsites and *names (malloc'ed array of malloc'ed names; free with
 * sitemap_free_names), or -1 with a message naming the bad key. Every value is checked:
 * counts, names (valid, distinct), sites in range, runs covering exactly size ranks. */
int sitemap_decode(sitemap_get_fn *get, void *ctx, int size, int vallen, int *site_of,
                   int *nsites, char ***names, char *err, int errlen);
void sitemap_free_names(char **names, int nsites);
/* The same for a layout of any size (a part of the job read by another part: docs/dynproc.md,
 * "Several sites"): *site_of (malloc'ed) gets every rank's site, *size their number (at most
 * SITEMAP_RANKS_MAX, at least 1). */
int sitemap_decode_any(sitemap_get_fn *get, void *ctx, int vallen, int **site_of, int *size,
                       int *nsites, char ***names, char *err, int errlen);

#endif
