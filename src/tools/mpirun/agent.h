/*
 * Starting metampi-hostd on a host: through the launch agent (--launch-agent, default ssh),
 * or by fork/exec for localhost and this machine's own name.
 *
 * Command line: the agent string split on blanks (spaces, tabs; no quoting), each "{host}"
 * token replaced by the host name, or the host name appended when there is none (ssh
 * style); then the absolute path of metampi-hostd (next to mpirun: the installation is
 * assumed to be at the same place on every host) and the host name.
 *
 * The agent gets three pipes: its stdin and stdout are the control channel, its stderr is
 * read by mpirun (agent errors such as "Could not resolve hostname"). It leads its own
 * process group (a terminal's Ctrl-C reaches mpirun only, which forwards it) and has no
 * parent-death signal: when mpirun dies the helper sees EOF and cleans its host up.
 */
#ifndef MPIRUN_AGENT_H
#define MPIRUN_AGENT_H

#include "spawn.h"

#include <sys/types.h>

typedef struct agent {
    pid_t pid;
    int reaped, status;   /* status as from waitpid once reaped */
    int to_fd;            /* the helper's stdin */
    int from_fd;          /* the helper's stdout */
    int err_fd;           /* the agent's (and helper's) stderr */
} agent_t;

/* 1 if host needs no agent: "localhost" or this machine's host name. */
int agent_is_local(const char *host);
/* The helper's command line for host (NULL-terminated, malloc'ed; agent_argv_free). */
char **agent_argv(const char *agent_cmd, const char *host, const char *hostd_path, int local);
void agent_argv_free(char **argv);
/* The agent part of argv as one string, for messages (malloc'ed). */
char *agent_describe(char *const *argv, int local);
/* Starts argv. 0, or -1 with *why (the exec failed, or pipes/fork). */
int agent_start(agent_t *a, char *const *argv, spawn_err_t *why);
/* The absolute path of metampi-hostd beside this mpirun (malloc'ed); *err is 0, or why it
 * cannot be executed (errno value). */
char *agent_hostd_path(int *err);

#endif
