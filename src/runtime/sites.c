#include "runtime/sites.h"

#include "runtime/job.h"
#include "runtime/pmi_wire.h"
#include "runtime/sitemap.h"
#include "runtime/tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int *site_of;
static int nsites = 1;
static char **names;

static int get(void *ctx, const char *key, char *value, int vallen, char *err, int errlen)
{
    (void)ctx;
    return job_get(key, value, vallen, err, errlen);
}

static int virtual_sites(int k)
{
    if (k > job.size)
        k = job.size;
    if (k > SITEMAP_SITES_MAX)
        k = SITEMAP_SITES_MAX;
    names = calloc((size_t)k, sizeof *names);
    if (!names)
        return -1;
    nsites = k;
    for (int s = 0; s < k; s++) {
        names[s] = malloc(32);
        if (!names[s])
            return -1;
        snprintf(names[s], 32, "virtual%d", s);
    }
    for (int r = 0; r < job.size; r++)
        site_of[r] = (int)((long long)r * k / job.size);
    return 0;
}

int sites_init(const int *host_of, char *err, int errlen)
{
    site_of = calloc((size_t)job.size, sizeof *site_of);
    if (!site_of) {
        snprintf(err, (size_t)errlen, "out of memory for the site map");
        return -1;
    }
    nsites = 1;
    long virt = tun_int(TUN_VIRTUAL_SITES);
    if (virt > 0) {
        if (virtual_sites((int)(virt > job.size ? job.size : virt)) != 0) {
            snprintf(err, (size_t)errlen, "out of memory for the site map");
            return -1;
        }
        return 0;
    }
    int n = 0;
    char **nm = NULL;
    int rc = sitemap_decode(get, NULL, job.size, PMI_WIRE_VALLEN_MAX + 1, site_of, &n, &nm,
                            err, errlen);
    if (rc < 0)
        return -1;
    if (rc > 0) {  /* none published: one site */
        memset(site_of, 0, (size_t)job.size * sizeof *site_of);
        return 0;
    }
    nsites = n;
    names = nm;
    /* a host lies within one site: the first rank seen on each host sets its site */
    int maxhost = 0;
    for (int r = 0; r < job.size; r++)
        maxhost = host_of[r] > maxhost ? host_of[r] : maxhost;
    int *first = malloc(((size_t)maxhost + 1) * sizeof *first);
    if (!first) {
        snprintf(err, (size_t)errlen, "out of memory for the site map");
        return -1;
    }
    for (int h = 0; h <= maxhost; h++)
        first[h] = -1;
    for (int r = 0; r < job.size && rc == 0; r++) {
        int q = first[host_of[r]];
        if (q < 0) {
            first[host_of[r]] = r;
        } else if (site_of[q] != site_of[r]) {
            snprintf(err, (size_t)errlen, "the site layout puts ranks %d and %d, which share a "
                     "host, at different sites (%s and %s)", q, r, names[site_of[q]],
                     names[site_of[r]]);
            rc = -1;
        }
    }
    free(first);
    return rc;
}

void sites_finalize(void)
{
    free(site_of);
    site_of = NULL;
    sitemap_free_names(names, nsites);
    names = NULL;
    nsites = 1;
}

int sites_of(int world_rank)
{
    return site_of ? site_of[world_rank] : 0;
}

int sites_count(void)
{
    return nsites;
}

const char *sites_name(int s)
{
    return names && s >= 0 && s < nsites ? names[s] : "";
}
