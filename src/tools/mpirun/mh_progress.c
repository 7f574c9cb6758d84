/*
 * Launch progress of a job on several hosts: while helpers have not said HELLO
 * MH_PROGRESS_AFTER_MS after the start, mpirun names them on stderr, again every
 * MH_PROGRESS_EVERY_MS, until every host is up (or the job is condemned):
 *   mpirun: still waiting for 2 of 8 hosts to start (4 s): n7, n8
 * With sites each host carries its site ("n7 (site berlin)"); at most MH_PROGRESS_NAMES are
 * named, then "and N more".
 */
#include "mh_int.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int waiting(const mhost_t *h)
{
    return h->started && !h->hello && !h->lost && !h->chan_ended;
}

void mh_watch_start(mh_t *m, long long now, int *timeout)
{
    if (m->all_up || m->job.condemned)
        return;
    int n = 0;
    for (int k = 0; k < m->nhost; k++)
        n += waiting(&m->host[k]);
    if (n == 0) {
        m->all_up = 1;
        return;
    }
    if (!m->t_progress)
        m->t_progress = m->t_start + MH_PROGRESS_AFTER_MS;
    if (now >= m->t_progress) {
        const metacomputer_t *mc = &m->opts->mc;
        size_t cap = 256, len = 0;
        char *names = util_xmalloc(cap);
        names[0] = '\0';
        int shown = 0;
        for (int k = 0; k < m->nhost && shown < MH_PROGRESS_NAMES; k++) {
            const mhost_t *h = &m->host[k];
            if (!waiting(h))
                continue;
            char one[600];
            if (mc->nsites > 0)
                snprintf(one, sizeof one, "%s%s (site %s)", shown ? ", " : "", h->name,
                         mc->site[mc->host_site[h->index]].name);
            else
                snprintf(one, sizeof one, "%s%s", shown ? ", " : "", h->name);
            size_t l = strlen(one);
            if (len + l + 1 > cap) {
                cap = 2 * (len + l + 1);
                names = util_xrealloc(names, cap);
            }
            memcpy(names + len, one, l + 1);
            len += l;
            shown++;
        }
        char more[32] = "";
        if (n > shown)
            snprintf(more, sizeof more, " and %d more", n - shown);
        util_msg("still waiting for %d of %d host%s to start (%lld s): %s%s", n, m->nhost,
                 m->nhost == 1 ? "" : "s", (now - m->t_start + 500) / 1000, names, more);
        free(names);
        m->t_progress = now + MH_PROGRESS_EVERY_MS;
    }
    job_fold_deadline(timeout, m->t_progress, now);
}
