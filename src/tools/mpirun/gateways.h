/*
 * Gateway mode of a job on several sites (mpirun --metacomputer without --direct-wan): one
 * metampi-gateway per site that runs ranks, started by the helper of the site's gateway host
 * with the JOB frame's gateway arguments (tools/gateway/config.h), ended with END when every
 * rank has exited. The ranks find their gateway in the key-value space: "metampi.gw.<site>" =
 * "IP:PORT" (transport/gw/gw.c).
 */
#ifndef MPIRUN_GATEWAYS_H
#define MPIRUN_GATEWAYS_H

#include "options.h"

typedef struct gw_plan {
    char ***args;       /* per host index (opts->hosts): the gateway's arguments, or NULL */
    int *nargs;
} gw_plan_t;

/* The gateways' run-length text of the sites of n ranks in rank order ("0*4,1*4",
 * --rank-sites and GW_RANKS); malloc'ed, NULL for n = 0. */
char *gateways_rank_sites(const int *rank_site, int n);

/* Whether the job runs in gateway mode. */
int gateways_wanted(const mpirun_opts_t *o);
/* Plans the gateways for the placement where[rank] = host index: fills *plan and appends the
 * gateway addresses to the key-value pairs (*kv, *nkv pairs, as sitemap_encode makes them).
 * 0, or -1 after a message (a gateway host that runs no rank). */
int gateways_plan(const mpirun_opts_t *o, const int *where, gw_plan_t *plan, char ***kv,
                  int *nkv);
/* The same for one site of a federated job (part.c): the job of size ranks at the sites
 * rank_site[], whose gateways listen at addr[s] ("IP:PORT", from the rendezvous); this mpirun
 * starts the ranks at where[0..np) (host indices) and the gateway of their site. */
int gateways_plan_part(const mpirun_opts_t *o, int size, const int *rank_site,
                       char *const *addr, const int *where, int np, gw_plan_t *plan,
                       char ***kv, int *nkv);
void gateways_free(const mpirun_opts_t *o, gw_plan_t *plan);

#endif
