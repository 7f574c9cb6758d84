/*
 * The job's environment model. Ranks on this host start from mpirun's own environment
 * (forward_all); the helper of a job on several hosts starts from its own environment (what
 * the launch agent gave it) and applies only the explicit settings, which is why -x settings
 * are kept as a list and not applied to mpirun's environ directly.
 *
 * Order of precedence when building a rank's environment (later wins):
 *   1. the base environment (mpirun's environ when forward_all; the helper's on another
 *      host), minus the launcher's own variables (PMI_*, PMIX_NAMESPACE, PMIX_RANK,
 *      METAMPI_MPIRUN, METAMPI_BIND, METAMPI_JOB_KEY, METAMPI_RANK_KEY) inherited from an
 *      enclosing job (e.g. a Slurm step);
 *   2. the -x settings in command-line order ("VAR" copies mpirun's value if it has one);
 *   3. the extra variables: for a job on several hosts METAMPI_RANK_KEY (the ranks' key,
 *      derived from the job key: net/auth.h) and METAMPI_HOSTNAME,
 *      then per rank PMI_FD, PMI_RANK, PMI_SIZE, METAMPI_MPIRUN, METAMPI_BIND.
 */
#ifndef MPIRUN_JOBENV_H
#define MPIRUN_JOBENV_H

typedef struct jobenv_var {
    char *name;
    char *value;   /* NULL: not set (a forwarded VAR that mpirun does not have) */
} jobenv_var_t;

typedef struct jobenv {
    int forward_all;
    jobenv_var_t *vars;
    int n;
} jobenv_t;

void jobenv_init(jobenv_t *env, int forward_all);
/* spec is "VAR" (value taken from mpirun's environment now) or "VAR=value". */
void jobenv_add(jobenv_t *env, const char *spec);
/* A malloc'ed NULL-terminated envp (strings malloc'ed too; free with jobenv_free_envp).
 * extra: "NAME=value" strings set last. */
char **jobenv_build(const jobenv_t *env, const char *const *extra, int nextra);
void jobenv_free_envp(char **envp);
void jobenv_free(jobenv_t *env);

#endif
