/* The report's two forms: the table on stderr (--report) and the JSON file (--report-file);
 * docs/report.md describes both. */
#include "report_int.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

#define MATRIX_TABLE_MAX 8    /* ranks up to which the table shows the rank matrix */
#define MATRIX_JSON_MAX 64    /* ... the JSON (every destination is in each rank's line) */
#define TOP_PAIRS 10
#define WAITS_TABLE_MAX 16    /* ranks up to which the table lists every rank's waits */

static const char *const level_name[RP_LEVELS] = { "self", "shm", "tcp", "wan" };
static const char *const level_text[RP_LEVELS] = { "itself", "shared memory (same host)",
                                                    "TCP (other host, same site)",
                                                    "WAN (other site)" };

static void human(uint64_t b, char *buf, size_t cap)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%llu B", (unsigned long long)b);
    else
        snprintf(buf, cap, "%.1f %s", v, unit[u]);
}

static const char *site_label(const rp_t *rp, int s)
{
    return rp->site_name[s][0] ? rp->site_name[s] : "(one site)";
}

/* The job's pairs in its ranks' lines, largest bytes first (ties: lower sender, receiver). */
typedef struct pair {
    int from, to;
    rp_sum_t sent;
} pair_t;

static int by_bytes(const void *a, const void *b)
{
    const pair_t *x = a, *y = b;
    if (x->sent.bytes != y->sent.bytes)
        return x->sent.bytes > y->sent.bytes ? -1 : 1;
    return x->from != y->from ? x->from - y->from : x->to - y->to;
}

static pair_t *pairs(const rp_t *rp, int *n)
{
    int total = 0;
    for (int r = 0; r < rp->size; r++)
        total += rp->rank[r].npeers;
    pair_t *p = util_xmalloc((size_t)(total ? total : 1) * sizeof *p);
    *n = 0;
    for (int r = 0; r < rp->size; r++)
        for (int i = 0; i < rp->rank[r].npeers; i++)
            p[(*n)++] = (pair_t){ r, rp->rank[r].peer[i].rank, rp->rank[r].peer[i].sent };
    qsort(p, (size_t)*n, sizeof *p, by_bytes);
    return p;
}

static rp_sum_t pair_sent(const rp_rank_t *r, int to)
{
    for (int i = 0; i < r->npeers; i++)
        if (r->peer[i].rank == to)
            return r->peer[i].sent;
    return (rp_sum_t){ 0, 0 };
}

static int reported(const rp_t *rp)
{
    int n = 0;
    for (int r = 0; r < rp->size; r++)
        n += rp->rank[r].have;
    return n;
}

void rp_print_table(const rp_t *rp, FILE *f)
{
    char b1[32], b2[32];
    rp_sum_t lv[RP_LEVELS] = { { 0, 0 } };
    for (int r = 0; r < rp->size; r++)
        for (int l = 0; l < RP_LEVELS; l++) {
            lv[l].messages += rp->rank[r].level[l].messages;
            lv[l].bytes += rp->rank[r].level[l].bytes;
        }
    fprintf(f, "mpirun --report: traffic of %d of %d ranks", reported(rp), rp->size);
    if (rp->nsites > 1)
        fprintf(f, " (%d sites)", rp->nsites);
    fprintf(f, "; messages sent, by where the destination was\n");
    fprintf(f, "  %-30s %12s %14s\n", "level", "messages", "bytes");
    for (int l = 0; l < RP_LEVELS; l++) {
        human(lv[l].bytes, b1, sizeof b1);
        fprintf(f, "  %-30s %12llu %14s\n", level_text[l], (unsigned long long)lv[l].messages,
                b1);
    }

    if (rp->nsites > 1) {
        fprintf(f, "  site to site (bytes; row: sender's site)\n  %-12s", "");
        for (int t = 0; t < rp->nsites; t++)
            fprintf(f, " %12.12s", site_label(rp, t));
        fputc('\n', f);
        for (int s = 0; s < rp->nsites; s++) {
            fprintf(f, "  %-12.12s", site_label(rp, s));
            for (int t = 0; t < rp->nsites; t++) {
                uint64_t b = 0;
                for (int r = 0; r < rp->size; r++)
                    if (rp->rank[r].have && rp->rank[r].site == s)
                        b += rp->rank[r].to_site[t].bytes;
                human(b, b1, sizeof b1);
                fprintf(f, " %12s", b1);
            }
            fputc('\n', f);
        }
    }

    if (rp->size <= MATRIX_TABLE_MAX) {
        fprintf(f, "  rank to rank (bytes; row: sender)\n  %6s", "");
        for (int t = 0; t < rp->size; t++)
            fprintf(f, " %10d", t);
        fputc('\n', f);
        for (int r = 0; r < rp->size; r++) {
            if (!rp->rank[r].have)
                continue;
            fprintf(f, "  %6d", r);
            for (int t = 0; t < rp->size; t++) {
                human(pair_sent(&rp->rank[r], t).bytes, b1, sizeof b1);
                fprintf(f, " %10s", b1);
            }
            fputc('\n', f);
        }
    } else {
        int n;
        pair_t *p = pairs(rp, &n);
        fprintf(f, "  top rank pairs (of %d ranks)\n  %6s %6s %12s %14s\n", rp->size, "from",
                "to", "messages", "bytes");
        for (int i = 0; i < n && i < TOP_PAIRS; i++) {
            human(p[i].sent.bytes, b1, sizeof b1);
            fprintf(f, "  %6d %6d %12llu %14s\n", p[i].from, p[i].to,
                    (unsigned long long)p[i].sent.messages, b1);
        }
        free(p);
    }

    /* waits */
    double wan = 0, wan_max = 0;
    int wan_rank = -1;
    for (int r = 0; r < rp->size; r++) {
        double w = (double)rp->rank[r].wait_ns[RP_WAN] / 1e9;
        wan += w;
        if (rp->rank[r].have && (wan_rank < 0 || w > wan_max)) {
            wan_max = w;
            wan_rank = r;
        }
    }
    fprintf(f, "  time blocked in MPI waits (s), by where the message that ended the wait came "
            "from\n");
    if (reported(rp) <= WAITS_TABLE_MAX) {
        fprintf(f, "  %6s %10s %10s %10s %10s %10s\n", "rank", "self", "shm", "tcp", "wan",
                "none");
        for (int r = 0; r < rp->size; r++) {
            if (!rp->rank[r].have)
                continue;
            fprintf(f, "  %6d", r);
            for (int l = 0; l <= RP_LEVELS; l++)
                fprintf(f, " %10.3f", (double)rp->rank[r].wait_ns[l] / 1e9);
            fputc('\n', f);
        }
    }
    if (rp->nsites > 1)
        fprintf(f, "  waiting on the WAN: %.3f s in all ranks, at most %.3f s (rank %d)\n", wan,
                wan_max, wan_rank);

    if (rp->nlinks) {
        fprintf(f, "  gateways: WAN links\n  %-12s %-12s %12s %12s %14s %14s %8s\n", "site",
                "to", "rank frames", "WAN frames", "WAN bytes", "before zstd", "ratio");
        for (int i = 0; i < rp->nlinks; i++) {
            const rp_link_t *l = &rp->link[i];
            human(l->wan_bytes, b1, sizeof b1);
            human(l->raw_bytes, b2, sizeof b2);
            fprintf(f, "  %-12.12s %-12.12s %12llu %12llu %14s %14s %8.2f\n", l->site, l->to,
                    (unsigned long long)l->rank_frames, (unsigned long long)l->wan_frames, b1,
                    b2, l->wan_bytes ? (double)l->raw_bytes / (double)l->wan_bytes : 1.0);
        }
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_sum(FILE *f, rp_sum_t s)
{
    fprintf(f, "{\"messages\": %llu, \"bytes\": %llu}", (unsigned long long)s.messages,
            (unsigned long long)s.bytes);
}

void rp_write_json(const rp_t *rp, FILE *f)
{
    fprintf(f, "{\n  \"format\": \"metampi-report\",\n  \"version\": 1,\n"
            "  \"ranks\": %d,\n  \"reported\": [", rp->size);
    for (int r = 0, k = 0; r < rp->size; r++)
        if (rp->rank[r].have)
            fprintf(f, "%s%d", k++ ? ", " : "", r);
    fprintf(f, "],\n  \"sites\": [");
    for (int s = 0; s < rp->nsites; s++) {
        fprintf(f, "%s", s ? ", " : "");
        json_str(f, rp->site_name[s]);
    }
    fprintf(f, "],\n  \"levels\": {");
    for (int l = 0; l < RP_LEVELS; l++) {
        rp_sum_t t = { 0, 0 };
        for (int r = 0; r < rp->size; r++) {
            t.messages += rp->rank[r].level[l].messages;
            t.bytes += rp->rank[r].level[l].bytes;
        }
        fprintf(f, "%s\"%s\": ", l ? ", " : "", level_name[l]);
        json_sum(f, t);
    }
    fprintf(f, "},\n  \"site_matrix\": [");
    for (int s = 0; s < rp->nsites; s++) {
        fprintf(f, "%s\n    [", s ? "," : "");
        for (int t = 0; t < rp->nsites; t++) {
            rp_sum_t x = { 0, 0 };
            for (int r = 0; r < rp->size; r++)
                if (rp->rank[r].have && rp->rank[r].site == s) {
                    x.messages += rp->rank[r].to_site[t].messages;
                    x.bytes += rp->rank[r].to_site[t].bytes;
                }
            fprintf(f, "%s", t ? ", " : "");
            json_sum(f, x);
        }
        fprintf(f, "]");
    }
    fprintf(f, "\n  ],\n  \"rank_matrix\": ");
    if (rp->size <= MATRIX_JSON_MAX) {
        fprintf(f, "[");
        for (int r = 0; r < rp->size; r++) {
            fprintf(f, "%s\n    [", r ? "," : "");
            for (int t = 0; t < rp->size; t++) {
                fprintf(f, "%s", t ? ", " : "");
                json_sum(f, pair_sent(&rp->rank[r], t));
            }
            fprintf(f, "]");
        }
        fprintf(f, "\n  ],\n");
    } else {
        fprintf(f, "null,\n");
    }
    int n;
    pair_t *p = pairs(rp, &n);
    fprintf(f, "  \"top_pairs\": [");
    for (int i = 0; i < n && i < MATRIX_JSON_MAX; i++)
        fprintf(f, "%s\n    {\"from\": %d, \"to\": %d, \"messages\": %llu, \"bytes\": %llu}",
                i ? "," : "", p[i].from, p[i].to, (unsigned long long)p[i].sent.messages,
                (unsigned long long)p[i].sent.bytes);
    free(p);
    fprintf(f, "\n  ],\n  \"rank_detail\": [");
    for (int r = 0, k = 0; r < rp->size; r++) {
        const rp_rank_t *x = &rp->rank[r];
        if (!x->have)
            continue;
        fprintf(f, "%s\n    {\"rank\": %d, \"site\": %d, \"sent\": {", k++ ? "," : "", r,
                x->site);
        for (int l = 0; l < RP_LEVELS; l++) {
            fprintf(f, "%s\"%s\": ", l ? ", " : "", level_name[l]);
            json_sum(f, x->level[l]);
        }
        fprintf(f, "}, \"wait_s\": {");
        for (int l = 0; l <= RP_LEVELS; l++)
            fprintf(f, "%s\"%s\": %.6f", l ? ", " : "", l < RP_LEVELS ? level_name[l] : "none",
                    (double)x->wait_ns[l] / 1e9);
        fprintf(f, "}, \"other_destinations\": ");
        json_sum(f, x->other);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"gateways\": [");
    for (int i = 0; i < rp->nlinks; i++) {
        const rp_link_t *l = &rp->link[i];
        fprintf(f, "%s\n    {\"site\": ", i ? "," : "");
        json_str(f, l->site);
        fprintf(f, ", \"to\": ");
        json_str(f, l->to);
        fprintf(f, ", \"rank_frames\": %llu, \"wan_frames\": %llu, \"wan_bytes\": %llu, "
                "\"raw_bytes\": %llu, \"rank_frames_in\": %llu, \"wan_frames_in\": %llu, "
                "\"compression_ratio\": %.4f}", (unsigned long long)l->rank_frames,
                (unsigned long long)l->wan_frames, (unsigned long long)l->wan_bytes,
                (unsigned long long)l->raw_bytes, (unsigned long long)l->rank_frames_in,
                (unsigned long long)l->wan_frames_in,
                l->wan_bytes ? (double)l->raw_bytes / (double)l->wan_bytes : 1.0);
    }
    fprintf(f, "\n  ]\n}\n");
}
