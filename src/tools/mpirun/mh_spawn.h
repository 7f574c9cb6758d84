/*
 * MPI_Comm_spawn in a job on several hosts (docs/dynproc.md, "Several hosts"): mpirun's side
 * of the PARTS frames (launch/parts_ctl.h). A helper forwards a rank's spawn request; mpirun
 * places the new part's ranks on the hosts of the list (info key "host": that host; else
 * round robin over the free slots of the host list, then over the hosts when none is free),
 * starts the helper of a chosen host that runs no rank yet (mh_late.c), tells each chosen
 * helper its share (PART), and once all of them resolved the
 * programs (READY) says GO to all and answers the rank (RESULT), or drops the part and
 * answers with the first reason, having started nothing. mpirun keeps every node's puts
 * (PUT, at once), so it answers a get of any part's key (ASK), runs each part's barriers
 * across its hosts, and keeps the job's names and ports (jobspace.h).
 *
 * Numbers: part k is "<job's kvsname>.s<k>"; its rank r is rank base + r of the job in
 * mpirun's reports, base = the ranks placed before it. A part of a federated job spawns at
 * its own site, with numbers from the rendezvous server (mh_fed.h), or asks another site's
 * mpirun to (mh_spawn_fed.c); one without its connection to the server cannot
 * (metampi.nospawn in its space).
 */
#ifndef MPIRUN_MH_SPAWN_H
#define MPIRUN_MH_SPAWN_H

#include "mh_int.h"

#include <stdint.h>

typedef struct mh_spawn mh_spawn_t;

/* NULL when the job cannot spawn (a federated part without its server connection). */
mh_spawn_t *mh_spawn_new(mh_t *m);
void mh_spawn_free(mh_spawn_t *s);
/* kv (npairs) plus the pair that lets the library spawn (metampi.spawn = 1), or says why
 * it may not (metampi.nospawn = sites): a new array of new strings (universe_kv_free). */
char **mh_spawn_kv(const mh_spawn_t *s, char **kv, int npairs, int *nout);
/* A PARTS frame from helper h. */
void mh_spawn_frame(mh_spawn_t *s, mhost_t *h, const ctl_frame_t *f);
/* Whether rank (job-wide) is a rank of a part that runs on h. */
int mh_spawn_rank_here(const mh_spawn_t *s, const mhost_t *h, uint32_t rank);
/* The ranks of started parts that have not exited. */
int mh_spawn_running(const mh_spawn_t *s);
/* The deadlines of messages to other sites' mpirun (a federated job; mh_fed.h): those past
 * are answered for, the next folded into timeout (job_fold_deadline). s NULL accepted. */
void mh_spawn_timers(mh_spawn_t *s, long long now, int *timeout);
/* A federated part whose ranks have all exited keeps its gateway and mpirun up while
 * another site's part may still spawn here (mh_fed_hold): 1 while it must. s NULL accepted. */
int mh_spawn_hold(mh_spawn_t *s);
/* EXITED of a part's rank (checked by mh_spawn_rank_here). */
void mh_spawn_exited(mh_spawn_t *s, mhost_t *h, const ctl_frame_t *f);

#endif
