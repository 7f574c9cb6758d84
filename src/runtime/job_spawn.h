/*
 * Asking the launcher for new ranks (MPI_Comm_spawn) and reading the spaces of other parts
 * of the job: our mpirun's PMI-1 protocol of tools/launch/pmi_spawn.h (docs/dynproc.md).
 * Other process managers cannot spawn here: job_spawn answers that as a refusal.
 */
#ifndef METAMPI_JOB_SPAWN_H
#define METAMPI_JOB_SPAWN_H

#include "runtime/pmi_wire.h"

typedef struct job_spawn_app {
    const char *command;
    char *const *argv;          /* the arguments after the command, NULL-terminated; NULL: none */
    int maxprocs;
    const char *const *info;    /* key, value, ... (2 * ninfo strings) */
    int ninfo;
} job_spawn_app_t;

/* Starts the ranks of napps applications as one new part of the job, whose space gets the
 * npreput pairs (key, value, ...) first. 0 with the part's kvsname (cap bytes) and *size;
 * 1 when the launcher refused (the reason in why); -1 on a protocol error (in why). */
int job_spawn(const job_spawn_app_t *apps, int napps, const char *const *preput, int npreput,
              char *kvsname, int cap, int *size, char *why, int whylen);
/* job_get in the space of another part (kvsname): 0 and the value, 1 when absent, -1. */
int job_get_in(const char *kvsname, const char *key, char *value, int vallen, char *err,
               int errlen);
/* Nonzero when the launcher can start ranks and keeps the shared space (our mpirun, which
 * puts metampi.spawn into the space of the parts it serves so). */
int job_can_spawn(void);
/* Nonzero when ports, names and MPI_Comm_join work: where spawning does (our mpirun keeps
 * the shared space wherever it spawns). */
int job_can_use_ports(void);
/* Why not (for messages). */
const char *job_ports_refusal(void);
/* Why not (for messages): a job of several sites (our mpirun's metampi.nospawn = sites), or
 * a process manager that cannot. */
const char *job_spawn_refusal(void);
/* A command of the job's shared space at mpirun (names, ports: tools/mpirun/jobspace.h),
 * "cmd=NAME" and its arguments, where the strings of args marked hex are coded here: up to
 * three key/value pairs (NULL key: fewer). 0 and the reply (cmd=<expect>), or -1 (err; also
 * when mpirun answers rc=JOB_SHARED_UNREACHABLE msg=HEX: the space cannot be reached). */
#define JOB_SHARED_UNREACHABLE (-9)
int job_shared(const char *name, const char *expect, const char *k1, const char *v1, int hex1,
               const char *k2, const char *v2, int hex2, pmi_msg_t *reply, char *err,
               int errlen);
/* The reply's rc (-2 when absent or malformed). */
int job_reply_rc(const pmi_msg_t *reply);

#endif
