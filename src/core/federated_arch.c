#include "core/federated_arch.h"

#include "core/comm.h"
#include "core/p2p.h"
#include "runtime/job.h"
#include "runtime/peer_arch.h"
#include "runtime/pmi_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The exchange's context: never a communicator's (core/ctxid.h), nor MPI_Finalize's. */
#define CONTEXT_FEDERATED_ARCH 0xfffffff2u
enum { TAG_SITES = 1 };
/* The leader's text for its part, in the part's key-value space: KEY.n pieces KEY.0 ... */
#define OTHERS_KEY "metampi.archs.others"
enum { PIECE = PMI_WIRE_VALLEN_MAX - 1 };

typedef struct {
    comm_t comm;     /* MPI_COMM_WORLD's ranks on the exchange's context */
    int nsites;
    int *leader;     /* leader[s]: the lowest world rank of site s, -1 for a site without */
    int *mine;       /* this site's ranks, ascending */
    int nmine;
} exchange_t;

/* Receives the next message of tag from world rank src, NUL-terminated, into a buffer the
 * caller frees (NULL with err on failure). */
static char *recv_text(exchange_t *x, int src, int tag, char *err, int errlen)
{
    MPI_Status st;
    p2p_probe(&x->comm, src, tag, &st);
    size_t n = (size_t)st.metampi_count, got;
    char *text = malloc(n + 1);
    if (!text) {
        snprintf(err, (size_t)errlen, "out of memory for the architectures of rank %d's site",
                 src);
        return NULL;
    }
    p2p_data_t d = { .buf = text, .bytes = n };
    if (p2p_recv_data(&x->comm, &d, src, tag, &st, &got) != MPI_SUCCESS || got != n) {
        snprintf(err, (size_t)errlen, "the architectures of rank %d's site did not arrive whole",
                 src);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

static void send_text(exchange_t *x, request_t *r, int dest, int tag, const char *text)
{
    request_init_local(r, REQ_SEND, &x->comm);
    request_set_data(r, (void *)text, strlen(text), NULL, 0, NULL);
    r->peer = dest;
    r->tag = tag;
    p2p_start(r, "MPI_Init");
}

/* The other sites' summaries into the part's key-value space, in pieces of one value each. */
static int publish(const char *all, char *err, int errlen)
{
    size_t len = strlen(all), n = (len + PIECE - 1) / PIECE;
    char key[64], value[PIECE + 1];
    snprintf(value, sizeof value, "%zu", n);
    if (job_put(OTHERS_KEY ".n", value, err, errlen) != 0)
        return -1;
    for (size_t k = 0; k < n; k++) {
        size_t at = k * PIECE, m = len - at < PIECE ? len - at : PIECE;
        memcpy(value, all + at, m);
        value[m] = '\0';
        snprintf(key, sizeof key, OTHERS_KEY ".%zu", k);
        if (job_put(key, value, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* A member's side of step 2: the pieces its leader published, recorded. */
static int read_published(char *err, int errlen)
{
    char key[64], value[PIECE + 2];
    int g = job_get(OTHERS_KEY ".n", value, sizeof value, err, errlen);
    if (g != 0) {
        if (g > 0)
            snprintf(err, (size_t)errlen, "this site's leader published no architectures of "
                     "the other sites");
        return -1;
    }
    size_t n = strtoul(value, NULL, 10);
    char *all = malloc(n * PIECE + 1);
    if (!all) {
        snprintf(err, (size_t)errlen, "out of memory for the other sites' architectures");
        return -1;
    }
    size_t len = 0;
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < n; k++) {
        snprintf(key, sizeof key, OTHERS_KEY ".%zu", k);
        g = job_get(key, value, sizeof value, err, errlen);
        if (g > 0)
            snprintf(err, (size_t)errlen, "piece %zu of the other sites' architectures is "
                     "missing", k);
        size_t m = g == 0 ? strlen(value) : 0;
        rc = g == 0 && m <= PIECE ? 0 : -1;
        memcpy(all + len, value, m);
        len += m;
    }
    all[len] = '\0';
    if (rc == 0)
        rc = peer_arch_record_part(all, job.size, err, (size_t)errlen);
    free(all);
    return rc;
}

/* Step 1 at a leader: its site's summary to the other leaders; theirs, joined, published
 * for its part (step 2). */
static int lead(exchange_t *x, char *err, int errlen)
{
    int me = job.rank, rc = -1;
    size_t cap = 64 + (size_t)x->nmine * 16 + PEER_ARCH_HEX * 4;
    char *own = malloc(cap), *all = NULL;
    request_t *sends = calloc((size_t)x->nsites, sizeof *sends);
    int nsends = 0;
    if (!own || !sends || peer_arch_format_part(x->mine, x->nmine, own, cap) < 0) {
        snprintf(err, (size_t)errlen, "out of memory for this site's architectures");
        goto out;
    }
    for (int s = 0; s < x->nsites; s++)
        if (x->leader[s] >= 0 && x->leader[s] != me)
            send_text(x, &sends[nsends++], x->leader[s], TAG_SITES, own);
    size_t len = 0;
    all = calloc(1, 1);
    for (int s = 0; all && s < x->nsites; s++) {
        if (x->leader[s] < 0 || x->leader[s] == me)
            continue;
        char *theirs = recv_text(x, x->leader[s], TAG_SITES, err, errlen);
        if (!theirs || peer_arch_record_part(theirs, job.size, err, (size_t)errlen) != 0) {
            free(theirs);
            goto out;
        }
        size_t n = strlen(theirs);
        char *grown = realloc(all, len + n + 2);
        if (grown) {
            if (len)
                grown[len++] = ';';
            memcpy(grown + len, theirs, n + 1);
            len += n;
        }
        all = grown;
        free(theirs);
    }
    if (!all) {
        snprintf(err, (size_t)errlen, "out of memory for the other sites' architectures");
        goto out;
    }
    rc = publish(all, err, errlen);
out:
    for (int i = 0; i < nsends; i++) /* the buffers stay until every send has left */
        p2p_wait(&sends[i]);
    free(sends);
    free(own);
    free(all);
    return rc;
}

/* The ranks of this site must all be known (they are this part); the others are learned. */
static int check_part(exchange_t *x, char *err, int errlen)
{
    for (int i = 0; i < x->nmine; i++)
        if (x->mine[i] != job.rank && !peer_arch_known(x->mine[i])) {
            snprintf(err, (size_t)errlen, "rank %d, at this rank's site, published no "
                     "architecture (a rank of another metampi version, or a part of a "
                     "federated job that is not one site?)", x->mine[i]);
            return -1;
        }
    return 0;
}

int federated_arch_exchange(char *err, int errlen)
{
    int unknown = 0;
    for (int r = 0; r < job.size; r++)
        unknown += r != job.rank && !peer_arch_known(r);
    if (!unknown)
        return 0;
    exchange_t x = { .comm = *comm_lookup(MPI_COMM_WORLD), .nsites = p2p_num_sites() };
    x.comm.recv_ctx = x.comm.send_ctx = CONTEXT_FEDERATED_ARCH;
    x.leader = malloc((size_t)x.nsites * sizeof *x.leader);
    x.mine = malloc((size_t)job.size * sizeof *x.mine);
    int rc = -1;
    if (!x.leader || !x.mine) {
        snprintf(err, (size_t)errlen, "out of memory for the sites' leaders");
        goto out;
    }
    for (int s = 0; s < x.nsites; s++)
        x.leader[s] = -1;
    int site = p2p_site_of(job.rank);
    for (int r = 0; r < job.size; r++) {
        int s = p2p_site_of(r);
        if (x.leader[s] < 0)
            x.leader[s] = r;
        if (s == site)
            x.mine[x.nmine++] = r;
    }
    if (check_part(&x, err, errlen) != 0)
        goto out;
    /* every rank of the part passes the barrier, so a failed leader leaves none waiting */
    rc = x.leader[site] == job.rank ? lead(&x, err, errlen) : 0;
    if (job_barrier(err, errlen) != 0)
        rc = -1;
    if (rc == 0 && x.leader[site] != job.rank)
        rc = read_published(err, errlen);
    for (int r = 0; rc == 0 && r < job.size; r++)
        if (r != job.rank && !peer_arch_known(r)) {
            snprintf(err, (size_t)errlen, "no site told this rank the architecture of rank %d",
                     r);
            rc = -1;
        }
out:
    free(x.leader);
    free(x.mine);
    return rc;
}
