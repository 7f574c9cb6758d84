/*
 * A rank's report line (core/traffic_report.c) read back by mpirun's parser
 * (tools/mpirun/report_parse.c): the top destinations, what is left out, the per-site sums,
 * and the parser's refusals of lines that lie about rank, site, order or range.
 */
#include "core/traffic_report.h"
#include "report_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                                 \
    do {                                                                         \
        if (!(c)) {                                                              \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); \
            failures++;                                                          \
        }                                                                        \
    } while (0)

enum { SIZE = 100, SITES = 3 };

int main(void)
{
    static traffic_sum_t peer[SIZE];
    static int site_of[SIZE];
    for (int r = 0; r < SIZE; r++) {
        site_of[r] = r * SITES / SIZE;
        /* rank r gets r + 1 messages of 10 bytes each, except ranks 90..: ties at 100 bytes */
        peer[r] = (traffic_sum_t){ (uint64_t)r + 1, r >= 90 ? 100u : (uint64_t)(r + 1) * 10 };
    }
    peer[7] = (traffic_sum_t){ 0, 0 }; /* no traffic: never named */
    traffic_snapshot_t s = { .rank = 5, .site = site_of[5], .size = SIZE, .peer = peer,
                             .site_of = site_of,
                             .level = { { 1, 2 }, { 3, 4 }, { 5, 6 }, { 7, 8 } },
                             .wait_ns = { 10, 20, 30, 40, 50 } };
    char *line = traffic_report_encode(&s, 64);
    CHECK(line != NULL);
    CHECK(strncmp(line, "v1;r5;s0;L1.2,3.4,5.6,7.8;W10,20,30,40,50;S0:", 45) == 0);
    CHECK(strchr(line, ' ') == NULL);

    rp_rank_t r;
    char why[160];
    CHECK(rp_parse_rank(line, 5, SIZE, SITES, &r, why, sizeof why) == 0);
    CHECK(r.have && r.site == 0);
    CHECK(r.level[3].messages == 7 && r.level[3].bytes == 8 && r.wait_ns[4] == 50);
    CHECK(r.npeers == 64);
    /* the 64 largest by bytes are named, ascending by rank, and with what is left out they
     * add up to everything */
    uint64_t named = 0, named_m = 0;
    for (int i = 0; i < r.npeers; i++) {
        named += r.peer[i].sent.bytes;
        named_m += r.peer[i].sent.messages;
        CHECK(i == 0 || r.peer[i].rank > r.peer[i - 1].rank);
    }
    uint64_t all = 0, all_m = 0;
    for (int p = 0; p < SIZE; p++) {
        all += peer[p].bytes;
        all_m += peer[p].messages;
    }
    CHECK(named + r.other.bytes == all && named_m + r.other.messages == all_m);
    /* every named destination has at least the bytes of every one left out */
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < r.npeers; i++)
        if (r.peer[i].sent.bytes < least)
            least = r.peer[i].sent.bytes;
    for (int p = 0; p < SIZE; p++) {
        int in = 0;
        for (int i = 0; i < r.npeers; i++)
            in |= r.peer[i].rank == p;
        if (!in)
            CHECK(peer[p].bytes <= least);
    }
    uint64_t site_sum = 0;
    for (int t = 0; t < SITES; t++)
        site_sum += r.to_site[t].bytes;
    CHECK(site_sum == all);
    free(r.to_site);
    free(r.peer);

    /* refusals */
    CHECK(rp_parse_rank(line, 6, SIZE, SITES, &r, why, sizeof why) == -1);
    CHECK(strstr(why, "it says it is rank 5") != NULL);
    CHECK(rp_parse_rank(line, 5, 50, SITES, &r, why, sizeof why) == -1); /* ranks >= 50 */
    CHECK(rp_parse_rank(line, 5, SIZE, 0, &r, why, sizeof why) == -1);
    const char *bad[] = {
        "",
        "v2;r0;s0;L0.0,0.0,0.0,0.0;W0,0,0,0,0;S;P;O0.0",
        "v1;r0;s0;L0.0,0.0,0.0;W0,0,0,0,0;S;P;O0.0",              /* three levels */
        "v1;r0;s0;L0.0,0.0,0.0,0.0;W0,0,0,0,0;S;P1:1.1,1:1.1;O0.0", /* repeated peer */
        "v1;r0;s0;L0.0,0.0,0.0,0.0;W0,0,0,0,0;S;P4:1.1;O0.0",       /* peer out of range */
        "v1;r0;s0;L0.0,0.0,0.0,0.0;W0,0,0,0,0;S1:1.1,0:1.1;P;O0.0", /* sites not ascending */
        "v1;r0;s0;L0.0,0.0,0.0,0.0;W0,0,0,0,0;S;P;O0.0;",           /* trailing */
        "v1;r0;s0;L99999999999999999999.0,0.0,0.0,0.0;W0,0,0,0,0;S;P;O0.0", /* overflow */
        "v1;r0;s0;L-1.0,0.0,0.0,0.0;W0,0,0,0,0;S;P;O0.0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = rp_parse_rank(bad[i], 0, 4, 2, &r, why, sizeof why);
        if (rc != -1)
            fprintf(stderr, "accepted: %s\n", bad[i]);
        CHECK(rc == -1);
    }
    CHECK(rp_parse_rank("v1;r0;s1;L0.0,0.0,0.0,0.0;W0,0,0,0,0;S;P;O0.0", 0, 4, 2, &r, why,
                        sizeof why) == 0);
    free(r.to_site);
    free(r.peer);
    free(line);

    rp_link_t l;
    CHECK(rp_parse_link("metampi-gateway-stats site=a to=b rank_frames=1 multis=0 "
                        "wan_frames=2 wan_bytes=30 raw_bytes=60 rank_frames_in=4 "
                        "wan_frames_in=5 parked=0 credits_in=0", &l) == 0);
    CHECK(strcmp(l.site, "a") == 0 && strcmp(l.to, "b") == 0 && l.raw_bytes == 60 &&
          l.wan_frames_in == 5);
    free(l.site);
    free(l.to);
    CHECK(rp_parse_link("metampi-gateway-stats site=a to=b rank_frames=x", &l) == -1);
    CHECK(rp_parse_link("something else", &l) == -1);
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures != 0;
}
