/*
 * Helpers started while the job runs: MPI_Comm_spawn may place ranks on a host of the list
 * that runs none of the first ranks (docs/dynproc.md, "Several hosts"). mpirun starts that
 * host's helper then, with the same JOB frame as the others but no ranks of its own; its
 * parts arrive in PARTS frames like anyone's.
 *
 * Protocol: a helper whose JOB names no ranks does not say DONE while it may still get a
 * part: only once mpirun sent END (every rank of the job, first and spawned, has exited, so
 * nobody can spawn any more) or the teardown began, and its parts' ranks are gone. It takes
 * no part in node 0's barrier (host[nfirst..]).
 */
#include "mh_int.h"

#include "ctl.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct mh_late {
    const char *hostd_path, *cwd;   /* multihost_exec's, alive as long as the job */
    char **env, **kv;               /* copies */
    int nenv, nkv;                  /* strings, pairs */
    int ended;                      /* END went out */
};

static char **copy_strings(char **v, int n)
{
    char **c = util_xmalloc((size_t)(n ? n : 1) * sizeof *c);
    for (int i = 0; i < n; i++)
        c[i] = util_xstrdup(v[i]);
    return c;
}

void mh_late_keep(mh_t *m, const char *hostd_path, const char *cwd, char **env, int nenv,
                  char **kv, int nkv)
{
    struct mh_late *l = util_xmalloc(sizeof *l);
    memset(l, 0, sizeof *l);
    l->hostd_path = hostd_path;
    l->cwd = cwd;
    l->env = copy_strings(env, nenv);
    l->nenv = nenv;
    l->kv = copy_strings(kv, 2 * nkv);
    l->nkv = nkv;
    m->late = l;
}

void mh_late_free(mh_t *m)
{
    struct mh_late *l = m->late;
    if (!l)
        return;
    for (int i = 0; i < l->nenv; i++)
        free(l->env[i]);
    for (int i = 0; i < 2 * l->nkv; i++)
        free(l->kv[i]);
    free(l->env);
    free(l->kv);
    free(l);
    m->late = NULL;
}

int mh_late_helper(mh_t *m, int i)
{
    if (m->helper_of[i] >= 0)
        return m->helper_of[i];
    struct mh_late *l = m->late;
    if (!l || l->ended || m->job.condemned || m->nhost >= m->opts->hosts.n)
        return -1;
    int k = m->nhost++;
    mhost_t *h = &m->host[k];
    memset(h, 0, sizeof *h);
    h->mh = m;
    h->index = i;
    h->name = m->opts->hosts.h[i].name;
    m->helper_of[i] = k;
    mh_start_host(m, h, l->hostd_path, l->cwd, m->plan->mapping, l->env, l->nenv, l->kv,
                  l->nkv);
    return mh_live(h) && !m->job.condemned ? k : -1;
}

void mh_late_end(mh_t *m)
{
    if (!m->late || m->late->ended)
        return;
    m->late->ended = 1;
    for (int k = m->nfirst; k < m->nhost; k++) {
        mhost_t *h = &m->host[k];
        if (mh_live(h)) {
            ctl_begin(chan_out(&h->ch), CTL_END);
            ctl_end(chan_out(&h->ch));
            chan_send(&h->ch);
        }
    }
}
