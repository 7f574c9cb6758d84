#include "gateways.h"

#include "report.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gateways_wanted(const mpirun_opts_t *o)
{
    return o->mc.nsites > 1 && !o->direct_wan;
}

/* Appends one string to a growing list. */
static void push(char ***v, int *n, const char *s)
{
    *v = util_xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
    (*v)[(*n)++] = util_xstrdup(s);
}

/* "s:n,s:n" texts grow in a buffer */
static void append(char **buf, size_t *len, const char *s)
{
    size_t l = strlen(s);
    *buf = util_xrealloc(*buf, *len + l + 1);
    memcpy(*buf + *len, s, l + 1);
    *len += l;
}

char *gateways_rank_sites(const int *rank_site, int n)
{
    char *text = NULL;
    size_t len = 0;
    for (int r = 0; r < n;) {
        int s = rank_site[r], k = r;
        while (k < n && rank_site[k] == s)
            k++;
        char run[48];
        snprintf(run, sizeof run, "%s%d*%d", r ? "," : "", s, k - r);
        append(&text, &len, run);
        r = k;
    }
    return text;
}

/* The plan for a job of size ranks at sites rank_site[], whose gateways listen at addr[s]
 * ("IP:PORT"), of which this mpirun starts the ranks placed at where[0..np) (host indices):
 * one gateway for each site of those ranks, on its gateway host; every site's address in the
 * key-value pairs. */
int gateways_plan_part(const mpirun_opts_t *o, int size, const int *rank_site,
                       char *const *addr, const int *where, int np, gw_plan_t *plan,
                       char ***kv, int *nkv)
{
    const metacomputer_t *mc = &o->mc;
    plan->args = calloc((size_t)o->hosts.n, sizeof *plan->args);
    plan->nargs = calloc((size_t)o->hosts.n, sizeof *plan->nargs);
    if (!plan->args || !plan->nargs)
        util_xmalloc((size_t)-1);
    int *ranks = calloc((size_t)mc->nsites, sizeof *ranks);
    int *ours = calloc((size_t)mc->nsites, sizeof *ours);
    if (!ranks || !ours)
        util_xmalloc((size_t)-1);
    char *gateways = NULL, *names = NULL, *rank_sites = NULL, *unreachable = NULL;
    size_t gl = 0, nl = 0, ul = 0;
    for (int s = 0; s < mc->nsites; s++) {
        append(&gateways, &gl, s ? "," : "");
        append(&gateways, &gl, addr[s]);
        append(&names, &nl, s ? "," : "");
        append(&names, &nl, mc->site[s].name);
        if (mc->site[s].unreachable) {
            char b[16];
            snprintf(b, sizeof b, "%s%d", ul ? "," : "", s);
            append(&unreachable, &ul, b);
        }
    }
    for (int r = 0; r < size; r++)
        ranks[rank_site[r]]++;
    rank_sites = gateways_rank_sites(rank_site, size);
    for (int r = 0; r < np; r++)
        ours[mc->host_site[where[r]]] = 1;
    int rc = 0;
    for (int s = 0; s < mc->nsites && rc == 0; s++) {
        if (!ranks[s])
            continue; /* no rank there: no gateway, no link to it */
        char key[48];
        snprintf(key, sizeof key, "metampi.gw.%d", s);
        *kv = util_xrealloc(*kv, (size_t)(2 * *nkv + 2) * sizeof **kv);
        (*kv)[2 * *nkv] = util_xstrdup(key);
        (*kv)[2 * *nkv + 1] = util_xstrdup(addr[s]);
        (*nkv)++;
        if (!ours[s])
            continue; /* another mpirun's site (a federated job) */
        int h = mc->site[s].gateway, runs = 0;
        for (int r = 0; r < np; r++)
            runs |= where[r] == h;
        if (!runs) {
            util_msg("site '%s': its gateway host '%s' runs none of the %d ranks of the job; "
                     "give the site's gateway a host that runs ranks (gateway = HOST), or more "
                     "ranks", mc->site[s].name, o->hosts.h[h].name, np);
            rc = -1;
            break;
        }
        char site[16], streams[16], outage[16];
        snprintf(site, sizeof site, "%d", s);
        snprintf(outage, sizeof outage, "%d", mc_outage(mc) * 1000);
        char ***v = &plan->args[h];
        int *n = &plan->nargs[h];
        push(v, n, "--site");
        push(v, n, site);
        push(v, n, "--gateways");
        push(v, n, gateways);
        push(v, n, "--rank-sites");
        push(v, n, rank_sites);
        push(v, n, "--names");
        push(v, n, names);
        if (mc->streams) {
            snprintf(streams, sizeof streams, "%d", mc->streams);
            push(v, n, "--streams");
            push(v, n, streams);
        }
        push(v, n, "--compression");
        push(v, n, mc_compression_name(mc->compression));
        push(v, n, "--congestion");
        push(v, n, mc->congestion);
        push(v, n, "--encrypt");
        push(v, n, mc->plaintext ? "off" : "on");
        push(v, n, "--outage");
        push(v, n, outage);
        static const char *const x509_opt[MC_X509_KEYS] = { "--cert", "--key", "--ca",
                                                             "--crl" };
        for (int k = 0; k < MC_X509_KEYS && mc->site[s].x509[MC_CERT]; k++) {
            if (!mc->site[s].x509[k])
                continue; /* crl: optional */
            push(v, n, x509_opt[k]);
            push(v, n, mc->site[s].x509[k]);
        }
        if (unreachable) {
            push(v, n, "--unreachable");
            push(v, n, unreachable);
        }
        if (report_wanted()) {
            push(v, n, "--stats");
            push(v, n, "on");
        }
    }
    free(ranks);
    free(ours);
    free(gateways);
    free(names);
    free(unreachable);
    free(rank_sites);
    return rc;
}

int gateways_plan(const mpirun_opts_t *o, const int *where, gw_plan_t *plan, char ***kv,
                  int *nkv)
{
    const metacomputer_t *mc = &o->mc;
    int *rank_site = util_xmalloc((size_t)o->np * sizeof *rank_site);
    for (int r = 0; r < o->np; r++)
        rank_site[r] = mc->host_site[where[r]];
    char **addr = util_xmalloc((size_t)mc->nsites * sizeof *addr);
    for (int s = 0; s < mc->nsites; s++) {
        addr[s] = util_xstrdup(mc->site[s].wan);
    }
    int rc = gateways_plan_part(o, o->np, rank_site, addr, where, o->np, plan, kv, nkv);
    for (int s = 0; s < mc->nsites; s++)
        free(addr[s]);
    free(addr);
    free(rank_site);
    return rc;
}

void gateways_free(const mpirun_opts_t *o, gw_plan_t *plan)
{
    for (int h = 0; plan->args && h < o->hosts.n; h++) {
        for (int i = 0; i < plan->nargs[h]; i++)
            free(plan->args[h][i]);
        free(plan->args[h]);
    }
    free(plan->args);
    free(plan->nargs);
    memset(plan, 0, sizeof *plan);
}
