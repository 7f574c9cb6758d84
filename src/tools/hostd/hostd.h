/*
 * metampi-hostd: runs the ranks of one host of a job that spans several hosts, for mpirun,
 * which started it through the launch agent and talks to it over the agent's stdin/stdout
 * (the control channel, ctl.h). It is the node (node.h: spawn, PMI-1 server, I/O) plus
 * the channel; it holds no job policy: every event goes to mpirun, which decides.
 *
 * Life cycle:
 *   1. sends HELLO; reads KEY then JOB (anything else first is a protocol error: the
 *      helper writes why to stderr, kills what it started and exits 1);
 *   2. chdir to mpirun's directory, binds and spawns its ranks; a failure is one FAIL frame;
 *   3. relays: rank output, exits, aborts, PMI failures -> mpirun; stdin, the merged PMI
 *      key-value space at each barrier, KILL -> here;
 *   4. once every rank is reaped and its output sent: DONE; then waits for mpirun to close
 *      the channel, so that /dev/shm is swept only when the whole job is over;
 *   5. EOF on the channel (mpirun gone or finished) or SIGTERM/SIGINT/SIGHUP: the ranks are
 *      torn down (teardown.h schedule), orphans killed, /dev/shm/metampi.<job>.* swept, exit.
 * Ranks have PR_SET_PDEATHSIG=SIGKILL (spawn.c), so a helper that dies leaves no rank behind.
 */
#ifndef HOSTD_HOSTD_H
#define HOSTD_HOSTD_H

/* Runs the helper on the control channel ctl_in/ctl_out; host_arg is the host's name as
 * given on the command line (for messages before the job description arrives). Returns
 * the exit status. */
int hostd_run(int ctl_in, int ctl_out, const char *host_arg);

#endif
