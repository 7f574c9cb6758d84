/*
 * The datatype engine (compile.c, cursor.c, layout.c) against a reference: every test type is
 * built twice — as a dtype_t construction tree (what the type constructors produce) and as
 * its explicit typemap, computed here from the MPI-3.1 definitions element by element. The
 * packed stream of count elements is then known byte by byte (address and basic type of every
 * byte), and pack, unpack, seek, iov, next_block and element counts are compared with it at
 * random offsets and in random chunks. Also: randomly nested types, a type deeper than a
 * cursor can follow, a vector of 10^9 blocks (the layout stays small and seeks stay exact),
 * and corrupted layouts, which must be rejected or at least walk safely.
 *
 * Usage: unit_dt_engine [seed [random-types]]
 */
#include "datatype/compile.h"
#include "datatype/engine/format.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                    \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            if (++failures > 20)                                                               \
                exit(1);                                                                       \
        }                                                                                      \
    } while (0)

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int64_t rnd_in(int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* ---- test types: a dtype_t and its typemap ---------------------------------------------- */

typedef struct tm {
    int64_t disp;
    uint32_t len;
    int basic;
} tm_t;

typedef struct ttype {
    dtype_t d;
    tm_t *map;                /* one basic element per entry, in typemap order */
    size_t n, cap;
    int placed;
} ttype_t;

#define MAX_TYPES 100000
static ttype_t *types[MAX_TYPES];
static int ntypes;

static dtype_t *lookup(MPI_Datatype h)
{
    return h > 0 && h <= ntypes ? &types[h - 1]->d : NULL;
}
static ttype_t *T(MPI_Datatype h)
{
    return types[h - 1];
}
static int64_t ext(MPI_Datatype h)
{
    return T(h)->d.ub - T(h)->d.lb;
}

static MPI_Datatype new_type(int combiner, int ni, const int *in, int na, const MPI_Aint *ad,
                             int nt, const MPI_Datatype *ty)
{
    if (ntypes == MAX_TYPES) {
        fprintf(stderr, "too many test types\n");
        exit(1);
    }
    ttype_t *t = calloc(1, sizeof *t);
    t->d.combiner = combiner;
    t->d.nints = ni;
    t->d.naddrs = na;
    t->d.ntypes = nt;
    t->d.ints = malloc(sizeof(int) * (size_t)(ni + 1));
    t->d.addrs = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    t->d.types = malloc(sizeof(MPI_Datatype) * (size_t)(nt + 1));
    if (ni)
        memcpy(t->d.ints, in, sizeof(int) * (size_t)ni);
    if (na)
        memcpy(t->d.addrs, ad, sizeof(MPI_Aint) * (size_t)na);
    if (nt)
        memcpy(t->d.types, ty, sizeof(MPI_Datatype) * (size_t)nt);
    types[ntypes++] = t;
    t->d.handle = ntypes;
    return ntypes;
}

/* Set while building types too big to expand: only the dtype_t is built. */
static int no_typemap;

/* Adds a copy of type h at offset off to t's typemap and bounds (MPI's rule for lb/ub). */
static void put(ttype_t *t, int64_t off, MPI_Datatype h)
{
    ttype_t *c = T(h);
    if (no_typemap)
        return;
    if (t->n + c->n > t->cap) {
        t->cap = (t->n + c->n) * 2 + 16;
        t->map = realloc(t->map, t->cap * sizeof *t->map);
    }
    for (size_t k = 0; k < c->n; k++) {
        t->map[t->n] = c->map[k];
        t->map[t->n++].disp += off;
    }
    if (!t->placed || off + c->d.lb < t->d.lb)
        t->d.lb = off + c->d.lb;
    if (!t->placed || off + c->d.ub > t->d.ub)
        t->d.ub = off + c->d.ub;
    t->placed = 1;
}

static MPI_Datatype done(MPI_Datatype h)
{
    ttype_t *t = T(h);
    t->d.size = 0;
    for (size_t k = 0; k < t->n; k++)
        t->d.size += t->map[k].len;
    t->d.committed = 1;
    return h;
}

static MPI_Datatype t_named(int basic, uint32_t size)
{
    MPI_Datatype h = new_type(MPI_COMBINER_NAMED, 0, NULL, 0, NULL, 0, NULL);
    ttype_t *t = T(h);
    t->d.basic = basic;
    t->d.predefined = 1;
    t->map = malloc(sizeof *t->map);
    t->map[0] = (tm_t){ 0, size, basic };
    t->n = 1;
    t->d.lb = 0;
    t->d.ub = size;
    return done(h);
}

static MPI_Datatype DOUBLE, INT, CHAR, SHORT, LDOUBLE;

static MPI_Datatype t_contig(int n, MPI_Datatype old)
{
    MPI_Datatype h = new_type(MPI_COMBINER_CONTIGUOUS, 1, &n, 0, NULL, 1, &old);
    for (int i = 0; i < n; i++)
        put(T(h), i * ext(old), old);
    return done(h);
}

static MPI_Datatype t_vector(int n, int bl, int stride, MPI_Datatype old)
{
    int in[3] = { n, bl, stride };
    MPI_Datatype h = new_type(MPI_COMBINER_VECTOR, 3, in, 0, NULL, 1, &old);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < bl; j++)
            put(T(h), ((int64_t)i * stride + j) * ext(old), old);
    return done(h);
}

static MPI_Datatype t_hvector(int n, int bl, MPI_Aint stride, MPI_Datatype old)
{
    int in[2] = { n, bl };
    MPI_Datatype h = new_type(MPI_COMBINER_HVECTOR, 2, in, 1, &stride, 1, &old);
    for (int i = 0; i < n && !no_typemap; i++)
        for (int j = 0; j < bl; j++)
            put(T(h), i * stride + j * ext(old), old);
    return done(h);
}

static MPI_Datatype t_indexed(int n, const int *bl, const int *disp, MPI_Datatype old)
{
    int *in = malloc(sizeof(int) * (size_t)(1 + 2 * n));
    in[0] = n;
    memcpy(in + 1, bl, sizeof(int) * (size_t)n);
    memcpy(in + 1 + n, disp, sizeof(int) * (size_t)n);
    MPI_Datatype h = new_type(MPI_COMBINER_INDEXED, 1 + 2 * n, in, 0, NULL, 1, &old);
    free(in);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < bl[i]; j++)
            put(T(h), ((int64_t)disp[i] + j) * ext(old), old);
    return done(h);
}

static MPI_Datatype t_hindexed(int n, const int *bl, const MPI_Aint *disp, MPI_Datatype old)
{
    int *in = malloc(sizeof(int) * (size_t)(1 + n));
    in[0] = n;
    memcpy(in + 1, bl, sizeof(int) * (size_t)n);
    MPI_Datatype h = new_type(MPI_COMBINER_HINDEXED, 1 + n, in, n, disp, 1, &old);
    free(in);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < bl[i]; j++)
            put(T(h), disp[i] + j * ext(old), old);
    return done(h);
}

static MPI_Datatype t_indexed_block(int n, int bl, const int *disp, MPI_Datatype old)
{
    int *in = malloc(sizeof(int) * (size_t)(2 + n));
    in[0] = n;
    in[1] = bl;
    memcpy(in + 2, disp, sizeof(int) * (size_t)n);
    MPI_Datatype h = new_type(MPI_COMBINER_INDEXED_BLOCK, 2 + n, in, 0, NULL, 1, &old);
    free(in);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < bl; j++)
            put(T(h), ((int64_t)disp[i] + j) * ext(old), old);
    return done(h);
}

static MPI_Datatype t_hindexed_block(int n, int bl, const MPI_Aint *disp, MPI_Datatype old)
{
    int in[2] = { n, bl };
    MPI_Datatype h = new_type(MPI_COMBINER_HINDEXED_BLOCK, 2, in, n, disp, 1, &old);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < bl; j++)
            put(T(h), disp[i] + j * ext(old), old);
    return done(h);
}

static MPI_Datatype t_struct(int n, const int *bl, const MPI_Aint *disp,
                             const MPI_Datatype *ty)
{
    int *in = malloc(sizeof(int) * (size_t)(1 + n));
    in[0] = n;
    memcpy(in + 1, bl, sizeof(int) * (size_t)n);
    MPI_Datatype h = new_type(MPI_COMBINER_STRUCT, 1 + n, in, n, disp, n, ty);
    free(in);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < bl[i]; j++)
            put(T(h), disp[i] + j * ext(ty[i]), ty[i]);
    return done(h);
}

static MPI_Datatype t_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent)
{
    MPI_Aint ad[2] = { lb, extent };
    MPI_Datatype h = new_type(MPI_COMBINER_RESIZED, 0, NULL, 2, ad, 1, &old);
    put(T(h), 0, old);
    T(h)->d.lb = lb;
    T(h)->d.ub = lb + extent;
    return done(h);
}

static MPI_Datatype t_dup(MPI_Datatype old)
{
    MPI_Datatype h = new_type(MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &old);
    put(T(h), 0, old);
    T(h)->d.lb = T(old)->d.lb;
    T(h)->d.ub = T(old)->d.ub;
    return done(h);
}

/* Index tuples of an nd-dimensional array in the order's element order. */
static int next_index(int nd, const int *lim, int *idx, int order)
{
    for (int k = 0; k < nd; k++) {
        int d = order == MPI_ORDER_C ? nd - 1 - k : k;
        if (++idx[d] < lim[d])
            return 1;
        idx[d] = 0;
    }
    return 0;
}

static void strides_of(int nd, const int *sizes, int order, int64_t e, int64_t *st)
{
    for (int k = 0; k < nd; k++) {
        int d = order == MPI_ORDER_C ? nd - 1 - k : k;
        st[d] = e;
        e *= sizes[d];
    }
}

static MPI_Datatype t_subarray(int nd, const int *sizes, const int *subs, const int *starts,
                               int order, MPI_Datatype old)
{
    int in[3 * 8 + 2];
    in[0] = nd;
    memcpy(in + 1, sizes, sizeof(int) * (size_t)nd);
    memcpy(in + 1 + nd, subs, sizeof(int) * (size_t)nd);
    memcpy(in + 1 + 2 * nd, starts, sizeof(int) * (size_t)nd);
    in[1 + 3 * nd] = order;
    MPI_Datatype h = new_type(MPI_COMBINER_SUBARRAY, 3 * nd + 2, in, 0, NULL, 1, &old);
    int64_t st[8];
    strides_of(nd, sizes, order, ext(old), st);
    int idx[8] = { 0 }, empty = 0;
    for (int d = 0; d < nd; d++)
        empty |= subs[d] == 0;
    if (!empty) {
        do {
            int64_t off = 0;
            for (int d = 0; d < nd; d++)
                off += (starts[d] + idx[d]) * st[d];
            put(T(h), off, old);
        } while (next_index(nd, subs, idx, order));
    }
    T(h)->d.lb = 0;
    T(h)->d.ub = st[order == MPI_ORDER_C ? 0 : nd - 1] * sizes[order == MPI_ORDER_C ? 0 : nd - 1];
    return done(h);
}

static int owns(int dist, int darg, int g, int p, int c, int x)
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

static MPI_Datatype t_darray(int size, int rank, int nd, const int *gs, const int *dist,
                             const int *darg, const int *ps, int order, MPI_Datatype old)
{
    int in[4 * 8 + 4];
    in[0] = size;
    in[1] = rank;
    in[2] = nd;
    memcpy(in + 3, gs, sizeof(int) * (size_t)nd);
    memcpy(in + 3 + nd, dist, sizeof(int) * (size_t)nd);
    memcpy(in + 3 + 2 * nd, darg, sizeof(int) * (size_t)nd);
    memcpy(in + 3 + 3 * nd, ps, sizeof(int) * (size_t)nd);
    in[3 + 4 * nd] = order;
    MPI_Datatype h = new_type(MPI_COMBINER_DARRAY, 4 * nd + 4, in, 0, NULL, 1, &old);
    int coord[8], procs = size, r = rank;
    for (int i = 0; i < nd; i++) {
        procs /= ps[i];
        coord[i] = r / procs;
        r %= procs;
    }
    int64_t st[8];
    strides_of(nd, gs, order, ext(old), st);
    int idx[8] = { 0 };
    do {
        int mine = 1;
        int64_t off = 0;
        for (int d = 0; d < nd; d++) {
            mine &= owns(dist[d], darg[d], gs[d], ps[d], coord[d], idx[d]);
            off += idx[d] * st[d];
        }
        if (mine)
            put(T(h), off, old);
    } while (next_index(nd, gs, idx, order));
    T(h)->d.lb = 0;
    T(h)->d.ub = st[order == MPI_ORDER_C ? 0 : nd - 1] * gs[order == MPI_ORDER_C ? 0 : nd - 1];
    return done(h);
}

/* ---- the reference stream of count elements ------------------------------------------ */

typedef struct ref {
    size_t total;
    int64_t *addr;            /* address offset (from base) of every stream byte */
    int *basic;               /* its basic type */
    unsigned char *elem_end;  /* 1 where a basic element ends */
    int64_t lo, hi;           /* range of addresses touched */
} ref_t;

static void ref_build(ref_t *r, MPI_Datatype h, size_t count)
{
    ttype_t *t = T(h);
    r->total = count * (size_t)t->d.size;
    r->addr = malloc((r->total + 1) * sizeof *r->addr);
    r->basic = malloc((r->total + 1) * sizeof *r->basic);
    r->elem_end = malloc(r->total + 1);
    r->lo = r->hi = 0;
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        for (size_t m = 0; m < t->n; m++) {
            int64_t a = (int64_t)i * ext(h) + t->map[m].disp;
            if (k == 0 || a < r->lo)
                r->lo = a;
            if (k == 0 || a + t->map[m].len > r->hi)
                r->hi = a + t->map[m].len;
            for (uint32_t b = 0; b < t->map[m].len; b++, k++) {
                r->addr[k] = a + b;
                r->basic[k] = t->map[m].basic;
                r->elem_end[k] = b + 1 == t->map[m].len;
            }
        }
    }
}

static void ref_free(ref_t *r)
{
    free(r->addr);
    free(r->basic);
    free(r->elem_end);
}

static long long ref_elements(const ref_t *r, size_t bytes)
{
    long long n = 0;
    for (size_t k = 0; k < bytes; k++)
        n += r->elem_end[k];
    return bytes && !r->elem_end[bytes - 1] ? -1 : n;
}

/* ---- checks of one (type, count) --------------------------------------------------------- */

static void check_type(const char *what, MPI_Datatype h, size_t count)
{
    dt_layout_t *l = dt_compile_tree(lookup(h), lookup);
    CHECK(l != NULL, "%s: compile failed", what);
    if (!l)
        return;
    size_t blen;
    const void *bytes = dt_layout_bytes(l, &blen);
    CHECK(dt_layout_check(bytes, blen) == l, "%s: its own layout does not validate", what);
    CHECK(dt_layout_size(l) == (size_t)T(h)->d.size, "%s: size %zu, want %lld", what,
          dt_layout_size(l), (long long)T(h)->d.size);
    CHECK(dt_layout_extent(l) == ext(h), "%s: extent", what);

    ref_t r;
    ref_build(&r, h, count);
    if (r.total && count == 1)
        CHECK(dt_layout_true_lb(l) == r.lo, "%s: true_lb %zd, want %lld", what,
              dt_layout_true_lb(l), (long long)r.lo);
    int contig = 1;
    for (size_t k = 1; k < r.total; k++)
        contig &= r.addr[k] == r.addr[0] + (int64_t)k;
    if (dt_layout_contiguous(l, count))
        CHECK(contig && (!r.total || r.addr[0] == dt_layout_true_lb(l)),
              "%s: reported contiguous, is not", what);

    size_t span = (size_t)(r.hi - r.lo) + 1;
    unsigned char *mem = malloc(span), *mem2 = malloc(span), *want = malloc(span);
    unsigned char *stream = malloc(r.total + 1), *out = malloc(r.total + 1);
    for (size_t k = 0; k < span; k++)
        mem[k] = (unsigned char)rnd();
    uintptr_t base = (uintptr_t)mem - (uintptr_t)r.lo;
    for (size_t k = 0; k < r.total; k++)
        stream[k] = mem[r.addr[k] - r.lo];

    /* pack: whole, then in random chunks */
    dt_cursor_t c;
    dt_cursor_init(&c, l, base, count);
    CHECK(c.total == r.total, "%s: cursor total", what);
    size_t n = dt_pack(&c, out, r.total + 5);
    CHECK(n == r.total && memcmp(out, stream, r.total) == 0, "%s: pack whole (%zu of %zu)",
          what, n, r.total);
    CHECK(dt_pack(&c, out, 1) == 0, "%s: pack past the end", what);
    dt_cursor_init(&c, l, base, count);
    memset(out, 0, r.total + 1);
    for (size_t pos = 0; pos < r.total;) {
        size_t k = (size_t)rnd_in(1, rnd() % 4 ? 64 : (int64_t)r.total);
        size_t got = dt_pack(&c, out + pos, k);
        CHECK(got == (k < r.total - pos ? k : r.total - pos), "%s: chunk", what);
        pos += got;
    }
    CHECK(memcmp(out, stream, r.total) == 0, "%s: pack in chunks", what);

    /* unpack in random chunks into a scrambled copy: equal to the reference writes */
    for (size_t k = 0; k < span; k++)
        mem2[k] = (unsigned char)rnd();
    memcpy(want, mem2, span);
    for (size_t k = 0; k < r.total; k++)
        want[r.addr[k] - r.lo] = (unsigned char)(stream[k] ^ 0x5a);
    for (size_t k = 0; k < r.total; k++)
        out[k] = (unsigned char)(stream[k] ^ 0x5a);
    dt_cursor_init(&c, l, (uintptr_t)mem2 - (uintptr_t)r.lo, count);
    for (size_t pos = 0; pos < r.total;) {
        size_t k = (size_t)rnd_in(1, rnd() % 4 ? 64 : (int64_t)r.total);
        pos += dt_unpack(&c, out + pos, k);
    }
    CHECK(memcmp(mem2, want, span) == 0, "%s: unpack in chunks", what);

    /* seek to random offsets, then pack, unpack or describe a random piece */
    dt_cursor_init(&c, l, base, count);
    for (int it = 0; it < 40 && r.total; it++) {
        size_t off = (size_t)rnd_in(0, (int64_t)r.total - 1);
        size_t len = (size_t)rnd_in(1, (int64_t)(r.total - off));
        dt_cursor_seek(&c, off);
        CHECK(c.pos == off, "%s: seek", what);
        switch (it % 3) {
        case 0:
            CHECK(dt_pack(&c, out, len) == len && memcmp(out, stream + off, len) == 0,
                  "%s: pack %zu at %zu", what, len, off);
            break;
        case 1: {
            dt_cursor_t u;
            dt_cursor_init(&u, l, (uintptr_t)mem2 - (uintptr_t)r.lo, count);
            dt_cursor_seek(&u, off);
            for (size_t k = 0; k < len; k++) {
                out[k] = (unsigned char)rnd();
                want[r.addr[off + k] - r.lo] = out[k];
            }
            CHECK(dt_unpack(&u, out, len) == len && memcmp(mem2, want, span) == 0,
                  "%s: unpack %zu at %zu", what, len, off);
            break;
        }
        default: {
            struct iovec iov[7];
            size_t pos = off;
            while (pos < off + len) {
                size_t b;
                int k = dt_iov(&c, iov, (int)rnd_in(1, 7), off + len - pos, &b);
                CHECK(k >= 1 && b >= 1, "%s: iov made no progress", what);
                if (k < 1 || b < 1)
                    break;
                size_t sum = 0;
                for (int j = 0; j < k; j++) {
                    for (size_t q = 0; q < iov[j].iov_len; q++)
                        CHECK((uintptr_t)iov[j].iov_base + q == base + (uintptr_t)r.addr[pos + sum + q],
                              "%s: iov %d byte %zu", what, j, q);
                    if (j)
                        CHECK((uintptr_t)iov[j - 1].iov_base + iov[j - 1].iov_len !=
                                  (uintptr_t)iov[j].iov_base,
                              "%s: adjacent iovecs not merged", what);
                    sum += iov[j].iov_len;
                }
                CHECK(sum == b, "%s: iov bytes", what);
                pos += b;
            }
        }
        }
    }

    /* next_block: one basic type per piece, in stream order */
    dt_cursor_seek(&c, 0);
    size_t pos = 0;
    uintptr_t a;
    size_t blk;
    int basic;
    while (dt_next_block(&c, &a, &blk, &basic)) {
        CHECK(blk > 0 && pos + blk <= r.total, "%s: block size", what);
        if (!blk || pos + blk > r.total)
            break;
        for (size_t q = 0; q < blk; q++)
            CHECK(a + q == base + (uintptr_t)r.addr[pos + q] && basic == r.basic[pos + q],
                  "%s: next_block byte %zu", what, pos + q);
        pos += blk;
    }
    CHECK(pos == r.total, "%s: next_block covered %zu of %zu", what, pos, r.total);

    /* element counts */
    for (int it = 0; it < 20; it++) {
        size_t b = it == 0 ? r.total : (size_t)rnd_in(0, (int64_t)r.total);
        CHECK(dt_layout_elements(l, b) == ref_elements(&r, b), "%s: elements(%zu) %lld, want %lld",
              what, b, dt_layout_elements(l, b), ref_elements(&r, b));
    }
    free(mem);
    free(mem2);
    free(want);
    free(stream);
    free(out);
    ref_free(&r);
    dt_layout_free(l);
}

static size_t layout_len(MPI_Datatype h)
{
    dt_layout_t *l = dt_compile_tree(lookup(h), lookup);
    size_t len = 0;
    if (l)
        dt_layout_bytes(l, &len);
    dt_layout_free(l);
    return len;
}

/* ---- fixed cases -------------------------------------------------------------------------- */

static void fixed_cases(void)
{
    check_type("double", DOUBLE, 1);
    check_type("double x7", DOUBLE, 7);
    MPI_Datatype v = t_vector(5, 2, 3, DOUBLE);
    check_type("vector(5,2,3,double)", v, 1);
    check_type("vector(5,2,3,double) x3", v, 3);
    check_type("vector neg stride", t_vector(4, 1, -2, INT), 3);
    check_type("vector stride=bl", t_vector(6, 3, 3, INT), 2);
    check_type("hvector", t_hvector(7, 3, 100, SHORT), 2);
    int bl[4] = { 2, 0, 3, 1 }, dp[4] = { 5, 1, 0, 9 };
    check_type("indexed", t_indexed(4, bl, dp, DOUBLE), 3);
    MPI_Aint hd[4] = { 40, 8, -16, 200 };
    check_type("hindexed", t_hindexed(4, bl, hd, INT), 2);
    int dpb[5] = { 0, 3, 6, 9, 12 };
    check_type("indexed_block regular", t_indexed_block(5, 2, dpb, DOUBLE), 2);
    check_type("hindexed_block", t_hindexed_block(4, 3, hd, CHAR), 3);
    /* struct {int; float-ish; double} with padding, and a packed one that is contiguous */
    int sbl[3] = { 1, 2, 1 };
    MPI_Aint sd[3] = { 0, 4, 16 };
    MPI_Datatype st3[3] = { INT, INT, DOUBLE };
    MPI_Datatype s = t_struct(3, sbl, sd, st3);
    check_type("struct", s, 4);
    int pbl[2] = { 1, 1 };
    MPI_Aint pd[2] = { 0, 4 };
    MPI_Datatype pt[2] = { INT, SHORT };
    MPI_Datatype packed = t_struct(2, pbl, pd, pt);
    check_type("struct packed", packed, 5);
    MPI_Datatype packed_r = t_resized(packed, 0, 6);
    check_type("struct packed, extent 6", packed_r, 5);
    dt_layout_t *l = dt_compile_tree(lookup(packed_r), lookup);
    CHECK(l && dt_layout_contiguous(l, 5), "packed struct resized to its size is contiguous");
    dt_layout_free(l);
    MPI_Datatype swap = t_struct(2, pbl, (MPI_Aint[]){ 4, 0 }, (MPI_Datatype[]){ INT, INT });
    check_type("struct out of order", swap, 2);
    l = dt_compile_tree(lookup(swap), lookup);
    CHECK(l && !dt_layout_contiguous(l, 1), "out-of-order struct is not contiguous");
    dt_layout_free(l);
    l = dt_compile_tree(lookup(t_contig(10, DOUBLE)), lookup);
    CHECK(l && dt_layout_contiguous(l, 3) && dt_layout_blocks(l) == 1, "contiguous(10, double)");
    dt_layout_free(l);
    l = dt_compile_tree(lookup(t_vector(8, 4, 4, INT)), lookup);
    CHECK(l && dt_layout_contiguous(l, 3), "vector with stride == blocklength is contiguous");
    dt_layout_free(l);
    check_type("resized column", t_resized(t_vector(4, 1, 4, DOUBLE), 0, 8), 4);
    check_type("resized lb", t_resized(t_contig(2, INT), -8, 24), 3);
    check_type("dup", t_dup(s), 2);
    check_type("empty vector", t_vector(0, 3, 3, INT), 3);
    check_type("contig of empty", t_contig(4, t_vector(3, 0, 1, INT)), 2);
    check_type("long double", t_vector(3, 1, 2, LDOUBLE), 2);
    /* subarrays: a 3-D face in each direction, both orders */
    int sz[3] = { 6, 5, 4 };
    for (int order = MPI_ORDER_C; order <= MPI_ORDER_FORTRAN; order++) {
        for (int face = 0; face < 3; face++) {
            int sub[3] = { 6, 5, 4 }, start[3] = { 0, 0, 0 };
            sub[face] = 1;
            start[face] = face + 1;
            char what[64];
            snprintf(what, sizeof what, "subarray face %d order %d", face, order);
            check_type(what, t_subarray(3, sz, sub, start, order, DOUBLE), 2);
        }
        int sub[3] = { 3, 2, 3 }, start[3] = { 2, 1, 1 };
        check_type("subarray block", t_subarray(3, sz, sub, start, order, INT), 2);
    }
    /* darrays: block, cyclic(k), none, default args, every rank of a 2x3 grid */
    int gs[2] = { 11, 13 }, ps[2] = { 2, 3 };
    int dists[3][2] = { { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
                        { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK },
                        { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC } };
    int dargs[3][2] = { { MPI_DISTRIBUTE_DFLT_DARG, 2 },
                        { 3, MPI_DISTRIBUTE_DFLT_DARG },
                        { MPI_DISTRIBUTE_DFLT_DARG, 4 } };
    for (int order = MPI_ORDER_C; order <= MPI_ORDER_FORTRAN; order++)
        for (int v2 = 0; v2 < 3; v2++)
            for (int rank = 0; rank < 6; rank++) {
                char what[64];
                snprintf(what, sizeof what, "darray %d rank %d order %d", v2, rank, order);
                check_type(what, t_darray(6, rank, 2, gs, dists[v2], dargs[v2], ps, order,
                                          DOUBLE),
                           1);
            }
    int gs1[3] = { 7, 5, 6 }, ps1[3] = { 1, 2, 2 };
    int dn[3] = { MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC };
    int da[3] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG };
    for (int rank = 0; rank < 4; rank++)
        check_type("darray 3-D with NONE", t_darray(4, rank, 3, gs1, dn, da, ps1, MPI_ORDER_C,
                                                   INT), 2);
    /* pair type as h-dt-api builds it, and arrays of it */
    MPI_Datatype di = t_resized(t_struct(2, pbl, (MPI_Aint[]){ 0, 8 },
                                         (MPI_Datatype[]){ DOUBLE, INT }), 0, 16);
    check_type("double_int", di, 9);
    check_type("vector of double_int", t_vector(3, 2, 3, di), 2);
}

/* ---- randomized nesting -------------------------------------------------------------- */

static MPI_Datatype basic_type(void)
{
    MPI_Datatype b[5] = { DOUBLE, INT, CHAR, SHORT, LDOUBLE };
    return b[rnd() % 5];
}

/* A random type of at most about `budget` basic elements, nested up to depth. */
static MPI_Datatype rnd_type(int depth, int budget)
{
    if (depth == 0 || budget < 2)
        return basic_type();
    int kind = (int)(rnd() % 11);
    int n = (int)rnd_in(1, budget < 6 ? budget : 6);
    MPI_Datatype old = rnd_type(depth - 1, budget / (n * 2) > 0 ? budget / (n * 2) : 1);
    int64_t e = ext(old) ? ext(old) : 1;
    switch (kind) {
    case 0:
        return t_contig(n, old);
    case 1:
        return t_vector(n, (int)rnd_in(0, 2), (int)rnd_in(-3, 4), old);
    case 2:
        return t_hvector(n, (int)rnd_in(1, 2), (MPI_Aint)rnd_in(-2 * e, 4 * e), old);
    case 3: {
        int bl[6], dp[6];
        for (int i = 0; i < n; i++) {
            bl[i] = (int)rnd_in(0, 2);
            dp[i] = (int)rnd_in(-4, 8);
        }
        return t_indexed(n, bl, dp, old);
    }
    case 4: {
        int bl[6];
        MPI_Aint dp[6];
        for (int i = 0; i < n; i++) {
            bl[i] = (int)rnd_in(1, 2);
            dp[i] = (MPI_Aint)rnd_in(-e, 6 * e);
        }
        return t_hindexed(n, bl, dp, old);
    }
    case 5: {
        int dp[6];
        for (int i = 0; i < n; i++)
            dp[i] = rnd() % 2 ? 3 * i : (int)rnd_in(0, 10);
        return t_indexed_block(n, (int)rnd_in(1, 3), dp, old);
    }
    case 6: {
        int bl[6];
        MPI_Aint dp[6];
        MPI_Datatype ty[6];
        MPI_Aint at = 0;
        for (int i = 0; i < n; i++) {
            ty[i] = i ? rnd_type(depth - 1, budget / (n * 2) > 0 ? budget / (n * 2) : 1) : old;
            bl[i] = (int)rnd_in(1, 2);
            int64_t te = ext(ty[i]) > 0 ? ext(ty[i]) : 1;
            dp[i] = rnd() % 3 ? at : (MPI_Aint)rnd_in(-te, 3 * te);
            at = dp[i] + bl[i] * te + (rnd() % 2 ? 0 : (MPI_Aint)rnd_in(0, 8));
        }
        return t_struct(n, bl, dp, ty);
    }
    case 7:
        return t_resized(old, (MPI_Aint)rnd_in(-4, 4), (MPI_Aint)rnd_in(1, 2 * e + 8));
    case 8: {
        int nd = (int)rnd_in(1, 3), sz[3], sub[3], start[3];
        for (int d = 0; d < nd; d++) {
            sz[d] = (int)rnd_in(1, 4);
            sub[d] = (int)rnd_in(1, sz[d]);
            start[d] = (int)rnd_in(0, sz[d] - sub[d]);
        }
        return t_subarray(nd, sz, sub, start, rnd() % 2 ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old);
    }
    case 9: {
        int nd = (int)rnd_in(1, 2), gs[2], dist[2], darg[2], ps[2], size = 1;
        for (int d = 0; d < nd; d++) {
            gs[d] = (int)rnd_in(1, 6);
            ps[d] = (int)rnd_in(1, 3);
            size *= ps[d];
            int k = (int)(rnd() % 3);
            dist[d] = k == 0 ? MPI_DISTRIBUTE_BLOCK : k == 1 ? MPI_DISTRIBUTE_CYCLIC
                                                             : MPI_DISTRIBUTE_NONE;
            if (dist[d] == MPI_DISTRIBUTE_NONE)
                ps[d] = 1, size = size / 1;
            darg[d] = MPI_DISTRIBUTE_DFLT_DARG;
            if (dist[d] == MPI_DISTRIBUTE_CYCLIC && rnd() % 2)
                darg[d] = (int)rnd_in(1, 3);
            if (dist[d] == MPI_DISTRIBUTE_BLOCK && rnd() % 2)
                darg[d] = (gs[d] + ps[d] - 1) / ps[d] + (int)rnd_in(0, 2);
        }
        size = 1;
        for (int d = 0; d < nd; d++)
            size *= ps[d];
        return t_darray(size, (int)rnd_in(0, size - 1), nd, gs, dist, darg, ps,
                        rnd() % 2 ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old);
    }
    default:
        return t_dup(old);
    }
}

static void random_cases(int n)
{
    for (int i = 0; i < n; i++) {
        MPI_Datatype h = rnd_type((int)rnd_in(1, 5), 400);
        char what[64];
        snprintf(what, sizeof what, "random type %d (handle %d)", i, h);
        if (T(h)->n * 4 > 20000)
            continue;
        check_type(what, h, (size_t)rnd_in(1, 4));
    }
}

/* ---- depth, size independence, corrupt layouts ------------------------------------------ */

static void deep_type(void)
{
    /* 18 nested vectors whose strides never line up: deeper than a cursor follows */
    MPI_Datatype h = INT;
    for (int d = 0; d < 18; d++)
        h = d % 3 ? t_hvector(2, 1, ext(h) + 4, h) : t_vector(2, 1, 3, h);
    check_type("18 nested vectors", h, 2);
    dt_layout_t *l = dt_compile_tree(lookup(h), lookup);
    CHECK(l && dt_node_at(l, l->root)->height < DT_CURSOR_DEPTH, "deep type fits a cursor");
    dt_layout_free(l);
}

static void huge_counts(void)
{
    size_t small = layout_len(t_vector(10, 1, 2, DOUBLE));
    no_typemap = 1;
    MPI_Datatype big = t_hvector(1000000000, 1, 16, DOUBLE);
    no_typemap = 0;
    T(big)->d.size = 8000000000ll;
    T(big)->d.lb = 0;
    T(big)->d.ub = 999999999ll * 16 + 8;
    size_t large = layout_len(big);
    CHECK(small == large && small > 0 && small < 512, "layout of 10 vs 10^9 blocks: %zu vs %zu",
          small, large);
    /* addresses at the end of 3 elements of a 10^9-block vector, by seek (never walked) */
    dt_layout_t *l = dt_compile_tree(lookup(big), lookup);
    if (!l)
        return;
    dt_cursor_t c;
    dt_cursor_init(&c, l, 1u << 20, 3);
    size_t off = c.total - 20;
    dt_cursor_seek(&c, off);
    struct iovec iov[4];
    size_t b;
    int k = dt_iov(&c, iov, 4, 100, &b);
    uintptr_t last = (1u << 20) + 2 * (uintptr_t)ext(big) + (uintptr_t)(999999999ull * 16);
    CHECK(k == 3 && b == 20, "tail iov: %d pieces, %zu bytes", k, b);
    CHECK(k == 3 && (uintptr_t)iov[2].iov_base == last && iov[2].iov_len == 8 &&
              (uintptr_t)iov[1].iov_base == last - 16 && iov[0].iov_len == 4,
          "tail iov addresses");
    CHECK(dt_layout_elements(l, c.total) == 3000000000ll, "elements of 3 x 10^9 doubles");
    dt_layout_free(l);
}

static dt_layout_t *copy_layout(const dt_layout_t *l, size_t *len)
{
    const void *b = dt_layout_bytes(l, len);
    dt_layout_t *c = malloc(*len);
    memcpy(c, b, *len);
    return c;
}

static void corrupt_layouts(void)
{
    int bl[3] = { 2, 1, 3 };
    MPI_Aint sd[3] = { 0, 24, 40 };
    MPI_Datatype st[3] = { INT, t_vector(3, 1, 2, DOUBLE), t_indexed(2, bl, (int[]){ 0, 5 }, SHORT) };
    MPI_Datatype h = t_vector(3, 1, 4, t_struct(3, bl, sd, st));
    dt_layout_t *l = dt_compile_tree(lookup(h), lookup);
    CHECK(l != NULL, "corruption test type compiles");
    if (!l)
        return;
    size_t len;
    dt_layout_t *c = copy_layout(l, &len);
    CHECK(dt_layout_check(c, len) == c, "copy validates");
    CHECK(!dt_layout_check(c, len - 8), "short length accepted");
    CHECK(!dt_layout_check((char *)c + 1, len - 1), "misaligned accepted");
    CHECK(!dt_layout_check(NULL, len), "NULL accepted");
    free(c);

#define MUTATE(what, stmt)                                                                     \
    do {                                                                                       \
        dt_layout_t *x = copy_layout(l, &len);                                                 \
        const dt_node_t *root = dt_node_at(x, x->root);                                        \
        dt_node_t *r = (dt_node_t *)root;                                                      \
        dt_entry_t *e = r->kind == DT_NODE_LIST ? (dt_entry_t *)(r + 1) : NULL;                \
        (void)e;                                                                               \
        stmt;                                                                                  \
        CHECK(!dt_layout_check(x, len), "corrupt layout accepted: %s", what);                 \
        free(x);                                                                               \
    } while (0)
    MUTATE("magic", x->magic ^= 1);
    MUTATE("version", x->version++);
    MUTATE("len", x->len += 8);
    MUTATE("size", x->size++);
    MUTATE("nelem", x->nelem++);
    MUTATE("root beyond", x->root = (uint32_t)len);
    MUTATE("root inside a node", x->root += 8);
    MUTATE("root zero", x->root = 0);
    MUTATE("nsigs", x->nsigs += 1000);
    MUTATE("node kind", r->kind = 7);
    MUTATE("node n 0", r->n = 0);
    MUTATE("node n huge", r->n = 1ull << 60);
    MUTATE("node size", r->size += 1);
    MUTATE("node height", r->height = DT_CURSOR_DEPTH);
    MUTATE("entry reps 0", e->reps = 0);
    MUTATE("entry size 0", e->size = 0);
    MUTATE("entry reps overflow", e->reps = 1ull << 62);
    MUTATE("entry child forward", e->child = x->root);
    MUTATE("entry child misaligned", if (e->child) e->child += 4; else e->sig = 99);
    MUTATE("entry prefix", e->prefix = 1);
    MUTATE("sig period", ((dt_sig_t *)((char *)x + x->sigs_off))->period++);
    MUTATE("run esize 0", ((dt_run_t *)((char *)x + x->runs_off))->esize = 0);
    MUTATE("run bytes", ((dt_run_t *)((char *)x + x->runs_off))->bytes += 1);
    MUTATE("contig flag", x->flags |= DT_FLAG_CONTIG);

    /* random byte damage: rejected, or still safe to walk (run under ASan) */
    int accepted = 0;
    for (int it = 0; it < 20000; it++) {
        dt_layout_t *x = copy_layout(l, &len);
        int nflips = (int)rnd_in(1, 4);
        for (int f = 0; f < nflips; f++)
            ((unsigned char *)x)[rnd() % len] ^= (unsigned char)(1u << (rnd() % 8));
        if (dt_layout_check(x, len)) {
            accepted++;
            dt_cursor_t cur;
            size_t count = (size_t)rnd_in(1, 3);
            if (x->size && x->size < (1ull << 40)) {
                dt_cursor_init(&cur, x, 1 << 20, count);
                struct iovec iov[16];
                size_t b, sum = 0;
                int guard = 0;
                while (sum < cur.total && guard++ < 1000000) {
                    dt_iov(&cur, iov, 16, SIZE_MAX, &b);
                    sum += b;
                }
                CHECK(sum == cur.total, "damaged but accepted layout walks %zu of %zu", sum,
                      cur.total);
                dt_cursor_seek(&cur, (size_t)rnd_in(0, (int64_t)cur.total));
                long long el = dt_layout_elements(x, (size_t)rnd_in(0, (int64_t)cur.total));
                (void)el;
            }
        }
        free(x);
    }
    printf("  corrupt layouts: %d of 20000 damaged copies still consistent (and walked)\n",
           accepted);
    dt_layout_free(l);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rng_state = strtoull(argv[1], NULL, 0) | 1;
    int nrandom = argc > 2 ? atoi(argv[2]) : 400;
    DOUBLE = t_named(0x0f, 8);
    INT = t_named(0x08, 4);
    CHAR = t_named(0x01, 1);
    SHORT = t_named(0x06, 2);
    LDOUBLE = t_named(0x10, 16);
    fixed_cases();
    deep_type();
    huge_counts();
    random_cases(nrandom);
    corrupt_layouts();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("datatype engine: all checks passed\n");
    return 0;
}
