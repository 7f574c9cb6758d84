/* Collecting the report: the pieces of the ranks' lines, the gateways' counters (report.h). */
#include "report.h"

#include "report_int.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "metampi-report."
#define MAX_PIECES 4096   /* a line of size ranks needs far fewer (TRAFFIC_REPORT_TOP) */

static rp_t rp;
static int on;
static kvs_t pieces;

int report_open(const mpirun_opts_t *o)
{
    if (!o->report && !o->report_file)
        return 0;
    memset(&rp, 0, sizeof rp);
    rp.table = o->report;
    rp.path = o->report_file;
    if (rp.path) {
        rp.file = fopen(rp.path, "w");
        if (!rp.file) {
            util_msg("--report-file: cannot write '%s': %s", rp.path, strerror(errno));
            return -1;
        }
    }
    rp.nsites = o->mc.nsites > 0 ? o->mc.nsites : 1;
    rp.site_name = util_xmalloc((size_t)rp.nsites * sizeof *rp.site_name);
    for (int s = 0; s < rp.nsites; s++)
        rp.site_name[s] = util_xstrdup(o->mc.nsites > 0 ? o->mc.site[s].name : "");
    rp.size = rp.np = o->np;
    kvs_init(&pieces);
    on = 1;
    return 0;
}

int report_wanted(void)
{
    return on;
}

void report_set_ranks(int size, int first, int np)
{
    rp.size = size;
    rp.first = first;
    rp.np = np;
}

int report_kv(const char *key, const char *value)
{
    if (!on || strncmp(key, PREFIX, strlen(PREFIX)) != 0)
        return 0;
    if (kvs_put(&pieces, key, value) != 0)
        util_msg("--report: too many report pieces; the report will lack some ranks");
    return 1;
}

void report_kvs_from(const kvs_t *kv)
{
    if (!on)
        return;
    char key[64];
    for (int r = rp.first; r < rp.first + rp.np; r++) {
        snprintf(key, sizeof key, PREFIX "%d", r);
        const char *n = kvs_get(kv, key);
        if (!n)
            continue;
        report_kv(key, n);
        long pieces_n = strtol(n, NULL, 10);
        for (long i = 0; i < pieces_n && i < MAX_PIECES; i++) {
            snprintf(key, sizeof key, PREFIX "%d.%ld", r, i);
            const char *v = kvs_get(kv, key);
            if (v)
                report_kv(key, v);
        }
    }
}

void report_gateway(const char *text)
{
    if (!on)
        return;
    char *copy = util_xstrdup(text);
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        rp_link_t l;
        if (rp_parse_link(line, &l) != 0) {
            util_msg("--report: a site gateway sent malformed counters: %.200s", line);
            continue;
        }
        rp.link = util_xrealloc(rp.link, (size_t)(rp.nlinks + 1) * sizeof *rp.link);
        rp.link[rp.nlinks++] = l;
    }
    free(copy);
}

/* Rank r's line from its pieces, or NULL (reported) when it sent none or a bad one. */
static char *assemble(int r, int *missing)
{
    char key[64];
    snprintf(key, sizeof key, PREFIX "%d", r);
    const char *n = kvs_get(&pieces, key);
    if (!n) {
        (*missing)++;
        return NULL;
    }
    char *end;
    long count = strtol(n, &end, 10);
    if (*end || count < 1 || count > MAX_PIECES) {
        util_msg("--report: rank %d sent a bad piece count '%.40s'", r, n);
        return NULL;
    }
    size_t len = 0, cap = 1024;
    char *line = util_xmalloc(cap);
    line[0] = '\0';
    for (long i = 0; i < count; i++) {
        snprintf(key, sizeof key, PREFIX "%d.%ld", r, i);
        const char *v = kvs_get(&pieces, key);
        if (!v) {
            util_msg("--report: rank %d's report lacks piece %ld of %ld", r, i, count);
            free(line);
            return NULL;
        }
        size_t n_v = strlen(v);
        if (len + n_v + 1 > cap) {
            cap = 2 * (len + n_v + 1);
            line = util_xrealloc(line, cap);
        }
        memcpy(line + len, v, n_v + 1);
        len += n_v;
    }
    return line;
}

void report_finish(int status)
{
    if (!on)
        return;
    rp.rank = util_xmalloc((size_t)rp.size * sizeof *rp.rank);
    memset(rp.rank, 0, (size_t)rp.size * sizeof *rp.rank);
    int missing = 0, got = 0;
    for (int r = rp.first; r < rp.first + rp.np && r < rp.size; r++) {
        char *line = assemble(r, &missing);
        char why[160];
        if (line && rp_parse_rank(line, r, rp.size, rp.nsites, &rp.rank[r], why,
                                  sizeof why) != 0)
            util_msg("--report: rank %d sent a malformed report (%s)", r, why);
        got += rp.rank[r].have;
        free(line);
    }
    if (!got)
        util_msg("--report: no rank reported its traffic (%s)",
                 status ? "the job failed" : "did the program call MPI_Finalize?");
    else if (missing)
        util_msg("--report: %d rank(s) did not report (they did not reach MPI_Finalize); the "
                 "report covers the others", missing);
    if (rp.table && got)
        rp_print_table(&rp, stderr);
    if (rp.file) {
        rp_write_json(&rp, rp.file);
        if (fclose(rp.file) != 0)
            util_msg("--report-file: cannot write '%s': %s", rp.path, strerror(errno));
    }
    for (int r = 0; r < rp.size; r++) {
        free(rp.rank[r].to_site);
        free(rp.rank[r].peer);
    }
    free(rp.rank);
    for (int i = 0; i < rp.nlinks; i++) {
        free(rp.link[i].site);
        free(rp.link[i].to);
    }
    free(rp.link);
    for (int s = 0; s < rp.nsites; s++)
        free(rp.site_name[s]);
    free(rp.site_name);
    kvs_free(&pieces);
    on = 0;
}
