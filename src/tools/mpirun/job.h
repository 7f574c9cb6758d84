/*
 * Job-level policy of mpirun, for a job on one host (local.c) and on several (multihost.c):
 * decides when the job is over, prints the one report about why it ended, and chooses
 * mpirun's exit status. The runners report events here and do the teardown they are told to
 * (the `terminate` callback).
 *
 * Policy:
 *   - the job is condemned by the first of: a rank killed by a signal, a rank exiting with a
 *     non-zero code, a rank that initialised PMI exiting without finalize, a PMI abort, an
 *     invalid PMI command, a rank that cannot be started, a host whose helper is lost or
 *     cannot be started, or SIGINT/SIGTERM/SIGHUP to mpirun;
 *   - exactly one message is printed, about that first cause; everything that happens to the
 *     ranks afterwards (including their deaths from the teardown) is not reported;
 *   - the exit status is fixed by the first cause (0 if there is none);
 *   - a condemned job is torn down on the schedule in teardown.h; a second signal to mpirun
 *     skips the grace period (SIGKILL at once).
 *
 * The binding policy is per host: hostpolicy.h.
 */
#ifndef MPIRUN_JOB_H
#define MPIRUN_JOB_H

#include "gateways.h"
#include "options.h"
#include "pmi_server.h"
#include "net/auth.h"

#include <sys/types.h>

typedef struct job {
    int condemned;            /* the job is being torn down */
    int status;               /* exit status, fixed by the first cause */
    long long t_condemned;
    int kill_sent;            /* SIGKILL went out (escalation or impatient user) */
    /* Sends sig to every rank of the job (through the helpers on several hosts). */
    void (*terminate)(void *ctx, int sig);
    void *ctx;
} job_t;

void job_init(job_t *j, void (*terminate)(void *ctx, int sig), void *ctx);

/* Events. host: the host's name as the user gave it (the system's on one host). */
void job_rank_exited(job_t *j, int rank, const char *host, pid_t pid, int status, int inited,
                     int finalized);
void job_rank_aborted(job_t *j, int rank, const char *host, pid_t pid, int exitcode,
                      const char *msg);
void job_pmi_failed(job_t *j, int rank, const char *host, pid_t pid, enum pmi_fail_kind kind,
                    const char *detail);
/* SIGINT, SIGTERM or SIGHUP to mpirun. */
void job_signal(job_t *j, int sig);
/* Any other cause (launch errors, lost helpers): "mpirun: <text>" if it is the first; the
 * ranks get SIGTERM (SIGKILL when kill_at_once: nothing of the job is worth waiting for). */
void job_fail(job_t *j, int status, int kill_at_once, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Helpers of the runners. */
int job_setup_signals(void);   /* signalfd for SIGCHLD, SIGINT, SIGTERM, SIGHUP; -1: errno */
void job_make_kvsname(char *buf, size_t cap);
/* Milliseconds until deadline (at least 0), folded into the running minimum *t (-1: none). */
void job_fold_deadline(int *t, long long deadline, long long now);

/* Runs the job described by the options; returns mpirun's exit status. */
int job_run(const mpirun_opts_t *opts);
int local_run(const mpirun_opts_t *opts);      /* local.c: every rank on this host */
int multihost_run(const mpirun_opts_t *opts);  /* multihost.c: --host / --hostfile */
int part_run(const mpirun_opts_t *opts);       /* part.c: one site of a federated job */

/* What a run on several hosts starts (multihost_exec): the whole job's shape and this
 * mpirun's share of it. multihost_run makes it from the options (all ranks); a part of a
 * federated job from the layout the rendezvous handed out (its site's ranks). */
struct rdv_link;
typedef struct mh_plan {
    int size;              /* ranks in the job */
    int first, np;         /* this mpirun starts ranks first .. first + np - 1 */
    int *where;            /* np entries: the index in opts->hosts of each one's host */
    char *mapping;         /* PMI_process_mapping of the job's ranks ("": none) */
    char **kv;             /* initial PMI pairs (the site layout): key, value, ... */
    int nkv;               /* pairs */
    char key[AUTH_KEY_HEX + 1];  /* the job key */
    gw_plan_t gw;          /* the gateways this mpirun starts (gateway mode), or none */
    struct rdv_link *rdv;  /* a part of a federated job: its connection to the rendezvous
                            * server, kept for spawning (docs/dynproc.md, "Federated
                            * jobs"); NULL otherwise */
} mh_plan_t;

int multihost_exec(const mpirun_opts_t *opts, const mh_plan_t *plan);

#endif
