/*
 * mpirun's side of a job on several hosts, its own state and what its files share:
 * multihost.c runs a plan (the hosts, the loop, the end); mh_helpers.c the helpers (starting
 * each through its agent, its JOB frame, losing it, stdin to rank 0's helper); mh_frames.c the
 * frames a helper sends (one handler per frame type, the global PMI barrier). Nothing outside
 * these files includes this.
 */
#ifndef MPIRUN_MH_INT_H
#define MPIRUN_MH_INT_H

#include "job.h"

#include "agent.h"
#include "channel.h"
#include "evloop.h"
#include "heartbeat.h"
#include "iofwd.h"
#include "net/auth.h"

#include <sys/types.h>

#define AGENT_ERR_KEEP 1024         /* agent stderr kept before HELLO, for the report */

typedef struct mh mh_t;

typedef struct mhost {
    mh_t *mh;
    int index;                /* position in the host list (PMI_process_mapping) */
    const char *name;
    int *ranks;               /* global ranks, ascending */
    int nranks;
    int local;                /* started without agent */
    char **argv;
    char *agent_text;         /* the agent command, for messages */
    agent_t agent;
    int started;              /* the agent runs (pipes valid) */
    chan_t ch;
    iofwd_sink_t errsink;     /* the agent's stderr */
    ostream_t errs;
    char errtext[AGENT_ERR_KEEP];
    int hello, done, lost, in_barrier;
    int chan_ended;
    long long t_ended;        /* the channel ended before DONE */
    char **gw_args;           /* it runs its site's gateway with these arguments */
    int ngw_args;
} mhost_t;

struct mh {
    job_t job;
    ev_loop_t loop;
    int sigfd;
    const mpirun_opts_t *opts;
    const mh_plan_t *plan;
    mhost_t *host;            /* the hosts with a helper, room for every host of the list:
                               * host[0..nfirst-1] run the first ranks (and alone take part
                               * in node 0's barrier); later ones were started for spawned
                               * ranks (mh_late.c) */
    int nhost, nfirst;
    int *helper_of;           /* per host-list entry: its index into host[], or -1 */
    struct mh_late *late;     /* what starting a helper later needs (mh_late.c) */
    int *host_of;             /* our rank (global rank - plan->first) -> index into host[] */
    pid_t *pid;               /* per our rank, once it exited */
    unsigned char *departed, *finalized;
    int nbarrier;             /* hosts in the current barrier */
    int ndeparted;
    int gateways_ended;       /* END went to the gateways (every rank, first and spawned, exited) */
    char **kv;                /* the barrier's union: key, value, ... */
    size_t nkv, capkv;        /* strings */
    iofwd_sink_t out_sink, err_sink;
    mhost_t *stdin_host;      /* rank 0's host */
    int stdin_watched, stdin_done;
    size_t credit;            /* stdin bytes rank 0's helper can still take */
    char kvsname[64];
    char key[AUTH_KEY_HEX + 1];
    int peer_timeout;         /* METAMPI_PEER_TIMEOUT, seconds */
    int silence;              /* a helper and mpirun may be silent this long at least: the
                               * WAN outage the gateways survive, in a job of several sites */
    hb_t hb;
    long long t_start;        /* the helpers were started */
    long long t_progress;     /* the next "still waiting for hosts" line (mh_progress.c) */
    int all_up;               /* every helper said HELLO */
    int universe;             /* MPI_UNIVERSE_SIZE: the host list's slots, at least size */
    struct mh_spawn *spawn;   /* the parts MPI_Comm_spawn started (mh_spawn.h); NULL: the
                               * job cannot spawn */
};

/* mh_helpers.c */
int mh_live(const mhost_t *h);
void mh_kill_agent(mhost_t *h);
/* "2", "2-3", "0,2,4": the host's ranks, for messages */
void mh_rank_list(const mhost_t *h, char *buf, size_t cap);
/* Starts host h's helper and sends it the job; a failure condemns the job. */
void mh_start_host(mh_t *m, mhost_t *h, const char *hostd_path, const char *cwd,
                   const char *mapping, char **env, int nenv, char **kv, int nkv);
void mh_send_frame_u32(mhost_t *h, uint8_t type, int with_value, uint32_t v);
/* The helper broke the protocol: the job fails, the helper is stopped. */
void mh_protocol_error(mhost_t *h, const char *why);
/* Nothing came from the helper for the timeout (heartbeat.h). */
void mh_host_silent(mhost_t *h);
/* The channel ended before DONE: reported once the agent's status is known (or late). */
void mh_report_lost(mhost_t *h);
/* stdin to rank 0's helper, at most CTL_STDIN_WINDOW bytes unacknowledged. */
void mh_stdin_update(mh_t *m);
void mh_stdin_stop(mh_t *m);

/* mh_late.c: helpers started while the job runs, for spawned ranks (docs/dynproc.md) */
/* Keeps what mh_start_host needs for a later start (copies of env and kv). */
void mh_late_keep(mh_t *m, const char *hostd_path, const char *cwd, char **env, int nenv,
                  char **kv, int nkv);
void mh_late_free(mh_t *m);
/* The index into host[] of host-list entry i's helper, started now when it has none; -1 when
 * it cannot be started (the job is condemned, with the reason). */
int mh_late_helper(mh_t *m, int i);
/* Every rank of the job (the first and the spawned ones) has exited: the late helpers,
 * which have no first ranks to end with, may say DONE (END). */
void mh_late_end(mh_t *m);

/* mh_progress.c */
#define MH_PROGRESS_AFTER_MS 2000   /* the first "still waiting for hosts" line */
#define MH_PROGRESS_EVERY_MS 5000   /* the next ones */
#define MH_PROGRESS_NAMES 10        /* hosts named per line */
/* Names the hosts whose helpers have not said HELLO yet, from MH_PROGRESS_AFTER_MS after the
 * start on; folds its next deadline into *timeout. */
void mh_watch_start(mh_t *m, long long now, int *timeout);

/* mh_frames.c */
/* A frame from a helper (chan_ops_t.frame): checked against what the helper may say, then
 * handled by its type's handler. */
void mh_on_frame(void *ctx, const ctl_frame_t *f);
/* The barrier's union of key-value pairs, freed. */
void mh_kv_clear(mh_t *m);
/* Ends the gateways if every rank has exited and nothing holds the part (mh_frames.c). */
void mh_check_departed(mh_t *m);

#endif
