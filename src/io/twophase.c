/* Collective data access by two-phase aggregation (docs/io.md, "Collective I/O").
 *
 * One aggregator per host: the lowest rank of the file's communicator on each host. The span
 * [lo, hi) of the file that the call touches (over all members) is cut into one contiguous
 * file domain per aggregator. Every member cuts its file runs at the domain boundaries and
 * sends each aggregator the (offset, length) pieces of its domain, with their data for a
 * write (two alltoallv exchanges on the file's private communicator). An aggregator sorts the
 * pieces by offset and merges adjacent ones, so the many small strided pieces of all members
 * become few large pwritev/preadv calls; for a read it sends every piece's bytes back.
 * Members exchange data in the file's representation (converted before and after). */
#include "io/file.h"

#include "core/icoll.h"
#include "core/p2p.h"
#include "datatype/construct.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* iovecs per aggregator call (Linux's IOV_MAX) */
#define IOV_PER_AGGREGATE 1024

typedef struct piece {
    int64_t off, len;
} piece_t;

typedef struct runs {
    piece_t *v;
    size_t n, cap;
} runs_t;

static int add_run(void *arg, MPI_Offset off, size_t len)
{
    runs_t *r = arg;
    if (r->n && r->v[r->n - 1].off + r->v[r->n - 1].len == off) {
        r->v[r->n - 1].len += (int64_t)len;
        return 0;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        piece_t *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return 1;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (piece_t){ off, (int64_t)len };
    return 0;
}

/* The aggregators: the lowest rank of each host, in rank order. */
static int *aggregators(comm_t *c, int *n)
{
    int *aggr = malloc((size_t)c->size * sizeof *aggr);
    int *host = malloc((size_t)c->size * sizeof *host);
    *n = 0;
    if (aggr && host) {
        for (int r = 0; r < c->size; r++) {
            host[r] = p2p_host_of(comm_peer_world_rank(c, r));
            int first = 1;
            for (int k = 0; k < *n && first; k++)
                first = host[aggr[k]] != host[r];
            if (first)
                aggr[(*n)++] = r;
        }
    }
    free(host);
    return aggr;
}

typedef struct plan {
    int size, naggr, *aggr;
    int64_t lo, dom;                    /* domain a is [lo + a * dom, lo + (a + 1) * dom) */
    size_t *scount, *sdispl, *rcount, *rdispl; /* pieces per member (in piece_t units) */
    piece_t *send, *recv;               /* my pieces grouped by destination; received */
    size_t *data_at;                    /* per sent piece: its position in my packed data */
    size_t nrecv;
} plan_t;

static void plan_free(plan_t *p)
{
    free(p->aggr);
    free(p->scount);
    free(p->sdispl);
    free(p->rcount);
    free(p->rdispl);
    free(p->send);
    free(p->recv);
    free(p->data_at);
}

/* Cuts my runs at the domain boundaries and exchanges the pieces: p->recv holds, for an
 * aggregator, every member's pieces of its domain, member by member in rank order. */
static int exchange_pieces(comm_t *c, plan_t *p, const runs_t *mine)
{
    int n = c->size;
    size_t cap = mine->n + (size_t)p->naggr, k = 0;
    piece_t *cut = malloc(cap * sizeof *cut);
    int *dest = malloc(cap * sizeof *dest);
    size_t *at = malloc(cap * sizeof *at);
    p->scount = calloc((size_t)n, sizeof *p->scount);
    p->sdispl = calloc((size_t)n, sizeof *p->sdispl);
    p->rcount = calloc((size_t)n, sizeof *p->rcount);
    p->rdispl = calloc((size_t)n, sizeof *p->rdispl);
    if (!cut || !dest || !at || !p->scount || !p->sdispl || !p->rcount || !p->rdispl) {
        free(cut), free(dest), free(at);
        return MPI_ERR_NO_MEM;
    }
    size_t pos = 0;
    for (size_t i = 0; i < mine->n; i++) {
        int64_t off = mine->v[i].off, len = mine->v[i].len;
        while (len > 0) {
            int a = (int)((off - p->lo) / p->dom);
            int64_t end = p->lo + (int64_t)(a + 1) * p->dom, take = len;
            if (off + take > end)
                take = end - off;
            if (k == cap) {
                cap *= 2;
                piece_t *c2 = realloc(cut, cap * sizeof *cut);
                int *d2 = c2 ? realloc(dest, cap * sizeof *dest) : NULL;
                size_t *a2 = d2 ? realloc(at, cap * sizeof *at) : NULL;
                if (c2)
                    cut = c2;
                if (d2)
                    dest = d2;
                if (!a2) {
                    free(cut), free(dest), free(at);
                    return MPI_ERR_NO_MEM;
                }
                at = a2;
            }
            cut[k] = (piece_t){ off, take };
            dest[k] = p->aggr[a];
            at[k++] = pos;
            p->scount[p->aggr[a]]++;
            pos += (size_t)take, off += take, len -= take;
        }
    }
    /* grouped by destination, in stream order within each */
    p->send = malloc((k ? k : 1) * sizeof *p->send);
    p->data_at = malloc((k ? k : 1) * sizeof *p->data_at);
    size_t *fill = calloc((size_t)n, sizeof *fill);
    int rc = p->send && p->data_at && fill ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int r = 1; r < n; r++)
        p->sdispl[r] = p->sdispl[r - 1] + p->scount[r - 1];
    for (size_t i = 0; rc == MPI_SUCCESS && i < k; i++) {
        size_t j = p->sdispl[dest[i]] + fill[dest[i]]++;
        p->send[j] = cut[i];
        p->data_at[j] = at[i];
    }
    free(cut), free(dest), free(at), free(fill);
    if (rc == MPI_SUCCESS)
        rc = icoll_alltoall(c, p->scount, sizeof(size_t), p->rcount);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int r = 1; r < n; r++)
        p->rdispl[r] = p->rdispl[r - 1] + p->rcount[r - 1];
    p->nrecv = p->rdispl[n - 1] + p->rcount[n - 1];
    p->recv = malloc((p->nrecv ? p->nrecv : 1) * sizeof *p->recv);
    if (!p->recv)
        return MPI_ERR_NO_MEM;
    /* in bytes for the exchange */
    size_t *sc = malloc(4 * (size_t)n * sizeof *sc);
    if (!sc)
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < n; r++) {
        sc[r] = p->scount[r] * sizeof(piece_t);
        sc[n + r] = p->sdispl[r] * sizeof(piece_t);
        sc[2 * n + r] = p->rcount[r] * sizeof(piece_t);
        sc[3 * n + r] = p->rdispl[r] * sizeof(piece_t);
    }
    rc = icoll_alltoallv(c, p->send, sc, sc + n, p->recv, sc + 2 * n, sc + 3 * n);
    free(sc);
    return rc;
}

/* Byte counts and displacements of the data that goes with the pieces, per member. */
static int data_layout(const plan_t *p, int sending, size_t **counts, size_t **displs)
{
    int n = p->size;
    *counts = calloc((size_t)n, sizeof **counts);
    *displs = calloc((size_t)n, sizeof **displs);
    if (!*counts || !*displs)
        return MPI_ERR_NO_MEM;
    const piece_t *v = sending ? p->send : p->recv;
    const size_t *cnt = sending ? p->scount : p->rcount, *dsp = sending ? p->sdispl : p->rdispl;
    size_t at = 0;
    for (int r = 0; r < n; r++) {
        (*displs)[r] = at;
        for (size_t i = 0; i < cnt[r]; i++)
            (*counts)[r] += (size_t)v[dsp[r] + i].len;
        at += (*counts)[r];
    }
    return MPI_SUCCESS;
}

typedef struct ref {
    int64_t off, len;
    unsigned char *data;
} ref_t;

static int by_offset(const void *a, const void *b)
{
    const ref_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The aggregator's file access: pieces sorted by offset, adjacent ones in one call (at most
 * IOV_PER_AGGREGATE iovecs). Overlapping pieces of a write are written in order (the later wins, as
 * MPI leaves it undefined); of a read, each is read in full. */
static int aggregate(int fd, ref_t *refs, size_t n, int write)
{
    qsort(refs, n, sizeof *refs, by_offset);
    struct iovec iov[IOV_PER_AGGREGATE];
    size_t i = 0;
    while (i < n) {
        int k = 0;
        int64_t start = refs[i].off, end = start;
        while (i < n && k < IOV_PER_AGGREGATE && refs[i].off == end) {
            iov[k].iov_base = refs[i].data;
            iov[k++].iov_len = (size_t)refs[i].len;
            end += refs[i].len;
            i++;
        }
        if (k == 0) { /* overlapping piece: on its own */
            iov[k].iov_base = refs[i].data;
            iov[k++].iov_len = (size_t)refs[i].len;
            start = refs[i].off;
            i++;
        }
        struct iovec *v = iov;
        int64_t at = start;
        while (k > 0) {
            ssize_t r = write ? pwritev(fd, v, k, (off_t)at) : preadv(fd, v, k, (off_t)at);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return io_errno_class(errno);
            if (r == 0) /* a read at the end of the file: the rest stays zero */
                break;
            at += r;
            while (k > 0 && (size_t)r >= v->iov_len) {
                r -= (ssize_t)v->iov_len;
                v++, k--;
            }
            if (k > 0) {
                v->iov_base = (char *)v->iov_base + r;
                v->iov_len -= (size_t)r;
            }
        }
    }
    return MPI_SUCCESS;
}

/* The stream bytes of my runs below the file's size (a read's count). */
static size_t below_eof(int fd, const runs_t *mine)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return 0;
    size_t got = 0;
    for (size_t i = 0; i < mine->n; i++) {
        int64_t off = mine->v[i].off, len = mine->v[i].len;
        if (off >= st.st_size)
            break;
        got += (size_t)(off + len <= st.st_size ? len : st.st_size - off);
        if (off + len > st.st_size)
            break;
    }
    return got;
}

int io_collective(io_file_t *f, MPI_Offset start, void *buf, size_t count, dtype_t *memtype,
                  int write, int failed, size_t *done)
{
    comm_t *c = f->comm;
    *done = 0;
    MPI_Count each = failed ? 0 : io_rep_size(&f->rep, memtype);
    if (each < 0)
        failed = MPI_ERR_UNSUPPORTED_DATAREP;
    size_t bytes = failed ? 0 : count * (size_t)each;
    runs_t mine = { 0 };
    int rc = MPI_SUCCESS;
    unsigned char *packed = NULL;
    if (bytes && write) /* the data in the file's representation */
        rc = io_rep_pack(f, buf, count, memtype, &packed, &bytes);
    if (rc == MPI_SUCCESS && bytes && io_view_runs(f, start, (MPI_Offset)bytes, add_run, &mine))
        rc = MPI_ERR_NO_MEM;
    /* the span over all members, and whether every member is ready */
    uint64_t v[3] = { mine.n ? (uint64_t)mine.v[0].off : UINT64_MAX,
                      mine.n ? UINT64_MAX - (uint64_t)(mine.v[mine.n - 1].off +
                                                       mine.v[mine.n - 1].len)
                             : UINT64_MAX,
                      failed || rc != MPI_SUCCESS ? 0 : 1 };
    int all = icoll_allreduce_u64(c, v, 3, ICOLL_MIN);
    if (all != MPI_SUCCESS || !v[2] || v[0] == UINT64_MAX) {
        free(mine.v);
        free(packed);
        if (all != MPI_SUCCESS)
            return all;
        if (!v[2]) /* a member's checks failed: nobody moved anything */
            return failed ? failed : rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
        return MPI_SUCCESS;
    }
    plan_t p = { .size = c->size };
    p.aggr = aggregators(c, &p.naggr);
    unsigned char *agg = NULL;
    size_t *sc = NULL, *sd = NULL, *rcn = NULL, *rd = NULL;
    ref_t *refs = NULL;
    if (!p.aggr)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        p.lo = (int64_t)v[0];
        int64_t hi = (int64_t)(UINT64_MAX - v[1]);
        p.dom = (hi - p.lo + p.naggr - 1) / p.naggr;
        if (p.dom <= 0)
            p.dom = 1;
        rc = exchange_pieces(c, &p, &mine);
    }
    if (rc == MPI_SUCCESS)
        rc = data_layout(&p, 1, &sc, &sd);
    if (rc == MPI_SUCCESS)
        rc = data_layout(&p, 0, &rcn, &rd);
    size_t in_bytes = rc == MPI_SUCCESS ? rd[c->size - 1] + rcn[c->size - 1] : 0;
    if (!packed)
        packed = malloc(bytes ? bytes : 1);
    agg = malloc(in_bytes ? in_bytes : 1);
    refs = malloc((p.nrecv ? p.nrecv : 1) * sizeof *refs);
    if (!packed || !agg || !refs)
        rc = MPI_ERR_NO_MEM;
    /* the data of my pieces, in destination order (sc/sd), from my packed stream */
    unsigned char *out = NULL;
    if (rc == MPI_SUCCESS && !(out = malloc(bytes ? bytes : 1)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && write) {
        size_t at = 0;
        for (size_t i = 0; i < p.sdispl[c->size - 1] + p.scount[c->size - 1]; i++) {
            memcpy(out + at, packed + p.data_at[i], (size_t)p.send[i].len);
            at += (size_t)p.send[i].len;
        }
        rc = icoll_alltoallv(c, out, sc, sd, agg, rcn, rd);
    }
    /* the aggregator's pieces, each with its bytes in agg */
    size_t at = 0;
    for (size_t i = 0; rc == MPI_SUCCESS && i < p.nrecv; i++) {
        refs[i] = (ref_t){ p.recv[i].off, p.recv[i].len, agg + at };
        at += (size_t)p.recv[i].len;
    }
    int io_rc = MPI_SUCCESS;
    if (rc == MPI_SUCCESS && p.nrecv) {
        if (!write)
            memset(agg, 0, in_bytes);
        io_rc = aggregate(f->fd, refs, p.nrecv, write);
    }
    if (rc == MPI_SUCCESS && !write) {
        /* the bytes go back the way their pieces came */
        rc = icoll_alltoallv(c, agg, rcn, rd, out, sc, sd);
        size_t pos = 0;
        for (size_t i = 0; rc == MPI_SUCCESS && i < p.sdispl[c->size - 1] + p.scount[c->size - 1];
             i++) {
            memcpy(packed + p.data_at[i], out + pos, (size_t)p.send[i].len);
            pos += (size_t)p.send[i].len;
        }
        if (rc == MPI_SUCCESS)
            rc = io_rep_unpack(f, packed, bytes, buf, memtype);
    }
    /* every member learns whether an aggregator failed */
    int e[1] = { rc != MPI_SUCCESS ? rc : io_rc };
    all = icoll_allreduce_int(c, e, 1, ICOLL_MAX);
    if (all == MPI_SUCCESS && e[0] == MPI_SUCCESS)
        *done = write ? bytes : below_eof(f->fd, &mine);
    free(out), free(packed), free(agg), free(refs);
    free(sc), free(sd), free(rcn), free(rd);
    plan_free(&p);
    free(mine.v);
    if (all != MPI_SUCCESS)
        return all;
    return rc != MPI_SUCCESS ? rc : e[0] != MPI_SUCCESS ? MPI_ERR_IO : io_rc;
}
