/* Helpers of the point-to-point tests with derived datatypes (dt_p2p_*.c): a reference
 * typemap walk that knows nothing of metampi's engine — it flattens a type through
 * MPI_Type_get_envelope/MPI_Type_get_contents into byte segments, following the MPI-3.1
 * definitions of every combiner — and the checks built on it: a sender's buffer gets a
 * pattern, the receiver's a sentinel; after a transfer every byte the receive type covers
 * must hold the sender's matching stream byte, and every other byte the sentinel.
 * Plain MPI, so the programs also run under MPICH. */
#ifndef METAMPI_TEST_DT_P2P_H
#define METAMPI_TEST_DT_P2P_H

#include "dt_check.h"

#include <stddef.h>
#include <stdint.h>

/* A typemap as byte segments relative to the buffer's base, in typemap order. */
typedef struct seg {
    MPI_Aint off, len;
} seg_t;
typedef struct map {
    seg_t *v;
    size_t n, cap;
    MPI_Aint bytes, lo, hi;
} map_t;

static inline void map_push(map_t *m, MPI_Aint off, MPI_Aint len)
{
    if (len <= 0)
        return;
    if (m->bytes == 0 || off < m->lo)
        m->lo = off;
    if (m->bytes == 0 || off + len > m->hi)
        m->hi = off + len;
    m->bytes += len;
    if (m->n && m->v[m->n - 1].off + m->v[m->n - 1].len == off) {
        m->v[m->n - 1].len += len;
        return;
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->v = realloc(m->v, m->cap * sizeof *m->v);
        CHECK(m->v != NULL);
    }
    m->v[m->n++] = (seg_t){ off, len };
}

static inline MPI_Aint ref_extent(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    CHECK_RC(MPI_Type_get_extent(t, &lb, &ext), MPI_SUCCESS);
    return ext;
}

/* The pair types are predefined (NAMED) but not single elements. */
static inline int ref_pair(MPI_Datatype t, MPI_Aint disp, map_t *m)
{
    struct fi { float a; int b; };
    struct di { double a; int b; };
    struct li { long a; int b; };
    struct ii { int a; int b; };
    struct si { short a; int b; };
    struct ldi { long double a; int b; };
#define PAIR(h, s, first)                                                                      \
    if (t == h) {                                                                              \
        map_push(m, disp, sizeof(first));                                                      \
        map_push(m, disp + (MPI_Aint)offsetof(struct s, b), sizeof(int));                      \
        return 1;                                                                              \
    }
    PAIR(MPI_FLOAT_INT, fi, float)
    PAIR(MPI_DOUBLE_INT, di, double)
    PAIR(MPI_LONG_INT, li, long)
    PAIR(MPI_2INT, ii, int)
    PAIR(MPI_SHORT_INT, si, short)
    PAIR(MPI_LONG_DOUBLE_INT, ldi, long double)
#undef PAIR
    return 0;
}

static inline void ref_flat(MPI_Datatype t, MPI_Aint disp, map_t *m);

/* Index tuples of an n-dimensional array in C (last fastest) or Fortran order. */
static inline int ref_next(int n, const int *lim, int *idx, int order)
{
    for (int k = 0; k < n; k++) {
        int d = order == MPI_ORDER_C ? n - 1 - k : k;
        if (++idx[d] < lim[d])
            return 1;
        idx[d] = 0;
    }
    return 0;
}

static inline void ref_strides(int n, const int *sizes, int order, MPI_Aint e, MPI_Aint *st)
{
    for (int k = 0; k < n; k++) {
        int d = order == MPI_ORDER_C ? n - 1 - k : k;
        st[d] = e;
        e *= sizes[d];
    }
}

static inline int ref_owns(int dist, int darg, int g, int p, int c, int x)
{
    if (dist == MPI_DISTRIBUTE_NONE)
        return 1;
    if (dist == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return x / b == c;
    }
    int k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (x / k) % p == c;
}

static inline void ref_flat(MPI_Datatype t, MPI_Aint disp, map_t *m)
{
    int ni, na, nt, comb;
    CHECK_RC(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb), MPI_SUCCESS);
    if (comb == MPI_COMBINER_NAMED) {
        if (!ref_pair(t, disp, m)) {
            int size;
            CHECK_RC(MPI_Type_size(t, &size), MPI_SUCCESS);
            map_push(m, disp, size);
        }
        return;
    }
    int *in = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *ad = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)(nt + 1));
    CHECK_RC(MPI_Type_get_contents(t, ni, na, nt, in, ad, ty), MPI_SUCCESS);
    MPI_Aint e = nt ? ref_extent(ty[0]) : 0;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        ref_flat(ty[0], disp, m);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        for (int i = 0; i < in[0]; i++)
            ref_flat(ty[0], disp + i * e, m);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        MPI_Aint stride = comb == MPI_COMBINER_VECTOR ? in[2] * e : ad[0];
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                ref_flat(ty[0], disp + i * stride + j * e, m);
        break;
    }
    case MPI_COMBINER_INDEXED:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                ref_flat(ty[0], disp + ((MPI_Aint)in[1 + in[0] + i] + j) * e, m);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                ref_flat(ty[0], disp + ad[i] + j * e, m);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                ref_flat(ty[0], disp + ((MPI_Aint)in[2 + i] + j) * e, m);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                ref_flat(ty[0], disp + ad[i] + j * e, m);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                ref_flat(ty[i], disp + ad[i] + j * ref_extent(ty[i]), m);
        break;
    case MPI_COMBINER_SUBARRAY: {
        int n = in[0], *sz = in + 1, *sub = sz + n, *start = sub + n, order = in[1 + 3 * n];
        MPI_Aint st[16];
        int idx[16] = { 0 }, empty = 0;
        ref_strides(n, sz, order, e, st);
        for (int d = 0; d < n; d++)
            empty |= sub[d] == 0;
        if (!empty)
            do {
                MPI_Aint off = 0;
                for (int d = 0; d < n; d++)
                    off += (start[d] + idx[d]) * st[d];
                ref_flat(ty[0], disp + off, m);
            } while (ref_next(n, sub, idx, order));
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int size = in[0], rank = in[1], n = in[2], *gs = in + 3, *dist = gs + n,
            *darg = dist + n, *ps = darg + n, order = in[3 + 4 * n];
        int coord[16], procs = size, r = rank, idx[16] = { 0 };
        for (int i = 0; i < n; i++) {
            procs /= ps[i];
            coord[i] = r / procs;
            r %= procs;
        }
        MPI_Aint st[16];
        ref_strides(n, gs, order, e, st);
        do {
            int mine = 1;
            MPI_Aint off = 0;
            for (int d = 0; d < n; d++) {
                mine &= ref_owns(dist[d], darg[d], gs[d], ps[d], coord[d], idx[d]);
                off += idx[d] * st[d];
            }
            if (mine)
                ref_flat(ty[0], disp + off, m);
        } while (ref_next(n, gs, idx, order));
        break;
    }
    default:
        fprintf(stderr, "reference walk: combiner %d not handled\n", comb);
        CHECK(0);
    }
    for (int i = 0; i < nt; i++) {
        int ni2, na2, nt2, c2;
        MPI_Type_get_envelope(ty[i], &ni2, &na2, &nt2, &c2);
        if (c2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&ty[i]);
    }
    free(in);
    free(ad);
    free(ty);
}

/* The typemap of count elements of t. */
static inline map_t ref_map(MPI_Datatype t, int count)
{
    map_t m;
    memset(&m, 0, sizeof m);
    MPI_Aint e = ref_extent(t);
    for (int i = 0; i < count; i++)
        ref_flat(t, i * e, &m);
    return m;
}

static inline void map_free(map_t *m)
{
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* Memory for a map: base is where offset 0 lies (bytes lo..hi of the map are inside). */
typedef struct tbuf {
    unsigned char *mem, *base;
    size_t span;
} tbuf_t;

static inline tbuf_t tbuf_alloc(const map_t *m)
{
    tbuf_t b;
    b.span = (size_t)(m->hi - m->lo) + 64;
    b.mem = malloc(b.span);
    CHECK(b.mem != NULL);
    b.base = b.mem + 32 - m->lo;
    return b;
}

static inline unsigned char pattern(int seed, size_t i)
{
    return (unsigned char)((i * 131u + (size_t)seed * 29u + (i >> 8) * 7u) & 0xff);
}

static inline void tbuf_fill(tbuf_t *b, int seed)
{
    for (size_t i = 0; i < b->span; i++)
        b->mem[i] = pattern(seed, i);
}

#define SENTINEL 0xee

/* The packed stream of map m over buffer b. */
static inline unsigned char *stream_of(const map_t *m, const unsigned char *base)
{
    unsigned char *s = malloc((size_t)m->bytes + 1);
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++) {
        memcpy(s + k, base + m->v[i].off, (size_t)m->v[i].len);
        k += (size_t)m->v[i].len;
    }
    return s;
}

/* Checks that buffer b (sentinel-filled before) holds the first n bytes of stream s where
 * map m says, and the sentinel everywhere else. Returns the first bad offset or -1. */
static inline long check_received(const map_t *m, const tbuf_t *b, const unsigned char *s, size_t n)
{
    unsigned char *want = malloc(b->span);
    memset(want, SENTINEL, b->span);
    size_t k = 0;
    for (size_t i = 0; i < m->n && k < n; i++) {
        size_t len = (size_t)m->v[i].len < n - k ? (size_t)m->v[i].len : n - k;
        memcpy(want + (b->base - b->mem) + m->v[i].off, s + k, len);
        k += len;
    }
    long bad = -1;
    if (memcmp(want, b->mem, b->span) != 0)
        for (size_t i = 0; i < b->span; i++)
            if (want[i] != b->mem[i]) {
                bad = (long)i;
                break;
            }
    free(want);
    return bad;
}

#endif
