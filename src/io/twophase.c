/* Collective data access by two-phase aggregation (docs/io.md, "Collective I/O").
 *
 * The span [lo, hi) of the file that the members of a site touch (with metampi_file_sites=
 * root: all members) is cut into one contiguous file domain per aggregator of that site
 * (f->aggr, aggr.c), and each domain into windows of at most cb_buffer_size bytes: cycle k
 * moves window k of every domain, so an aggregator never holds more than cb_buffer_size bytes
 * of file data (plus 16 bytes per piece). Every member
 * cuts its file runs at the domain and window boundaries once; in each cycle it sends each
 * aggregator the (offset, length) pieces of that window, with their data for a write (two
 * alltoallv exchanges on the file's private communicator). An aggregator merges adjacent
 * pieces of all members into few large pwritev/preadv calls (aggregate.c); for a read it
 * sends every piece's bytes back. Members exchange data in the file's representation
 * (converted before and after). Every member knows the number of cycles (from the span, the
 * aggregators and the buffer size, the same everywhere), so all take part in every cycle. */
#include "io/file.h"
#include "io/twophase.h"

#include "core/icoll.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WINDOW_MIN 16

typedef struct piece {
    int64_t off, len;
} piece_t; /* exchanged between members as two little-endian words */
_Static_assert(sizeof(piece_t) == 2 * sizeof(uint64_t), "a piece is two 64-bit words");

/* My pieces: cut at domain and window boundaries, in stream order. */
typedef struct cut {
    piece_t *v;
    size_t *at;    /* position of each piece's data in my packed stream */
    int *dest;     /* the aggregator's rank */
    int64_t *cyc;  /* its cycle */
    size_t n, cap;
} cut_t;

typedef struct plan {
    const int *aggr;
    int naggr;
    int64_t lo, dom, win, ncycles; /* domain a, window k: lo + a * dom + k * win, ... */
} plan_t;

static void cut_free(cut_t *c)
{
    free(c->v), free(c->at), free(c->dest), free(c->cyc);
}

static int cut_add(cut_t *c, int64_t off, int64_t len, size_t at, int dest, int64_t cyc)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        piece_t *v = realloc(c->v, cap * sizeof *v);
        if (v)
            c->v = v;
        size_t *a = v ? realloc(c->at, cap * sizeof *a) : NULL;
        if (a)
            c->at = a;
        int *d = a ? realloc(c->dest, cap * sizeof *d) : NULL;
        if (d)
            c->dest = d;
        int64_t *k = d ? realloc(c->cyc, cap * sizeof *k) : NULL;
        if (!k)
            return 1;
        c->cyc = k;
        c->cap = cap;
    }
    c->v[c->n] = (piece_t){ off, len };
    c->at[c->n] = at;
    c->dest[c->n] = dest;
    c->cyc[c->n++] = cyc;
    return 0;
}

typedef struct walk {
    const plan_t *p;
    cut_t *cut;
    size_t pos; /* stream bytes before this run */
} walk_t;

/* One file run of the view (in increasing offsets), cut at the boundaries. */
static int cut_run(void *arg, MPI_Offset off, size_t n)
{
    walk_t *w = arg;
    const plan_t *p = w->p;
    int64_t len = (int64_t)n;
    while (len > 0) {
        int64_t a = (off - p->lo) / p->dom, in = off - p->lo - a * p->dom, k = in / p->win;
        int64_t end = p->lo + a * p->dom + (k + 1) * p->win, dend = p->lo + (a + 1) * p->dom;
        if (end > dend)
            end = dend;
        int64_t take = off + len > end ? end - off : len;
        if (cut_add(w->cut, off, take, w->pos, p->aggr[a], k))
            return 1;
        w->pos += (size_t)take, off += take, len -= take;
    }
    return 0;
}

/* One cycle: my pieces [from, to) of w (all of cycle k) to their aggregators and, at an
 * aggregator, the file access. packed: my data in the file's representation. */
static int cycle(io_file_t *f, const cut_t *w, size_t from, size_t to, unsigned char *packed,
                 int write, int *io_rc)
{
    comm_t *c = f->comm;
    int n = c->size, rc = MPI_SUCCESS;
    /* per member: piece counts, displacements (pieces), data bytes, data displacements */
    size_t *m = calloc(8 * (size_t)n, sizeof *m);
    size_t *sc = m, *sd = m + n, *sb = m + 2 * n, *sbd = m + 3 * n;
    size_t *rc_ = m + 4 * n, *rd = m + 5 * n, *rb = m + 6 * n, *rbd = m + 7 * n;
    size_t k = to - from;
    piece_t *send = malloc((k ? k : 1) * sizeof *send);
    size_t *order = malloc((k ? k : 1) * sizeof *order), *fill = calloc((size_t)n, sizeof *fill);
    unsigned char *out = NULL, *agg = NULL;
    int in_place = 0;
    piece_t *recv = NULL;
    io_ref_t *refs = NULL;
    if (!m || !send || !order || !fill) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    for (size_t i = from; i < to; i++) {
        sc[w->dest[i]]++;
        sb[w->dest[i]] += (size_t)w->v[i].len;
    }
    for (int r = 1; r < n; r++) {
        sd[r] = sd[r - 1] + sc[r - 1];
        sbd[r] = sbd[r - 1] + sb[r - 1];
    }
    size_t out_bytes = sbd[n - 1] + sb[n - 1];
    /* grouped by destination rank, in stream order within each */
    for (size_t i = from; i < to; i++) {
        int d = w->dest[i];
        size_t j = sd[d] + fill[d]++;
        send[j] = w->v[i];
        order[j] = i;
    }
    /* when that order is my packed stream's (one cycle, aggregators in rank order: the
     * common case), the data moves straight from (or into) the packed buffer */
    size_t at = 0;
    in_place = k > 0 && packed;
    for (size_t j = 0; j < k && in_place; j++) {
        in_place = w->at[order[j]] == w->at[order[0]] + at;
        at += (size_t)send[j].len;
    }
    if (in_place) {
        out = packed + w->at[order[0]];
    } else if (!(out = malloc(out_bytes ? out_bytes : 1))) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    at = 0;
    for (size_t j = 0; j < k && !in_place; j++) {
        if (write)
            memcpy(out + at, packed + w->at[order[j]], (size_t)send[j].len);
        at += (size_t)send[j].len;
    }
    /* counts (pieces and bytes) travel together */
    uint64_t *two = malloc(4 * (size_t)n * sizeof *two);
    if (!two) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    for (int r = 0; r < n; r++)
        two[2 * r] = sc[r], two[2 * r + 1] = sb[r];
    rc = icoll_alltoall_u64(c, two, 2, two + 2 * n);
    for (int r = 0; r < n; r++)
        rc_[r] = two[2 * n + 2 * r], rb[r] = two[2 * n + 2 * r + 1];
    free(two);
    if (rc != MPI_SUCCESS)
        goto done;
    for (int r = 1; r < n; r++) {
        rd[r] = rd[r - 1] + rc_[r - 1];
        rbd[r] = rbd[r - 1] + rb[r - 1];
    }
    size_t nrecv = rd[n - 1] + rc_[n - 1], in_bytes = rbd[n - 1] + rb[n - 1];
    recv = malloc((nrecv ? nrecv : 1) * sizeof *recv);
    /* a read's pieces past the end of the file stay zero */
    agg = write ? malloc(in_bytes ? in_bytes : 1) : calloc(in_bytes ? in_bytes : 1, 1);
    refs = malloc((nrecv ? nrecv : 1) * sizeof *refs);
    if (!recv || !agg || !refs) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    /* the pieces, in bytes for the exchange (scaled in place: counts are not needed again) */
    for (int r = 0; r < n; r++) {
        sc[r] *= sizeof(piece_t), sd[r] *= sizeof(piece_t);
        rc_[r] *= sizeof(piece_t), rd[r] *= sizeof(piece_t);
    }
    rc = icoll_alltoallv_u64(c, send, sc, sd, recv, rc_, rd);
    if (rc == MPI_SUCCESS && write)
        rc = icoll_alltoallv(c, out, sb, sbd, agg, rb, rbd);
    if (rc != MPI_SUCCESS)
        goto done;
    at = 0;
    for (size_t i = 0; i < nrecv; i++) {
        refs[i] = (io_ref_t){ recv[i].off, recv[i].len, agg + at };
        at += (size_t)recv[i].len;
    }
    if (nrecv) {
        int e = io_aggregate(f->fd, refs, nrecv, write);
        if (*io_rc == MPI_SUCCESS)
            *io_rc = e;
    }
    if (!write) {
        /* the bytes go back the way their pieces came */
        rc = icoll_alltoallv(c, agg, rb, rbd, out, sb, sbd);
        at = 0;
        for (size_t j = 0; rc == MPI_SUCCESS && j < k && !in_place; j++) {
            memcpy(packed + w->at[order[j]], out + at, (size_t)send[j].len);
            at += (size_t)send[j].len;
        }
    }
done:
    if (!in_place)
        free(out);
    free(m), free(send), free(order), free(fill), free(agg), free(recv), free(refs);
    return rc;
}

/* The file's size for a read's count: fstat where this member has the file open, else
 * (metampi_file_sites=root) the size its holders see. Collective in that mode. */
static int file_size(io_file_t *f, int64_t *size)
{
    struct stat st;
    uint64_t v = f->fd >= 0 && fstat(f->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
    if (f->sites == IO_SITES_ROOT) {
        int rc = icoll_allreduce_u64(f->comm, &v, 1, ICOLL_MAX);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    *size = (int64_t)v;
    return MPI_SUCCESS;
}

/* The stream bytes of my runs below the file's size (a read's count). */
static size_t below_eof(int64_t size, const cut_t *w)
{
    struct stat st = { .st_size = (off_t)size };
    size_t got = 0;
    for (size_t i = 0; i < w->n; i++) {
        int64_t off = w->v[i].off, len = w->v[i].len;
        if (off >= st.st_size)
            break;
        got += (size_t)(off + len <= st.st_size ? len : st.st_size - off);
        if (off + len > st.st_size)
            break;
    }
    return got;
}

/* The plan of my group of members from every member's span (lo, hi, ready). The groups are
 * the sites: a member's data goes to an aggregator of its own site, so no file data crosses
 * the WAN (with a file per site, the only way; with a shared file, the sites' aggregators
 * write disjoint pieces of it), except with the file at rank 0's site, where all members
 * form one group and aggregate there (their data crosses the WAN once). Its aggregators
 * (f->aggr in that group; a group without one uses its lowest member), its span cut into
 * domains and windows; the number of cycles is the largest of every group's, so that all
 * members take part in the same number. *mem: the group's aggregators (freed by the
 * caller). */
static int make_plan(io_file_t *f, const uint64_t *spans, plan_t *p, int **mem)
{
    comm_t *c = f->comm;
    int *aggr = malloc((size_t)c->size * sizeof *aggr);
    if (!aggr)
        return MPI_ERR_NO_MEM;
    /* groups by site, unless the file is at rank 0's site alone */
    int per_site = f->sites != IO_SITES_ROOT;
    p->ncycles = 0;
    /* each group, named by its lowest member; mine is computed last and kept */
    for (int lead = 0; lead <= c->size; lead++) {
        int me = lead == c->size;
        int g = me ? c->rank : lead;
        if (!me) {
            int first = 1; /* is `lead` the lowest member of its group? */
            for (int r = 0; r < lead && first; r++)
                first = !(per_site ? f->site[r] == f->site[lead] : 1);
            if (!first)
                continue;
        }
        int64_t lo = INT64_MAX, hi = 0;
        int n = 0, low = -1;
        for (int r = 0; r < c->size; r++) {
            if (per_site && f->site[r] != f->site[g])
                continue;
            if (low < 0)
                low = r;
            if (spans[3 * r] != UINT64_MAX) {
                lo = (int64_t)spans[3 * r] < lo ? (int64_t)spans[3 * r] : lo;
                hi = (int64_t)spans[3 * r + 1] > hi ? (int64_t)spans[3 * r + 1] : hi;
            }
        }
        for (int a = 0; a < f->naggr; a++)
            if (!per_site || f->site[f->aggr[a]] == f->site[g])
                aggr[n++] = f->aggr[a];
        if (n == 0)
            aggr[n++] = low;
        if (lo == INT64_MAX)
            continue; /* no data in this group */
        plan_t q = { .aggr = aggr, .naggr = n, .lo = lo };
        q.dom = (hi - lo + n - 1) / n;
        if (q.dom <= 0)
            q.dom = 1;
        /* windows of at least WINDOW_MIN bytes bound the cycles a tiny hint makes */
        q.win = f->hints.cb_buffer_size < q.dom ? f->hints.cb_buffer_size : q.dom;
        if (q.win < WINDOW_MIN)
            q.win = WINDOW_MIN;
        q.ncycles = (q.dom + q.win - 1) / q.win;
        int64_t most = q.ncycles > p->ncycles ? q.ncycles : p->ncycles;
        if (me)
            *p = q;
        p->ncycles = most;
    }
    *mem = aggr;
    return MPI_SUCCESS;
}

/* The span of my runs: the first run's offset and the last run's end. */
typedef struct span {
    int64_t lo, hi;
} span_t;

static int span_run(void *arg, MPI_Offset off, size_t n)
{
    span_t *s = arg;
    if (s->lo < 0)
        s->lo = off;
    s->hi = off + (int64_t)n;
    return 0;
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
    int rc = MPI_SUCCESS;
    unsigned char *packed = NULL;
    if (bytes && write) /* the data in the file's representation */
        rc = io_rep_pack(f, buf, count, memtype, &packed, &bytes);
    else if (bytes && !(packed = malloc(bytes)))
        rc = MPI_ERR_NO_MEM;
    /* the view's runs come in increasing offsets: the first and the last give my span */
    span_t s = { -1, -1 };
    if (rc == MPI_SUCCESS && bytes) {
        s.lo = io_view_byte_offset(f, start);
        io_view_runs(f, start + (MPI_Offset)bytes - 1, 1, span_run, &s);
    }
    /* every member's span and readiness */
    uint64_t mine[3] = { s.lo >= 0 ? (uint64_t)s.lo : UINT64_MAX, s.lo >= 0 ? (uint64_t)s.hi : 0,
                         failed || rc != MPI_SUCCESS ? 0 : 1 };
    uint64_t *spans = malloc((size_t)c->size * sizeof mine);
    int all = spans ? icoll_allgather_u64(c, mine, 3, spans) : MPI_ERR_NO_MEM;
    int ready = all == MPI_SUCCESS, any = 0;
    for (int r = 0; ready && r < c->size; r++) {
        ready &= spans[3 * r + 2] != 0;
        any |= spans[3 * r] != UINT64_MAX;
    }
    plan_t p = { 0 };
    int *mem = NULL;
    if (ready && any)
        all = make_plan(f, spans, &p, &mem);
    free(spans);
    if (all != MPI_SUCCESS || !ready || !any) {
        free(packed);
        if (all != MPI_SUCCESS)
            return all;
        if (!ready) /* a member's checks failed: nobody moved anything */
            return failed ? failed : rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
        return MPI_SUCCESS;
    }
    cut_t w = { 0 };
    walk_t wk = { &p, &w, 0 };
    if (bytes && io_view_runs(f, start, (MPI_Offset)bytes, cut_run, &wk))
        rc = MPI_ERR_NO_MEM;
    /* pieces by cycle (stable): a member's pieces of one cycle are then one range */
    size_t *first = calloc((size_t)p.ncycles + 1, sizeof *first);
    cut_t by = { 0 };
    if (!first)
        rc = MPI_ERR_NO_MEM;
    for (size_t i = 0; rc == MPI_SUCCESS && i < w.n; i++)
        first[w.cyc[i] + 1]++;
    for (int64_t k = 0; rc == MPI_SUCCESS && k < p.ncycles; k++)
        first[k + 1] += first[k];
    if (rc == MPI_SUCCESS && w.n) {
        by.v = malloc(w.n * sizeof *by.v), by.at = malloc(w.n * sizeof *by.at);
        by.dest = malloc(w.n * sizeof *by.dest);
        size_t *fill = calloc((size_t)p.ncycles, sizeof *fill);
        if (!by.v || !by.at || !by.dest || !fill)
            rc = MPI_ERR_NO_MEM;
        for (size_t i = 0; rc == MPI_SUCCESS && i < w.n; i++) {
            size_t j = first[w.cyc[i]] + fill[w.cyc[i]]++;
            by.v[j] = w.v[i], by.at[j] = w.at[i], by.dest[j] = w.dest[i];
        }
        by.n = w.n;
        free(fill);
    }
    /* a member out of memory still takes part in every cycle, with nothing */
    int io_rc = MPI_SUCCESS;
    for (int64_t k = 0; k < p.ncycles; k++) {
        size_t a = rc == MPI_SUCCESS ? first[k] : 0, b = rc == MPI_SUCCESS ? first[k + 1] : 0;
        int e = cycle(f, &by, a, b, packed, write, &io_rc);
        if (rc == MPI_SUCCESS)
            rc = e;
    }
    if (rc == MPI_SUCCESS && !write && bytes)
        rc = io_rep_unpack(f, packed, bytes, buf, memtype);
    /* every member learns whether an aggregator failed */
    int e[1] = { rc != MPI_SUCCESS ? rc : io_rc };
    all = icoll_allreduce_int(c, e, 1, ICOLL_MAX);
    int64_t size = 0;
    if (all == MPI_SUCCESS && !write)
        all = file_size(f, &size);
    if (all == MPI_SUCCESS && e[0] == MPI_SUCCESS)
        *done = write ? bytes : below_eof(size, &w);
    free(packed), free(first), free(mem);
    cut_free(&w);
    cut_free(&by);
    if (all != MPI_SUCCESS)
        return all;
    return rc != MPI_SUCCESS ? rc : e[0] != MPI_SUCCESS ? MPI_ERR_IO : io_rc;
}
