/*
 * One site of a federated job (mpirun --rendezvous HOST:PORT --site NAME --job ID): the
 * mpirun of each site, started by that site's own batch system, joins the rendezvous server
 * (tools/rendezvous) with its rank count and hosts, waits until every site of the description
 * has joined, and then runs its site's block of the world like a job on several hosts
 * (multihost_exec), with
 *   - world ranks: its ranks are first .. first + n - 1, first = the ranks of the sites
 *     before it in the description; PMI_SIZE is the world's size;
 *   - the world's layout in its PMI space before any rank starts: PMI_process_mapping over
 *     every site's hosts (hosts numbered site after site as the layout lists them), and the
 *     site of every rank (runtime/sitemap.h), so every rank knows where every rank is;
 *   - the job key shared by all parts (rdv_key.h) instead of a fresh one, so that ranks and
 *     gateways of different sites can prove it to each other.
 * The PMI key-value space and its barriers stay within the part: ranks learn only their own
 * site's address cards; other sites are reached through the site gateways, whose addresses
 * the layout carries. The connection to the server stays open while the part runs: it is how
 * the part spawns (mh_fed.c; docs/dynproc.md, "Federated jobs"). Nothing is started before the layout has arrived, so a job called off
 * at the rendezvous leaves nothing behind.
 */
#include "job.h"
#include "net/secure.h"

#include "placement.h"
#include "rdv_client.h"
#include "rdv_key.h"
#include "rdv_link.h"
#include "runtime/pmi_wire.h"
#include "runtime/sitemap.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long a part tries to reach a server that is not listening (yet). */
#define PART_CONNECT_WAIT_MS 60000

/* The rendezvous waits for other sites: the user learns which (launch progress). */
static const mpirun_opts_t *part_opts;
static void say_waiting(const char *missing, unsigned seconds_left)
{
    util_msg("site %s of job %s: joined the rendezvous; waiting up to %u s for %s",
             part_opts->site_name, part_opts->job_id, seconds_left, missing);
}

/* The layout's site s in the order of our description (the server checked the names). */
static int check_layout(const mpirun_opts_t *o, const rdv_layout_t *l, const uint32_t *ours,
                        char *err, size_t errlen)
{
    if ((int)l->nsites != o->mc.nsites) {
        snprintf(err, errlen, "the layout has %u sites, the description %d", l->nsites,
                 o->mc.nsites);
        return -1;
    }
    for (int s = 0; s < o->mc.nsites; s++)
        if (strcmp(l->site[s].name, o->mc.site[s].name) != 0) {
            snprintf(err, errlen, "the layout's site %d is '%s', the description's '%s'", s,
                     l->site[s].name, o->mc.site[s].name);
            return -1;
        }
    const rdv_site_t *me = &l->site[o->site];
    int same = (int)me->nranks == o->np;
    for (uint32_t r = 0; r < me->nranks && same; r++)
        same = rdv_u32s_at(&me->rank_host, r) == ours[r];
    if (!same) {
        snprintf(err, errlen, "the layout's ranks of site '%s' are not the ones this part "
                 "joined with", o->site_name);
        return -1;
    }
    return 0;
}

/* The plan of this part from the layout. 0, or -1 with a message in err. */
static int make_plan(const mpirun_opts_t *o, const rdv_layout_t *l, const int *local_where,
                     mh_plan_t *p, char *err, size_t errlen)
{
    const mc_site_t *site = &o->mc.site[o->site];
    p->size = (int)l->size;
    p->first = (int)l->site[o->site].first;
    p->np = o->np;
    p->where = util_xmalloc((size_t)o->np * sizeof *p->where);
    for (int r = 0; r < o->np; r++)
        p->where[r] = site->first_host + local_where[r];
    /* the world: hosts numbered site after site, each site's as its part listed them */
    int *host_of = util_xmalloc((size_t)p->size * sizeof *host_of);
    int *site_of = util_xmalloc((size_t)p->size * sizeof *site_of);
    const char **names = util_xmalloc(l->nsites * sizeof *names);
    int hosts = 0;
    for (uint32_t s = 0; s < l->nsites; s++) {
        const rdv_site_t *t = &l->site[s];
        for (uint32_t r = 0; r < t->nranks; r++) {
            host_of[t->first + r] = hosts + (int)rdv_u32s_at(&t->rank_host, r);
            site_of[t->first + r] = (int)s;
        }
        hosts += (int)t->hosts.n;
        names[s] = t->name;
    }
    int rc = 0;
    p->mapping = placement_mapping(host_of, p->size, PMI_WIRE_VALLEN_MAX - 1);
    if (!p->mapping[0]) {
        /* without it every rank would ask every rank's host name: not possible across parts */
        snprintf(err, errlen, "the placement of the job's %d ranks on %d hosts does not fit in "
                 "PMI_process_mapping (%d characters), which a federated job needs; place the "
                 "ranks in fewer blocks (--map-by slot)", p->size, hosts,
                 PMI_WIRE_VALLEN_MAX - 1);
        rc = -1;
    }
    p->nkv = rc ? 0 : sitemap_encode((int)l->nsites, names, site_of, p->size,
                                     PMI_WIRE_VALLEN_MAX - 1, &p->kv);
    if (p->nkv < 0) {
        snprintf(err, errlen, "cannot encode the site layout of the job");  /* checked input */
        p->nkv = 0;
        rc = -1;
    }
    if (rc == 0 && gateways_wanted(o)) {
        /* this site's gateway, told every site's address as the site itself reported it */
        char **addr = util_xmalloc(l->nsites * sizeof *addr);
        for (uint32_t s = 0; s < l->nsites; s++) {
            addr[s] = (char *)l->site[s].gateway;
            if (!*addr[s] && rc == 0) {
                snprintf(err, errlen, "site '%s' reported no gateway address", l->site[s].name);
                rc = -1;
            }
        }
        /* cannot fail: part_run checked that the gateway host runs ranks */
        if (rc == 0 && gateways_plan_part(o, p->size, site_of, addr, p->where, p->np, &p->gw,
                                          &p->kv, &p->nkv) != 0) {
            snprintf(err, errlen, "the site's gateway cannot be planned");
            rc = -1;
        }
        free(addr);
    }
    free(host_of);
    free(site_of);
    free(names);
    return rc;
}

int part_run(const mpirun_opts_t *opts)
{
    const mc_site_t *site = &opts->mc.site[opts->site];
    char err[2048];
    auth_key_t key;
    if (rdv_key_load(opts->key_file, &key, err, sizeof err) != 0) {
        util_msg("%s", err);
        return 1;
    }
    /* this site's ranks on this site's hosts */
    hostlist_t sub = { .h = opts->hosts.h + site->first_host, .n = site->nhosts };
    int *local_where = util_xmalloc((size_t)opts->np * sizeof *local_where);
    placement_place(&sub, opts->np, opts->map_by_node, local_where);
    uint32_t *rank_host = util_xmalloc((size_t)opts->np * sizeof *rank_host);
    for (int r = 0; r < opts->np; r++)
        rank_host[r] = (uint32_t)local_where[r];
    const char **hosts = util_xmalloc((size_t)site->nhosts * sizeof *hosts);
    for (int h = 0; h < site->nhosts; h++)
        hosts[h] = sub.h[h].name;
    const char **sites = util_xmalloc((size_t)opts->mc.nsites * sizeof *sites);
    for (int s = 0; s < opts->mc.nsites; s++)
        sites[s] = opts->mc.site[s].name;
    char gateway[NET_ADDR_TEXT] = "";
    if (site->has_wan)
        snprintf(gateway, sizeof gateway, "%s", site->wan);
    if (gateways_wanted(opts)) {  /* before joining: the other sites would wait for it */
        int runs = 0;
        for (int r = 0; r < opts->np; r++)
            runs |= local_where[r] + site->first_host == site->gateway;
        if (!runs) {
            util_msg("site '%s': its gateway host '%s' runs none of the %d ranks of this part; "
                     "give the site's gateway a host that runs ranks (gateway = HOST), or more "
                     "ranks", site->name, opts->hosts.h[site->gateway].name, opts->np);
            free(local_where);
            free(rank_host);
            free(hosts);
            free(sites);
            return 1;
        }
    }
    char wan[RDV_WAN_MAX + 1];
    rdv_wan_text(opts->mc.streams, mc_compression_name(opts->mc.compression),
                 opts->mc.congestion, !opts->mc.plaintext, mc_outage(&opts->mc), wan,
                 sizeof wan);
    part_opts = opts;
    rdv_request_t req = { .job = opts->job_id, .site = opts->site_name, .sites = sites,
                          .nsites = (uint32_t)opts->mc.nsites, .wan = wan,
                          .nranks = (uint32_t)opts->np,
                          .hosts = hosts, .nhosts = (uint32_t)site->nhosts,
                          .rank_host = rank_host, .gateway = gateway,
                          .waiting = say_waiting };
    if (opts->mc.rdv_x509[MC_CERT]) {
        /* [rendezvous]: this part shows its site's certificate and checks the server's
         * against its site's CA (and CRLs) */
        const mc_site_t *st = site;
        if (net_secure_x509_load(st->x509[MC_CERT], st->x509[MC_KEY], st->x509[MC_CA],
                                 st->x509[MC_CRL], err, sizeof err) != 0) {
            util_msg("site %s of job %s: X.509 for the rendezvous ([site %s] cert, key, ca%s): "
                     "%s; nothing was started", opts->site_name, opts->job_id, st->name,
                     st->x509[MC_CRL] ? ", crl" : "", err);
            free(local_where);
            free(rank_host);
            free(hosts);
            free(sites);
            return 1;
        }
        req.x509 = 1;
    }

    int status = 1;
    int sigfd = job_setup_signals();
    if (sigfd < 0) {
        util_msg("cannot set up signal handling: %s", strerror(errno));
        goto out;
    }
    rdv_result_t res;
    rdv_link_t *link = NULL;
    int signo = 0;
    auth_key_t rdv_key;
    int rc = RDV_CLIENT_FAIL;
    if (auth_derive(&key, AUTH_RENDEZVOUS, &rdv_key) != 0)
        snprintf(err, sizeof err, "cannot derive the rendezvous key from the job key");
    else
        rc = rdv_client_join(opts->rendezvous, &rdv_key, &req, PART_CONNECT_WAIT_MS, sigfd,
                             &res, &signo, &link, err, sizeof err);
    close(sigfd);
    if (rc == RDV_CLIENT_SIGNAL) {
        util_msg("received signal %d (%s) while site %s of job %s waited at the rendezvous; "
                 "nothing was started", signo, strsignal(signo), opts->site_name,
                 opts->job_id);
        status = 128 + signo;
        goto out;
    }
    if (rc != RDV_CLIENT_OK) {
        util_msg("site %s of job %s: %s; nothing was started", opts->site_name, opts->job_id,
                 err);
        goto out;
    }
    mh_plan_t plan;
    memset(&plan, 0, sizeof plan);
    auth_key_to_hex(&key, plan.key);
    plan.rdv = link;   /* kept while the part runs, for spawning (mh_fed.c) */
    if (check_layout(opts, res.l, rank_host, err, sizeof err) != 0 ||
        make_plan(opts, res.l, local_where, &plan, err, sizeof err) != 0) {
        util_msg("site %s of job %s: %s; nothing was started", opts->site_name, opts->job_id,
                 err);
    } else {
        status = multihost_exec(opts, &plan);
    }
    rdv_result_free(&res);
    rdv_link_close(link);
    gateways_free(opts, &plan.gw);
    sitemap_free_kv(plan.kv, plan.nkv);
    free(plan.where);
    free(plan.mapping);
out:
    free(local_where);
    free(rank_host);
    free(hosts);
    free(sites);
    return status;
}
