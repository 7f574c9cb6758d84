/*
 * Option syntax follows Open MPI where it matters to scripts: long options are accepted
 * with one or two dashes (-np, --np, -tag-output, --tag-output, ...), "--" ends the
 * options, and the first argument that is not an option is the program; everything after
 * it belongs to the program.
 */
#include "options.h"

#include "exec_prefix.h"
#include "net/sock.h"
#include "rdv_client.h"
#include "runtime/tunables.h"
#include "slurm_alloc.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef METAMPI_VERSION_STRING
#define METAMPI_VERSION_STRING "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: mpirun [options] program [args...]\n"
            "Starts N copies of program as the ranks of one MPI job, on this host, on the\n"
            "hosts given by --host or --hostfile, or on the sites of --metacomputer. Inside\n"
            "a Slurm allocation (salloc, sbatch) without them: on the allocation's hosts,\n"
            "started through srun (docs/slurm.md).\n"
            "\n"
            "Options:\n"
            "  -n, -np, -c N        number of ranks (default 1, or the hosts' slots)\n"
            "  -x VAR               export VAR from mpirun's environment to the ranks\n"
            "  -x VAR=value         set VAR=value in the ranks' environment\n"
            "  --tag-output         prefix each output line with [1,rank]<stdout>: or <stderr>:\n"
            "  --bind-to WHAT       bind each rank to a core (rank r to the r-th core mpirun\n"
            "                       may use), a hwthread, its core's package (= socket), or\n"
            "                       none. Default: core if there are at least as many cores\n"
            "                       as ranks, else none\n"
            "  --oversubscribe      with --bind-to core/hwthread/package, allow more ranks\n"
            "                       than cores (hwthreads) and bind them round-robin\n"
            "  --report-bindings    print each rank's binding to stderr before it starts\n"
            "  --report             at the end, print where the traffic went (per level,\n"
            "                       site pair and rank pair), the time ranks waited on each\n"
            "                       level and the gateways' compression (docs/report.md)\n"
            "  --report-file FILE   write the same as JSON to FILE\n"
            "  --host LIST          run on these hosts: NAME[:SLOTS],... (a name without\n"
            "                       :SLOTS is one slot; a repeated name adds slots)\n"
            "  --hostfile FILE      the hosts, one per line: NAME, NAME slots=N or NAME:N\n"
            "                       ('#' comments); also --machinefile\n"
            "  --map-by slot|node   fill each host's slots in turn (slot, the default) or deal\n"
            "                       the ranks round-robin over the hosts (node)\n"
            "  --metacomputer FILE  run on the sites described in FILE (INI: [site NAME] with\n"
            "                       hosts = NAME[:SLOTS],...; see docs/metacomputer.md). Ranks\n"
            "                       fill the sites in order (--map-by applies within a site)\n"
            "  --direct-wan         ranks at different sites connect directly over TCP, not\n"
            "                       through the site gateways (each site's 'wan' address)\n"
            "  --rendezvous HOST:PORT  start one site of a federated job: join the\n"
            "                       metampi-rendezvous server there, wait until every site of\n"
            "                       --metacomputer has joined, then run this site's ranks\n"
            "                       (-n: its rank count, default its slots). Needs --site and\n"
            "                       --job; see docs/metacomputer.md, \"Federated start\"\n"
            "  --site NAME          the site of the description this part runs\n"
            "  --job ID             the job's name at the rendezvous (the server's --job)\n"
            "  --key-file FILE      the job key shared with the server and the other sites\n"
            "                       (default: $METAMPI_JOB_KEY)\n"
            "  --if LIST            network interfaces or subnets for TCP between hosts\n"
            "                       (eth1,10.1.0.0/16; sets METAMPI_TCP_IF for the ranks)\n"
            "  --port-range LO-HI   the ports the ranks listen on for TCP between hosts (and,\n"
            "                       with --direct-wan, between sites), for a firewall; sets\n"
            "                       METAMPI_TCP_PORTS for the ranks (docs/metacomputer.md)\n"
            "  --launch-agent CMD   command that starts the helper on another host (default\n"
            "                       ssh; srun in a Slurm allocation), split on blanks; {host}\n"
            "                       is replaced by the host name,\n"
            "                       else the name is appended. localhost and this host's own\n"
            "                       name need no agent\n"
            "  --exec-prefix CMD    start every rank through CMD (words split on blanks, e.g.\n"
            "                       \"qemu-s390x\", \"numactl -l\", \"valgrind -q\"); default\n"
            "                       $METAMPI_EXEC_PREFIX; a site's exec_prefix in the\n"
            "                       metacomputer description replaces it for that site\n"
            "  --version            print the version and exit\n"
            "  -h, --help           print this help and exit\n"
            "  --                   end of options\n"
            "\n"
            "Long options may be written with one or two dashes. Rank 0 receives mpirun's\n"
            "standard input; the other ranks read /dev/null. With hosts, more ranks than\n"
            "slots needs --oversubscribe.\n");
}

/* Matches arg against a long option name given with one or two dashes. */
static int is_long(const char *arg, const char *name)
{
    if (arg[0] != '-')
        return 0;
    arg += (arg[1] == '-') ? 2 : 1;
    return strcmp(arg, name) == 0;
}

static int parse_np(const char *s, int *np)
{
    if (!s) {
        util_msg("option -n requires a number of ranks");
        return -1;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > MPIRUN_MAX_RANKS) {
        util_msg("invalid number of ranks '%s' (expected an integer from 1 to %d)", s,
                 MPIRUN_MAX_RANKS);
        return -1;
    }
    *np = (int)v;
    return 0;
}

/* The value of a rank-count option written in one word, or NULL. */
static const char *np_attached(const char *a)
{
    static const char *const forms[] = { "--np=", "-np=", "--n=", "-n=", "-c=", "-np", "-n", "-c" };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        size_t l = strlen(forms[i]);
        if (strncmp(a, forms[i], l) == 0 && a[l] != '\0' &&
            (forms[i][l - 1] == '=' || (a[l] >= '0' && a[l] <= '9')))
            return a + l;
    }
    return NULL;
}

static int parse_bind(const char *s, mpirun_bind_t *bind)
{
    static const struct { const char *name; mpirun_bind_t v; } values[] = {
        { "none", MPIRUN_BIND_NONE }, { "core", MPIRUN_BIND_CORE },
        { "hwthread", MPIRUN_BIND_HWTHREAD }, { "package", MPIRUN_BIND_PACKAGE },
        { "socket", MPIRUN_BIND_PACKAGE },
    };
    if (!s) {
        util_msg("option --bind-to requires a value (none, core, hwthread, package or socket)");
        return -1;
    }
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        if (strcmp(s, values[i].name) == 0) {
            *bind = values[i].v;
            return 0;
        }
    }
    util_msg("invalid --bind-to value '%s' (valid values: none, core, hwthread, package, socket)",
             s);
    return -1;
}

/* The value of a long option written as -name=value or --name=value, or NULL. */
static const char *long_value(const char *arg, const char *name)
{
    if (arg[0] != '-')
        return NULL;
    arg += (arg[1] == '-') ? 2 : 1;
    size_t l = strlen(name);
    return strncmp(arg, name, l) == 0 && arg[l] == '=' ? arg + l + 1 : NULL;
}

static int valid_env_name(const char *s)
{
    size_t n = strcspn(s, "=");
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (i > 0 && c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}

/* The value of option `name` given as "--name value" or "--name=value" at argv[*i]
 * (advancing *i past a separate value), or NULL if argv[*i] is not that option. *missing is
 * set when the option has no value. */
static const char *option_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    const char *v = long_value(argv[*i], name);
    if (v)
        return v;
    if (!is_long(argv[*i], name))
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return "";
    }
    return argv[++*i];
}

/* --metacomputer FILE: the sites, their hosts as the job's host list. */
/* The launch agent unless --launch-agent names one (compared by address: a Slurm allocation
 * replaces only this default). */
static const char default_agent[] = "ssh";

static int finish_sites(mpirun_opts_t *o, const char *host_arg, const char *hostfile)
{
    char err[1024];
    if (host_arg || hostfile) {
        util_msg("--metacomputer cannot be combined with --host or --hostfile (the description "
                 "names the hosts of every site)");
        return -1;
    }
    if (mc_read_file(o->metacomputer, &o->mc, err, sizeof err) != 0) {
        util_msg("%s", err);
        return -1;
    }
    if (o->mc.nsites > 1 && !o->direct_wan) {
        /* gateway mode: each site's gateway listens on its WAN address; a part of a
         * federated job runs only its own site's gateway and learns the others' addresses
         * at the rendezvous */
        for (int s = 0; s < o->mc.nsites; s++)
            if (!o->mc.site[s].has_wan &&
                (!o->rendezvous || strcmp(o->mc.site[s].name, o->site_name ? o->site_name
                                                                            : "") == 0)) {
                util_msg("metacomputer '%s', line %d: site '%s' needs 'wan = IPv4:PORT' or "
                         "'wan = [IPv6]:PORT', the address its gateway listens on%s",
                         o->metacomputer, o->mc.site[s].line, o->mc.site[s].name,
                         o->rendezvous ? "" : " (or use --direct-wan: ranks at different sites "
                                              "connect directly)");
                return -1;
            }
    }
    o->hosts = o->mc.hosts;
    o->mc.hosts = (hostlist_t){ 0 };
    return 0;
}

/* --rendezvous and its companions: a part of a federated job (checked before the hosts). */
static int finish_part(mpirun_opts_t *o)
{
    const char *lone = o->site_name ? "--site" : o->job_id ? "--job" : o->key_file ?
                       "--key-file" : NULL;
    if (!o->rendezvous) {
        if (lone)
            util_msg("%s applies to one site of a federated job: give --rendezvous HOST:PORT "
                     "(and --metacomputer, --site, --job) too", lone);
        return lone ? -1 : 0;
    }
    char host[256], port[8];
    if (rdv_split_hostport(o->rendezvous, host, sizeof host, port, sizeof port, 1) != 0) {
        util_msg("invalid --rendezvous '%s' (expected HOST:PORT, port 1-65535)", o->rendezvous);
        return -1;
    }
    if (!o->metacomputer || !o->site_name || !o->job_id) {
        util_msg("--rendezvous needs %s (every part and the server share the description; "
                 "see docs/metacomputer.md, \"Federated start\")",
                 !o->metacomputer ? "--metacomputer FILE" : !o->site_name ?
                 "--site NAME (the site this mpirun starts)" : "--job ID (the server's --job)");
        return -1;
    }
    if (o->direct_wan) {
        util_msg("--direct-wan cannot be used with --rendezvous: each site's part has its own "
                 "key-value space, so ranks cannot learn the addresses of other sites' ranks; "
                 "a federated job's traffic between sites goes through the site gateways");
        return -1;
    }
    if (!rdv_valid_name(o->job_id)) {
        util_msg("invalid --job '%s' (expected 1 to %d letters, digits, '.', '-' or '_')",
                 o->job_id, RDV_NAME_MAX);
        return -1;
    }
    char err[200];   /* before joining: the other sites would wait for this one in vain */
    if (tun_check(TUN_FED_TIMEOUT, err, sizeof err) != 0) {
        util_msg("%s", err);
        return -1;
    }
    return 0;
}

/* The site of a part, once the description is read. */
static int find_site(mpirun_opts_t *o)
{
    for (int s = 0; s < o->mc.nsites; s++)
        if (strcmp(o->mc.site[s].name, o->site_name) == 0) {
            o->site = s;
            return 0;
        }
    char names[1024];
    size_t len = 0;
    names[0] = '\0';
    for (int s = 0; s < o->mc.nsites && len + 80 < sizeof names; s++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", s ? ", " : "",
                                o->mc.site[s].name);
    util_msg("--site '%s' is not a site of metacomputer '%s' (its sites: %s)", o->site_name,
             o->metacomputer, names);
    return -1;
}

/* "METAMPI_WAN_X509=SITE=CERT,KEY,CA[,CRL];...": every site's certificate files, for the
 * ranks' --direct-wan TLS (transport/tcp/wan_x509.c picks its own site's). NULL after a
 * message when a name or path holds a separator of that format. */
static char *wan_x509_setting(const metacomputer_t *mc)
{
    size_t len = sizeof "METAMPI_WAN_X509=";
    for (int s = 0; s < mc->nsites; s++) {
        const char *parts[5] = { mc->site[s].name, mc->site[s].x509[MC_CERT],
                                 mc->site[s].x509[MC_KEY], mc->site[s].x509[MC_CA],
                                 mc->site[s].x509[MC_CRL] ? mc->site[s].x509[MC_CRL] : "" };
        for (int k = 0; k < 5; k++) {
            if (strpbrk(parts[k], k == 0 ? "=,;" : ",;")) {
                util_msg("--direct-wan with certificates: %s '%s' of site '%s' holds one of "
                         "'%s' (the ranks get the files as SITE=CERT,KEY,CA[,CRL];...): rename "
                         "it",
                         k == 0 ? "the name" : "the path", parts[k], mc->site[s].name,
                         k == 0 ? "=,;" : ",;");
                return NULL;
            }
            len += strlen(parts[k]) + 1;
        }
    }
    char *v = util_xmalloc(len);
    size_t n = (size_t)sprintf(v, "METAMPI_WAN_X509=");
    for (int s = 0; s < mc->nsites; s++)
        n += (size_t)sprintf(v + n, "%s%s=%s,%s,%s%s%s", s ? ";" : "", mc->site[s].name,
                             mc->site[s].x509[MC_CERT], mc->site[s].x509[MC_KEY],
                             mc->site[s].x509[MC_CA], mc->site[s].x509[MC_CRL] ? "," : "",
                             mc->site[s].x509[MC_CRL] ? mc->site[s].x509[MC_CRL] : "");
    return v;
}

/* After the options: the hosts, and -n checked against their slots. */
static int finish_hosts(mpirun_opts_t *o, const char *host_arg, const char *hostfile,
                        int np_given)
{
    char err[1024];
    if (finish_part(o) != 0)
        return -1;
    if (o->direct_wan && !o->metacomputer) {
        util_msg("--direct-wan applies to jobs on several sites: give them with --metacomputer "
                 "FILE");
        return -1;
    }
    if (o->metacomputer) {
        if (finish_sites(o, host_arg, hostfile) != 0 || (o->rendezvous && find_site(o) != 0))
            return -1;
        /* the ranks' own TLS between sites (a slot is spare: -x and --if take two arguments;
         * the description refuses certificates with encrypt = off, so one of the two) */
        if (o->direct_wan && o->mc.plaintext)
            o->xvars[o->nx++] = (char *)"METAMPI_WAN_ENCRYPT=0";
        else if (o->direct_wan && o->mc.nsites && o->mc.site[0].x509[MC_CERT]) {
            if (!(o->wan_x509_env = wan_x509_setting(&o->mc)))
                return -1;
            o->xvars[o->nx++] = o->wan_x509_env;
        }
    } else if (host_arg && hostfile) {
        util_msg("--host and --hostfile cannot be combined (give the hosts in one of them)");
        return -1;
    }
    if (hostfile && hostlist_read_file(&o->hosts, hostfile, err, sizeof err) != 0) {
        util_msg("%s", err);
        return -1;
    }
    int from_slurm = 0;
    if (slurm_alloc_present()) {
        from_slurm = !o->metacomputer && !host_arg && !hostfile;
        if (from_slurm && slurm_alloc_hosts(&o->hosts, err, sizeof err) != 0) {
            util_msg("%s", err);
            return -1;
        }
        if (o->launch_agent == default_agent)
            o->launch_agent = SLURM_LAUNCH_AGENT;
    }
    o->nhosts = o->hosts.n;
    if (!o->nhosts)
        return 0;
    long slots = hostlist_slots(&o->hosts);
    if (o->rendezvous) {  /* a part: its site's ranks on its site's hosts */
        const mc_site_t *t = &o->mc.site[o->site];
        slots = 0;
        for (int h = t->first_host; h < t->first_host + t->nhosts; h++)
            slots += o->hosts.h[h].slots;
    }
    if (!np_given)
        o->np = slots > MPIRUN_MAX_RANKS ? MPIRUN_MAX_RANKS : (int)slots;
    if (o->np > slots && !o->oversubscribe) {
        char where[1200] = "";
        if (o->rendezvous)
            snprintf(where, sizeof where, " of site '%s' in metacomputer '%s'", o->site_name,
                     o->metacomputer);
        else if (o->metacomputer)
            snprintf(where, sizeof where, " of %d site%s in metacomputer '%s'", o->mc.nsites,
                     o->mc.nsites == 1 ? "" : "s", o->metacomputer);
        else if (from_slurm)
            snprintf(where, sizeof where, " of the Slurm allocation (its tasks per node: %.200s)",
                     getenv("SLURM_TASKS_PER_NODE") ? getenv("SLURM_TASKS_PER_NODE")
                                                    : getenv("SLURM_JOB_CPUS_PER_NODE"));
        int nh = o->rendezvous ? o->mc.site[o->site].nhosts : o->nhosts;
        util_msg("%d ranks but only %ld slot%s on %d host%s%s (use --oversubscribe to place "
                 "more ranks than slots, or give more slots)", o->np, slots,
                 slots == 1 ? "" : "s", nh, nh == 1 ? "" : "s", where);
        return -1;
    }
    return 0;
}

int options_parse(int argc, char **argv, mpirun_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->np = 1;
    o->launch_agent = default_agent;
    const char *host_arg = NULL, *hostfile = NULL, *v;
    int np_given = 0, missing = 0;
    char err[1024];
    o->xvars = util_xmalloc((size_t)argc * sizeof *o->xvars);
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break;
        const char *attached = np_attached(a);
        if (attached) {  /* -n4, -np4, --np=4, -n=4 */
            if (parse_np(attached, &o->np) != 0)
                return OPTIONS_ERROR;
            np_given = 1;
        } else if (strcmp(a, "-n") == 0 || is_long(a, "np") || strcmp(a, "-c") == 0 ||
                   strcmp(a, "--n") == 0) {
            if (parse_np(i + 1 < argc ? argv[i + 1] : NULL, &o->np) != 0)
                return OPTIONS_ERROR;
            np_given = 1;
            i++;
        } else if ((v = option_value(argc, argv, &i, "host", &missing)) ||
                   (v = option_value(argc, argv, &i, "H", &missing))) {
            if (missing) {
                util_msg("option --host requires a list of hosts (NAME[:SLOTS],...)");
                return OPTIONS_ERROR;
            }
            if (hostlist_add_arg(&o->hosts, v, err, sizeof err) != 0) {
                util_msg("%s", err);
                return OPTIONS_ERROR;
            }
            host_arg = v;
        } else if ((v = option_value(argc, argv, &i, "hostfile", &missing)) ||
                   (v = option_value(argc, argv, &i, "machinefile", &missing))) {
            if (missing) {
                util_msg("option --hostfile requires a file name");
                return OPTIONS_ERROR;
            }
            if (hostfile) {
                util_msg("--hostfile given twice ('%s' and '%s'); give one file", hostfile, v);
                return OPTIONS_ERROR;
            }
            hostfile = v;
        } else if ((v = option_value(argc, argv, &i, "metacomputer", &missing))) {
            if (missing || !*v) {
                util_msg("option --metacomputer requires a file name");
                return OPTIONS_ERROR;
            }
            if (o->metacomputer) {
                util_msg("--metacomputer given twice ('%s' and '%s'); give one description",
                         o->metacomputer, v);
                return OPTIONS_ERROR;
            }
            o->metacomputer = v;
        } else if (is_long(a, "direct-wan")) {
            o->direct_wan = 1;
        } else if ((v = option_value(argc, argv, &i, "rendezvous", &missing)) ||
                   (v = option_value(argc, argv, &i, "site", &missing)) ||
                   (v = option_value(argc, argv, &i, "job", &missing)) ||
                   (v = option_value(argc, argv, &i, "key-file", &missing))) {
            /* the option's name, as option_value matched it */
            const char *name = long_value(a, "rendezvous") || is_long(a, "rendezvous") ?
                               "rendezvous" : long_value(a, "site") || is_long(a, "site") ?
                               "site" : long_value(a, "job") || is_long(a, "job") ? "job" :
                               "key-file";
            const char **slot = name[0] == 'r' ? &o->rendezvous : name[0] == 's' ?
                                &o->site_name : name[0] == 'j' ? &o->job_id : &o->key_file;
            if (missing || !*v) {
                util_msg("option --%s requires a value (%s)", name, name[0] == 'r' ?
                         "HOST:PORT" : name[0] == 's' ? "a site name" : name[0] == 'j' ?
                         "a job ID" : "a file name");
                return OPTIONS_ERROR;
            }
            if (*slot) {
                util_msg("--%s given twice ('%s' and '%s')", name, *slot, v);
                return OPTIONS_ERROR;
            }
            *slot = v;
        } else if ((v = option_value(argc, argv, &i, "map-by", &missing))) {
            if (strcmp(v, "slot") == 0 || strcmp(v, "node") == 0) {
                o->map_by_node = v[0] == 'n';
            } else {
                if (missing)
                    util_msg("option --map-by requires a value (slot or node)");
                else
                    util_msg("invalid --map-by value '%s' (valid values: slot, node)", v);
                return OPTIONS_ERROR;
            }
        } else if ((v = option_value(argc, argv, &i, "launch-agent", &missing))) {
            if (missing || !v[strspn(v, " \t")]) {
                util_msg("option --launch-agent requires a command (e.g. \"ssh\" or "
                         "\"ip netns exec {host}\")");
                return OPTIONS_ERROR;
            }
            o->launch_agent = v;
        } else if ((v = option_value(argc, argv, &i, "exec-prefix", &missing))) {
            if (missing) {
                util_msg("option --exec-prefix requires a command (e.g. \"qemu-s390x\" or "
                         "\"numactl -l\")");
                return OPTIONS_ERROR;
            }
            o->exec_prefix = v;
        } else if ((v = option_value(argc, argv, &i, "if", &missing))) {
            if (missing || !*v) {
                util_msg("option --if requires interfaces or subnets (e.g. eth1 or "
                         "10.1.0.0/16, comma-separated)");
                return OPTIONS_ERROR;
            }
            if (o->tcp_if_env) {
                util_msg("--if given twice; give one comma-separated list");
                return OPTIONS_ERROR;
            }
            size_t n = strlen("METAMPI_TCP_IF=") + strlen(v) + 1;
            o->tcp_if_env = util_xmalloc(n);
            snprintf(o->tcp_if_env, n, "METAMPI_TCP_IF=%s", v);
            o->xvars[o->nx++] = o->tcp_if_env;
        } else if ((v = option_value(argc, argv, &i, "port-range", &missing))) {
            int lo, hi;
            if (missing || net_port_range_parse(v, &lo, &hi) != 0) {
                util_msg("option --port-range requires LO-HI, ports from 1 to 65535 (e.g. "
                         "42000-42999)");
                return OPTIONS_ERROR;
            }
            if (o->tcp_ports_env) {
                util_msg("--port-range given twice");
                return OPTIONS_ERROR;
            }
            size_t n = strlen("METAMPI_TCP_PORTS=") + strlen(v) + 1;
            o->tcp_ports_env = util_xmalloc(n);
            snprintf(o->tcp_ports_env, n, "METAMPI_TCP_PORTS=%s", v);
            o->xvars[o->nx++] = o->tcp_ports_env;
        } else if (strcmp(a, "-x") == 0 || strcmp(a, "--x") == 0) {
            if (i + 1 >= argc) {
                util_msg("option -x requires VAR or VAR=value");
                return OPTIONS_ERROR;
            }
            if (!valid_env_name(argv[i + 1])) {
                util_msg("invalid environment variable name in -x '%s'", argv[i + 1]);
                return OPTIONS_ERROR;
            }
            o->xvars[o->nx++] = argv[++i];
        } else if (is_long(a, "tag-output")) {
            o->tag_output = 1;
        } else if (is_long(a, "oversubscribe")) {
            o->oversubscribe = 1;
        } else if (is_long(a, "bind-to")) {
            if (parse_bind(i + 1 < argc ? argv[i + 1] : NULL, &o->bind) != 0)
                return OPTIONS_ERROR;
            i++;
        } else if (long_value(a, "bind-to")) {  /* --bind-to=core */
            if (parse_bind(long_value(a, "bind-to"), &o->bind) != 0)
                return OPTIONS_ERROR;
        } else if (is_long(a, "report-bindings")) {
            o->report_bindings = 1;
        } else if (is_long(a, "report")) {
            o->report = 1;
        } else if ((v = option_value(argc, argv, &i, "report-file", &missing))) {
            if (missing || !*v) {
                util_msg("option --report-file requires a file name");
                return OPTIONS_ERROR;
            }
            if (o->report_file) {
                util_msg("--report-file given twice ('%s' and '%s')", o->report_file, v);
                return OPTIONS_ERROR;
            }
            o->report_file = v;
        } else if (is_long(a, "version") || strcmp(a, "-V") == 0) {
            printf("mpirun (metampi) %s\n", METAMPI_VERSION_STRING);
            return OPTIONS_EXIT_OK;
        } else if (strcmp(a, "-h") == 0 || is_long(a, "help")) {
            usage(stdout);
            return OPTIONS_EXIT_OK;
        } else {
            util_msg("unknown option '%s' (see mpirun --help)", a);
            return OPTIONS_ERROR;
        }
    }
    if (i >= argc) {
        util_msg("no program given (usage: mpirun [options] program [args...])");
        return OPTIONS_ERROR;
    }
    o->user_argv = &argv[i];
    if (o->report || o->report_file) /* the ranks count per destination (core/traffic.h) */
        o->xvars[o->nx++] = (char *)"METAMPI_REPORT=1";
    if (!o->exec_prefix) {
        const char *env = tun_string(TUN_EXEC_PREFIX);
        o->exec_prefix = env && *env ? env : NULL;
    }
    char why[160];
    if (o->exec_prefix && exec_prefix_check(o->exec_prefix, why, sizeof why) != 0) {
        util_msg("invalid exec prefix '%s': %s", o->exec_prefix, why);
        return OPTIONS_ERROR;
    }
    o->prog_argv = exec_prefix_argv(o->exec_prefix, o->user_argv);
    if (finish_hosts(o, host_arg, hostfile, np_given) != 0)
        return OPTIONS_ERROR;
    return OPTIONS_RUN;
}

void options_free(mpirun_opts_t *o)
{
    free(o->xvars);
    o->xvars = NULL;
    free(o->prog_argv);
    o->prog_argv = NULL;
    free(o->tcp_if_env);
    o->tcp_if_env = NULL;
    free(o->tcp_ports_env);
    o->tcp_ports_env = NULL;
    free(o->wan_x509_env);
    o->wan_x509_env = NULL;
    hostlist_free(&o->hosts);
    o->nhosts = 0;
    mc_free(&o->mc);
}
