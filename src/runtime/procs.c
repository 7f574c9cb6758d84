#include "runtime/procs.h"

#include "runtime/job.h"
#include "runtime/job_spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct proc {
    char *kvsname;    /* points into parts[] */
    int rank, id;
} proc_t;

static struct {
    int base;         /* this part's */
    proc_t *p;        /* the others, job ranks job.size + i */
    int n, cap;
    char **parts;     /* kvsnames met so far, with their bases */
    int *part_base;
    int nparts;
} pr;

static int read_base(const char *kvsname, int *base, char *err, int errlen)
{
    char v[32];
    int rc = kvsname ? job_get_in(kvsname, "metampi.part.base", v, sizeof v, err, errlen)
                     : job_get("metampi.part.base", v, sizeof v, err, errlen);
    if (rc < 0)
        return -1;
    *base = rc == 0 ? atoi(v) : 0;
    return 0;
}

static int inited;

int procs_init(char *err, int errlen)
{
    if (inited)
        return 0;
    memset(&pr, 0, sizeof pr);
    if (job_can_spawn() && read_base(NULL, &pr.base, err, errlen) != 0)
        return -1;
    inited = 1;
    return 0;
}

void procs_finalize(void)
{
    for (int i = 0; i < pr.nparts; i++)
        free(pr.parts[i]);
    free(pr.parts);
    free(pr.part_base);
    free(pr.p);
    memset(&pr, 0, sizeof pr);
    inited = 0;
}

int procs_total(void)
{
    return job.size + pr.n;
}

static int part_of(const char *kvsname, char *err, int errlen)
{
    for (int i = 0; i < pr.nparts; i++)
        if (strcmp(pr.parts[i], kvsname) == 0)
            return i;
    int base;
    if (read_base(kvsname, &base, err, errlen) != 0)
        return -1;
    char **np = realloc(pr.parts, (size_t)(pr.nparts + 1) * sizeof *np);
    if (np)
        pr.parts = np;
    int *nb = np ? realloc(pr.part_base, (size_t)(pr.nparts + 1) * sizeof *nb) : NULL;
    if (nb)
        pr.part_base = nb;
    char *copy = nb ? strdup(kvsname) : NULL;
    if (!copy) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    pr.parts[pr.nparts] = copy;
    pr.part_base[pr.nparts] = base;
    return pr.nparts++;
}

int procs_add(const char *kvsname, int rank, char *err, int errlen)
{
    if (strcmp(kvsname, job.id) == 0)
        return rank >= 0 && rank < job.size ? rank : -1;
    for (int i = 0; i < pr.n; i++)
        if (pr.p[i].rank == rank && strcmp(pr.p[i].kvsname, kvsname) == 0)
            return job.size + i;
    int part = part_of(kvsname, err, errlen);
    if (part < 0)
        return -1;
    /* the same process under another name: in a federated job each site's part names the
     * one world by its own kvsname (docs/dynproc.md, "Federated jobs"); the job-wide number
     * is the process's in every part */
    int known = procs_of_id(pr.part_base[part] + rank);
    if (known >= 0)
        return known;
    if (pr.n == pr.cap) {
        int cap = pr.cap ? 2 * pr.cap : 16;
        proc_t *np = realloc(pr.p, (size_t)cap * sizeof *np);
        if (!np) {
            snprintf(err, (size_t)errlen, "out of memory");
            return -1;
        }
        pr.p = np;
        pr.cap = cap;
    }
    pr.p[pr.n] = (proc_t){ .kvsname = pr.parts[part], .rank = rank,
                           .id = pr.part_base[part] + rank };
    return job.size + pr.n++;
}

const char *procs_kvsname(int r)
{
    return r < job.size ? job.id : pr.p[r - job.size].kvsname;
}

int procs_part_rank(int r)
{
    return r < job.size ? r : pr.p[r - job.size].rank;
}

int procs_id(int r)
{
    return r < job.size ? pr.base + r : pr.p[r - job.size].id;
}

int procs_of_id(int id)
{
    if (id >= pr.base && id - pr.base < job.size)
        return id - pr.base;
    for (int i = 0; i < pr.n; i++)
        if (pr.p[i].id == id)
            return job.size + i;
    return -1;
}
