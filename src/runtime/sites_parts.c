/*
 * The sites of the processes of other parts of the job (sites.h, sites_of_part): a part
 * spawned in a job of several sites has a layout of its own ranks in its own space
 * (runtime/sitemap.h), which mpirun writes with the job's site names in description order,
 * so a site number means the same site in every part. Each part's layout is read once, at the
 * first process of that part we meet, and kept until MPI_Finalize.
 *
 * Invariant: a cached layout covers ranks 0..size-1 of its part, each at a site of ours.
 */
#include "runtime/sites.h"

#include "runtime/job.h"
#include "runtime/job_spawn.h"
#include "runtime/pmi_wire.h"
#include "runtime/sitemap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct part_sites {
    char *kvsname;
    int *site_of;   /* NULL: the part publishes no layout (our site) */
    int size;
} part_sites_t;

static part_sites_t *parts;
static int nparts;

static int get_in(void *ctx, const char *key, char *value, int vallen, char *err, int errlen)
{
    return job_get_in(ctx, key, value, vallen, err, errlen);
}

/* Reads the layout of part kvsname into *p: 0, or -1 (err). */
static int read_part(const char *kvsname, part_sites_t *p, char *err, int errlen)
{
    int n = 0;
    char **names = NULL;
    memset(p, 0, sizeof *p);
    int rc = sitemap_decode_any(get_in, (void *)kvsname, PMI_WIRE_VALLEN_MAX + 1, &p->site_of,
                                &p->size, &n, &names, err, errlen);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        int same = n == sites_count();
        for (int s = 0; same && s < n; s++)
            same = strcmp(names[s], sites_name(s)) == 0;
        sitemap_free_names(names, n);
        if (!same) {
            snprintf(err, (size_t)errlen, "part %s of the job names other sites than this "
                     "process's (%d sites, not %d, or in another order)", kvsname, n,
                     sites_count());
            free(p->site_of);
            return -1;
        }
    }
    p->kvsname = strdup(kvsname);
    if (!p->kvsname) {
        free(p->site_of);
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    return 0;
}

int sites_of_part(const char *kvsname, int rank, char *err, int errlen)
{
    part_sites_t *p = NULL;
    for (int i = 0; i < nparts && !p; i++)
        if (strcmp(parts[i].kvsname, kvsname) == 0)
            p = &parts[i];
    if (!p) {
        part_sites_t *np = realloc(parts, (size_t)(nparts + 1) * sizeof *np);
        if (!np) {
            snprintf(err, (size_t)errlen, "out of memory");
            return -1;
        }
        parts = np;
        if (read_part(kvsname, &parts[nparts], err, errlen) != 0)
            return -1;
        p = &parts[nparts++];
    }
    if (!p->site_of)
        return sites_of(job.rank);
    if (rank < 0 || rank >= p->size) {
        snprintf(err, (size_t)errlen, "rank %d of part %s is beyond its site layout (%d ranks)",
                 rank, kvsname, p->size);
        return -1;
    }
    return p->site_of[rank];
}

void sites_parts_finalize(void)
{
    for (int i = 0; i < nparts; i++) {
        free(parts[i].kvsname);
        free(parts[i].site_of);
    }
    free(parts);
    parts = NULL;
    nparts = 0;
}
