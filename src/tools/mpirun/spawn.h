/*
 * Starting one rank: fork + exec with a fully controlled set of file descriptors.
 *
 * The child, before exec:
 *   - becomes the leader of its own process group (setpgid), so signalling -pid reaches the
 *     rank and everything it started; the parent calls setpgid too, closing the race;
 *   - asks for SIGKILL when mpirun dies (PR_SET_PDEATHSIG) and exits at once if mpirun is
 *     already gone;
 *   - has an empty signal mask and default dispositions (mpirun blocks and ignores some);
 *   - has exactly fds 0, 1, 2 and PMI_FD (= 3) open.
 * Exec failure is reported through a close-on-exec pipe: spawn_rank() returns only after
 * the exec succeeded or the child has failed and been reaped.
 */
#ifndef MPIRUN_SPAWN_H
#define MPIRUN_SPAWN_H

#include <sys/types.h>

#define SPAWN_PMI_FD 3

typedef struct spawn_req {
    const char *path;      /* resolved program path (spawn_resolve) */
    char *const *argv;
    char *const *envp;     /* must already contain PMI_FD=3 */
    int stdin_fd, stdout_fd, stderr_fd, pmi_fd;
} spawn_req_t;

/* Resolves prog like execvp does (PATH search when it has no '/'). Returns 0 and a malloc'ed
 * path, or an errno value (ENOENT, EACCES, ...). */
int spawn_resolve(const char *prog, char **path);

/* Returns the child's pid, or -1 with *err set (fork failure or exec failure). */
pid_t spawn_rank(const spawn_req_t *req, int *err);

#endif
