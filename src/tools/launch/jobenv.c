#include "jobenv.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

void jobenv_init(jobenv_t *env, int forward_all)
{
    env->forward_all = forward_all;
    env->vars = NULL;
    env->n = 0;
}

void jobenv_add(jobenv_t *env, const char *spec)
{
    const char *eq = strchr(spec, '=');
    jobenv_var_t v;
    if (eq) {
        v.name = util_xmalloc((size_t)(eq - spec) + 1);
        memcpy(v.name, spec, (size_t)(eq - spec));
        v.name[eq - spec] = '\0';
        v.value = util_xstrdup(eq + 1);
    } else {
        v.name = util_xstrdup(spec);
        const char *cur = getenv(spec);
        v.value = cur ? util_xstrdup(cur) : NULL;
    }
    env->vars = util_xrealloc(env->vars, (size_t)(env->n + 1) * sizeof *env->vars);
    env->vars[env->n++] = v;
}

/* Variables that belong to the launcher/library contract and are never inherited. */
static int launcher_owned(const char *entry)
{
    /* PMI_JOBID and PMIX_NAMESPACE/PMIX_RANK too: in a Slurm step (srun --mpi=pmi2/pmix)
     * they would make our ranks speak PMI-2 or PMIx instead of PMI-1 to us */
    static const char *const names[] = { "PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT",
                                         "PMI_ID", "PMI_KVSNAME", "PMI_JOBID",
                                         "PMIX_NAMESPACE", "PMIX_RANK", "METAMPI_MPIRUN",
                                         "METAMPI_BIND", "METAMPI_JOB_KEY",
                                         "METAMPI_RANK_KEY" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(entry, names[i], n) == 0 && entry[n] == '=')
            return 1;
    }
    return 0;
}

/* Replaces or appends NAME=value in envp (count *n, room for it guaranteed by caller). */
static void set_entry(char **envp, int *n, const char *name, const char *value)
{
    size_t nl = strlen(name);
    char *s = util_xmalloc(nl + strlen(value) + 2);
    sprintf(s, "%s=%s", name, value);
    for (int i = 0; i < *n; i++) {
        if (strncmp(envp[i], name, nl) == 0 && envp[i][nl] == '=') {
            free(envp[i]);
            envp[i] = s;
            return;
        }
    }
    envp[(*n)++] = s;
}

char **jobenv_build(const jobenv_t *env, const char *const *extra, int nextra)
{
    int nbase = 0;
    if (env->forward_all)
        while (environ[nbase])
            nbase++;
    char **envp = util_xmalloc((size_t)(nbase + env->n + nextra + 1) * sizeof *envp);
    int n = 0;
    for (int i = 0; i < nbase; i++)
        if (!launcher_owned(environ[i]) && strchr(environ[i], '='))
            envp[n++] = util_xstrdup(environ[i]);
    for (int i = 0; i < env->n; i++)
        if (env->vars[i].value)
            set_entry(envp, &n, env->vars[i].name, env->vars[i].value);
    for (int i = 0; i < nextra; i++) {
        const char *eq = strchr(extra[i], '=');
        char name[64];
        size_t nl = (size_t)(eq - extra[i]);
        if (nl >= sizeof name)
            continue;
        memcpy(name, extra[i], nl);
        name[nl] = '\0';
        set_entry(envp, &n, name, eq + 1);
    }
    envp[n] = NULL;
    return envp;
}

void jobenv_free_envp(char **envp)
{
    if (!envp)
        return;
    for (char **p = envp; *p; p++)
        free(*p);
    free(envp);
}

void jobenv_free(jobenv_t *env)
{
    for (int i = 0; i < env->n; i++) {
        free(env->vars[i].name);
        free(env->vars[i].value);
    }
    free(env->vars);
    env->vars = NULL;
    env->n = 0;
}
