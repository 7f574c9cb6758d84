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
    if (!arch_of) {
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
        if (peer_arch_ndistinct == DISTINCT_MAX) {
            snprintf(err, errlen, "more than %d different architectures in one job",
                     DISTINCT_MAX);
            return -1;
        }
        distinct[peer_arch_ndistinct++] = d;
    }
    arch_of[r] = (uint8_t)k;
    return 0;
}

int peer_arch_record_summary(const char *summary, int size, char *err, size_t errlen)
{
    int covered = 0;
    const char *p = summary;
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
                covered++;
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
    if (covered == size)
        return 0;
bad:
    snprintf(err, errlen, "the launcher's summary of the ranks' architectures is malformed "
             "('%.80s')", summary);
    return -1;
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
    arch_of = NULL;
    nranks = 0;
    peer_arch_ndistinct = 0;
}
