#include "runtime/peer_arch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The distinct architectures of the job (a job has one or two, rarely more) and each rank's
 * index among them; index 0 is this rank's own. */
enum { DISTINCT_MAX = 16 };
static arch_desc_t distinct[DISTINCT_MAX];
int peer_arch_ndistinct; /* distinct[0 .. peer_arch_ndistinct) are in use */
static uint8_t *arch_of;
static uint8_t *known; /* known[r]: rank r's descriptor was recorded (else taken as ours) */
static int nranks;

const arch_desc_t *peer_arch(int world_rank)
{
    if (!arch_of || world_rank < 0 || world_rank >= nranks)
        return arch_local();
    return &distinct[arch_of[world_rank]];
}

void peer_arch_local_hex(char out[PEER_ARCH_HEX + 1])
{
    uint8_t w[ARCH_WIRE_SIZE];
    arch_encode(arch_local(), w);
    for (int i = 0; i < ARCH_WIRE_SIZE; i++)
        snprintf(out + 2 * i, 3, "%02x", w[i]);
}

int peer_arch_open(int size, char *err, size_t errlen)
{
    peer_arch_close();
    arch_of = calloc((size_t)size, 1);
    known = calloc((size_t)size, 1);
    if (!arch_of || !known) {
        snprintf(err, errlen, "out of memory for the architectures of %d ranks", size);
        return -1;
    }
    nranks = size;
    distinct[0] = *arch_local();
    peer_arch_ndistinct = 1;
    return 0;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int peer_arch_record(int r, const char *hex, char *err, size_t errlen)
{
    uint8_t w[ARCH_WIRE_SIZE];
    arch_desc_t d;
    int ok = strlen(hex) == PEER_ARCH_HEX;
    for (int i = 0; ok && i < ARCH_WIRE_SIZE; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        ok = hi >= 0 && lo >= 0;
        w[i] = (uint8_t)(hi << 4 | (lo & 15));
    }
    if (!ok || arch_decode(w, &d) != 0) {
        snprintf(err, errlen, "rank %d published an architecture this library cannot read "
                 "('%.80s'; a rank of another metampi version?)", r, hex);
        return -1;
    }
    int k = 0;
    while (k < peer_arch_ndistinct && !arch_same(&distinct[k], &d))
        k++;
    if (k == peer_arch_ndistinct) {
#ifdef METAMPI_HETERO_OFF
        char theirs[96], ours[96];
        snprintf(err, errlen, "rank %d is %s, this rank %s: this metampi was built "
                 "with -DMETAMPI_HETERO=OFF and runs ranks of one architecture only", r,
                 arch_describe(&d, theirs, sizeof theirs),
                 arch_describe(arch_local(), ours, sizeof ours));
        return -1;
#endif
        if (peer_arch_ndistinct == DISTINCT_MAX) {
            snprintf(err, errlen, "more than %d different architectures in one job",
                     DISTINCT_MAX);
            return -1;
        }
        distinct[peer_arch_ndistinct++] = d;
    }
    arch_of[r] = (uint8_t)k;
    known[r] = 1;
    return 0;
}

int peer_arch_known(int world_rank)
{
    return known && world_rank >= 0 && world_rank < nranks && known[world_rank];
}

/* Records the runs of text ("HEX:RANGES;..."); *covered counts the ranks named. 0, or -1 with
 * err. */
static int record_runs(const char *text, int size, int *covered, char *err, size_t errlen)
{
    const char *p = text;
    *covered = 0;
    while (*p) {
        char hex[PEER_ARCH_HEX + 1];
        const char *colon = strchr(p, ':');
        if (!colon || colon - p != PEER_ARCH_HEX)
            goto bad;
        memcpy(hex, p, PEER_ARCH_HEX);
        hex[PEER_ARCH_HEX] = '\0';
        p = colon + 1;
        for (;;) {
            char *end;
            long a = strtol(p, &end, 10), b = a;
            if (end == p || a < 0 || a >= size)
                goto bad;
            p = end;
            if (*p == '-') {
                b = strtol(p + 1, &end, 10);
                if (end == p + 1 || b < a || b >= size)
                    goto bad;
                p = end;
            }
            for (long r = a; r <= b; r++) {
                if (peer_arch_record((int)r, hex, err, errlen) != 0)
                    return -1;
                (*covered)++;
            }
            if (*p != ',')
                break;
            p++;
        }
        if (*p == ';')
            p++;
        else if (*p)
            goto bad;
    }
    if (*covered > 0)
        return 0;
bad:
    snprintf(err, errlen, "the summary of the ranks' architectures is malformed ('%.80s')", text);
    return -1;
}

int peer_arch_record_summary(const char *summary, int size, char *err, size_t errlen)
{
    int covered;
    if (record_runs(summary, size, &covered, err, errlen) != 0)
        return -1;
    if (covered == size)
        return 0;
    snprintf(err, errlen, "the launcher's summary of the ranks' architectures is malformed "
             "('%.80s')", summary);
    return -1;
}

int peer_arch_record_part(const char *summary, int size, char *err, size_t errlen)
{
    int covered;
    return record_runs(summary, size, &covered, err, errlen);
}

/* Appends text and the run "a" or "a-b" to out[*len ..]; -1 when it does not fit in cap. */
static int append(char *out, size_t cap, size_t *len, const char *text, int a, int b)
{
    int n = a == b ? snprintf(out + *len, cap - *len, "%s%d", text, a)
                   : snprintf(out + *len, cap - *len, "%s%d-%d", text, a, b);
    if (n < 0 || (size_t)n >= cap - *len)
        return -1;
    *len += (size_t)n;
    return 0;
}

int peer_arch_format_part(const int *ranks, int n, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int k = 0; k < peer_arch_ndistinct; k++) {
        uint8_t w[ARCH_WIRE_SIZE];
        char head[PEER_ARCH_HEX + 3];
        arch_encode(&distinct[k], w);
        int any = 0, start = -1, prev = -2;
        for (int i = 0; i <= n; i++) {
            int r = i < n ? ranks[i] : -1;
            int in = r >= 0 && r < nranks && arch_of[r] == k;
            if (in && start >= 0 && r == prev + 1) {
                prev = r;
                continue;
            }
            if (start >= 0) { /* the run [start, prev] ends */
                int h = 0;
                if (!any) {
                    h = snprintf(head, sizeof head, "%s", len ? ";" : "");
                    for (int j = 0; j < ARCH_WIRE_SIZE; j++)
                        h += snprintf(head + h, sizeof head - (size_t)h, "%02x", w[j]);
                    snprintf(head + h, sizeof head - (size_t)h, ":");
                }
                if (append(out, cap, &len, any ? "," : head, start, prev) != 0)
                    return -1;
                any = 1;
                start = -1;
            }
            if (in)
                start = prev = r;
        }
    }
    return (int)len;
}

int peer_arch_check_hosts(const int *host_of, int size, int self, const char *hostname,
                          char *err, size_t errlen)
{
    if (peer_arch_all_same())
        return 0;
    for (int r = 0; r < size; r++)
        if (r != self && host_of[r] == host_of[self] &&
            !arch_same(peer_arch(r), arch_local())) {
            char a[96], b[96];
            snprintf(err, errlen, "ranks %d (%s) and %d (%s) share host %s but differ in "
                     "architecture; ranks of unlike architecture cannot share memory: run them "
                     "on different hosts (or sites)", self, arch_describe(arch_local(), a, sizeof a),
                     r, arch_describe(peer_arch(r), b, sizeof b), hostname);
            return -1;
        }
    return 0;
}

void peer_arch_close(void)
{
    free(arch_of);
    free(known);
    arch_of = known = NULL;
    nranks = 0;
    peer_arch_ndistinct = 0;
}
