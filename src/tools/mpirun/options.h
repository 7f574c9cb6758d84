/*
 * Command line of mpirun: `mpirun [options] program [args...]`.
 * Parsing only; no side effects besides messages for help, version and errors.
 */
#ifndef MPIRUN_OPTIONS_H
#define MPIRUN_OPTIONS_H

#include "binding.h"
#include "hostlist.h"
#include "metacomputer.h"

typedef struct mpirun_opts {
    int np;              /* number of ranks, 1..MPIRUN_MAX_RANKS (default 1) */
    int tag_output;      /* --tag-output */
    int oversubscribe;   /* more ranks than cores: explicit binding wraps around */
    mpirun_bind_t bind;  /* --bind-to */
    int report_bindings; /* --report-bindings */
    int report;          /* --report: the traffic table at the end (report.h) */
    const char *report_file;  /* --report-file F: the same as JSON (points into argv) */
    char **xvars;        /* -x arguments in order: "VAR" or "VAR=value" (point into argv) */
    int nx;
    char **prog_argv;    /* what each rank runs: the exec prefix's words, then user_argv
                          * (owned, exec_prefix.h) */
    char **user_argv;    /* program and its arguments, NULL-terminated (points into argv) */
    const char *exec_prefix;  /* --exec-prefix, else METAMPI_EXEC_PREFIX; NULL: none */
    /* Jobs on several hosts (--host / --hostfile / --metacomputer); nhosts == 0: every rank
     * on this host. */
    hostlist_t hosts;
    int nhosts;          /* hosts.n */
    int map_by_node;     /* --map-by node (else slot) */
    const char *launch_agent;  /* --launch-agent (default "ssh") */
    char *tcp_if_env;    /* --if: "METAMPI_TCP_IF=..." (also in xvars), owned */
    char *tcp_ports_env; /* --port-range: "METAMPI_TCP_PORTS=LO-HI" (also in xvars), owned */
    char *wan_x509_env;  /* --direct-wan with certificates: "METAMPI_WAN_X509=..." (xvars), owned */
    /* --metacomputer FILE: the sites; their hosts are moved into `hosts` (mc.site[s]
     * .first_host indexes it, mc.host_site has an entry per host). nsites == 0: none. */
    const char *metacomputer;
    metacomputer_t mc;
    int direct_wan;      /* --direct-wan: ranks at different sites connect directly */
    /* --rendezvous HOST:PORT --site NAME --job ID [--key-file FILE]: this mpirun starts one
     * site of a federated job (part.c); site is NAME's index in mc. rendezvous NULL: not. */
    const char *rendezvous;
    const char *site_name;
    int site;
    const char *job_id;
    const char *key_file;
} mpirun_opts_t;

enum { OPTIONS_RUN = 0, OPTIONS_EXIT_OK = 1, OPTIONS_ERROR = 2 };

/* Returns OPTIONS_RUN, OPTIONS_EXIT_OK (help/version printed) or OPTIONS_ERROR (message
 * printed to stderr). */
int options_parse(int argc, char **argv, mpirun_opts_t *o);

void options_free(mpirun_opts_t *o);

#endif
