/*
 * The site gateway (metampi-gateway) that this helper runs when its host is the site's
 * gateway host: started beside the ranks with the JOB frame's arguments, ended with SIGTERM
 * (END from mpirun: every rank has exited) or killed in a teardown, and reported like a rank
 * when it fails: its one-line report comes through a pipe (its --report-fd 3).
 *
 * The gateway leads its own process group, dies with the helper (PR_SET_PDEATHSIG), gets the
 * job key in its environment (METAMPI_JOB_KEY), never on its command line.
 */
#ifndef HOSTD_GWPROC_H
#define HOSTD_GWPROC_H

#include "ctl.h"

#include <stddef.h>
#include <sys/types.h>

typedef struct gwproc {
    pid_t pid;                /* 0: none */
    int report_fd;            /* read end of its report pipe */
    int control_fd;           /* our end of its control socket (its stdin, --control-fd 0:
                               * ranks spawned later, gwgrow.h), or -1 */
    int reaped, status;
    int stopping;             /* SIGTERM sent on purpose */
} gwproc_t;

/* Starts the gateway beside this program; 0, or -1 with a message in err. */
int gwproc_start(gwproc_t *g, ctl_strs_t args, const char *key_hex, char *err, size_t errlen);
void gwproc_signal(gwproc_t *g, int sig);
/* Most a gateway's report pipe is read (its counters: one line per WAN link). */
#define GWPROC_REPORT_MAX (256u << 10)
/* Its exit (status from waitpid). Returns 1 when it is a failure to report, with the report
 * in text; 0 for an end on purpose. *stats: its counters' lines (--stats on; malloc'ed), or
 * NULL. */
int gwproc_exited(gwproc_t *g, int status, const char *host, char *text, size_t cap,
                  char **stats);
void gwproc_close(gwproc_t *g);

#endif
