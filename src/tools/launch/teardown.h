/*
 * Ending a job: the escalation schedule and the clean-up after the last rank is gone.
 *
 * Schedule (all times from the moment the job is condemned):
 *   t = 0      the first signal (SIGTERM, or the signal mpirun itself received) goes to
 *              every rank's process group;
 *   t = 1 s    SIGKILL to every rank not yet reaped;
 *   t = 3 s    give up waiting for ranks that survive SIGKILL (uninterruptible sleep):
 *              mpirun exits anyway rather than hang.
 * After the last rank is reaped, its output is drained for at most 1 s (a rank's escaped
 * descendant may hold a pipe open), then the job's /dev/shm objects are removed.
 */
#ifndef MPIRUN_TEARDOWN_H
#define MPIRUN_TEARDOWN_H

#define TEARDOWN_KILL_AFTER_MS   1000
#define TEARDOWN_GIVE_UP_MS      3000
#define TEARDOWN_DRAIN_MS        1000

/* Removes /dev/shm/metampi.<kvsname>.* (a safety net for ranks that crashed before they
 * could unlink their own). Returns the number of objects removed. */
int teardown_remove_shm(const char *kvsname);

/* Removes what jobs killed with SIGKILL left in /dev/shm (their launcher could not run
 * teardown_remove_shm): objects named metampi.kvs_<pid>_<id>.* whose launcher pid is not a
 * live process here and that no process has mapped. A live job never keeps a name longer
 * than a setup takes, and every such name is mapped by its creator until the others have
 * attached and it is unlinked, so a job launched from another host (whose pid means
 * nothing here) is never touched. Returns the number of objects removed. */
int teardown_sweep_stale_shm(void);

/* mpirun is a child subreaper (PR_SET_CHILD_SUBREAPER): descendants of ranks that outlive
 * their parent are reparented to mpirun instead of init. teardown_become_subreaper() sets
 * this up; teardown_kill_orphans() SIGKILLs and reaps every remaining child of mpirun (call
 * it once all ranks are reaped), so that nothing the job started outlives mpirun, not even
 * a process that left its rank's process group. */
void teardown_become_subreaper(void);
void teardown_kill_orphans(void);

#endif
