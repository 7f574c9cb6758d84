/*
 * Starting one rank: fork + exec with a fully controlled set of file descriptors.
 *
 * The child, before exec:
 *   - becomes the leader of its own process group (setpgid), so signalling -pid reaches the
 *     rank and everything it started; the parent calls setpgid too, closing the race;
 *   - asks for SIGKILL when its parent (mpirun or the helper) dies (PR_SET_PDEATHSIG) and
 *     exits at once if the parent is already gone; not a launch agent (keep_on_parent_death:
 *     it must see its stdin close so the helper behind it can clean up);
 *   - has an empty signal mask and default dispositions (mpirun blocks and ignores some);
 *   - has exactly fds 0, 1, 2 and PMI_FD (= 3) open (0, 1, 2 without a PMI fd);
 *   - runs on the CPUs of req->cpus when given (sched_setaffinity on itself, so the program
 *     and every thread it creates start inside that set).
 * Failures in the child are reported through a close-on-exec pipe: spawn_rank() returns only
 * after the exec succeeded or the child has failed and been reaped.
 */
#ifndef MPIRUN_SPAWN_H
#define MPIRUN_SPAWN_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#define SPAWN_PMI_FD 3

/* What failed when a rank could not be started. */
enum spawn_stage {
    SPAWN_STAGE_SETUP,   /* pipe, fork or fd set-up */
    SPAWN_STAGE_BIND,    /* sched_setaffinity with req->cpus (only when bind_required) */
    SPAWN_STAGE_EXEC,    /* execve */
    SPAWN_STAGE_WDIR,    /* chdir to req->wdir */
};

typedef struct spawn_err {
    enum spawn_stage stage;
    int err;             /* errno value */
} spawn_err_t;

typedef struct spawn_req {
    const char *path;      /* resolved program path (spawn_resolve) */
    char *const *argv;
    char *const *envp;     /* must already contain PMI_FD=3 (if pmi_fd >= 0) */
    int stdin_fd, stdout_fd, stderr_fd, pmi_fd;   /* pmi_fd -1: none */
    int keep_on_parent_death;  /* no PR_SET_PDEATHSIG */
    const cpu_set_t *cpus; /* NULL: keep mpirun's affinity */
    size_t cpus_size;      /* bytes of *cpus (CPU_ALLOC_SIZE) */
    int bind_required;     /* a refused binding fails the spawn; otherwise the rank runs with
                            * mpirun's affinity and spawn_rank reports the refusal */
    const char *unbound_env; /* "NAME=value": replaces NAME's entry in envp when the rank
                              * runs unbound after a refusal (may be NULL) */
    const char *wdir;      /* NULL: keep mpirun's working directory; a failed chdir is
                            * reported as SPAWN_STAGE_WDIR */
} spawn_req_t;

/* Resolves prog like execvp does (PATH search when it has no '/'). Returns 0 and a malloc'ed
 * path, or an errno value (ENOENT, EACCES, ...). */
int spawn_resolve(const char *prog, char **path);

/* Returns the child's pid, or -1 with *why set. *bind_refused is 0, or the errno of a
 * binding the system refused while the rank was started anyway (!bind_required). */
pid_t spawn_rank(const spawn_req_t *req, spawn_err_t *why, int *bind_refused);

#endif
