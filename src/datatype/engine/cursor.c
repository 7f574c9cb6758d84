/*
 * Cursors over a layout (layout.h, format.h): a position in the packed stream of
 * count elements at base, kept as one level per node on the way from the element level down
 * to the current leaf block.
 *
 * Level d walks the entries of node(d) (level 0: the cursor's own one-entry node, count
 * repetitions of the root at the extent): entry e, repetition i, and org, the address of
 * that repetition's origin. When entry e's body is a node, level d + 1 walks it from org;
 * when it is a leaf, d is the leaf level (depth) and addr/left are the position inside the
 * block. Invariant: when pos < total and left == 0, advance() finds a next block (there is
 * data after pos). Addresses are computed in unsigned arithmetic and never dereferenced
 * except by pack/unpack, so a cursor may describe another process's memory.
 */
#include "datatype/engine/format.h"

#include <string.h>

static inline const dt_node_t *node_of(const dt_cursor_t *c, int d)
{
    /* level 0's node is in the cursor itself: found from c, so a copied cursor still works */
    return d ? (const dt_node_t *)c->lv[d].node : (const dt_node_t *)(const void *)c->top;
}

static inline const dt_entry_t *entry_of(const dt_node_t *nd, size_t e, dt_entry_t *tmp)
{
    if (nd->kind == DT_NODE_LIST)
        return dt_list_entries(nd) + e;
    const uint64_t *p = dt_blocks_prefix(nd);
    *tmp = (dt_entry_t){ .disp = dt_blocks_disp(nd)[e], .reps = 1, .size = p[e + 1] - p[e],
                         .prefix = p[e], .sig = nd->sig };
    return tmp;
}

/* The entry holding packed offset off of one instance of nd (binary search on prefixes). */
static size_t find_entry(const dt_node_t *nd, uint64_t off)
{
    size_t lo = 0, hi = nd->n;
    if (nd->kind == DT_NODE_LIST) {
        const dt_entry_t *e = dt_list_entries(nd);
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (e[mid].prefix <= off)
                lo = mid;
            else
                hi = mid;
        }
    } else {
        const uint64_t *p = dt_blocks_prefix(nd);
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (p[mid] <= off)
                lo = mid;
            else
                hi = mid;
        }
    }
    return lo;
}

void dt_cursor_init(dt_cursor_t *c, const dt_layout_t *l, uintptr_t base, size_t count)
{
    c->layout = l;
    c->base = base;
    c->count = count;
    c->total = count * l->size;
    c->pos = 0;
    c->addr = base;
    c->left = 0;
    c->depth = 0;
    dt_node_t *top = (dt_node_t *)(void *)c->top;
    dt_entry_t *te = (dt_entry_t *)(top + 1);
    _Static_assert(sizeof c->top >= sizeof(dt_node_t) + sizeof(dt_entry_t), "top node fits");
    *top = (dt_node_t){ .kind = DT_NODE_LIST, .n = 1, .size = c->total };
    *te = (dt_entry_t){ .reps = count, .stride = l->extent, .size = l->size, .child = l->root };
    if (!c->total)
        return;
    /* A root of one entry joins the element level when its repetitions continue across
     * elements (or it has none): count x (reps x body) is then (count * reps) x body. */
    const dt_node_t *r = dt_node_at(l, l->root);
    dt_entry_t tmp;
    const dt_entry_t *e0 = entry_of(r, 0, &tmp);
    uint64_t reps;
    if (r->n == 1 && !__builtin_mul_overflow((uint64_t)count, e0->reps, &reps) &&
        (e0->reps == 1 || (uint64_t)e0->stride * e0->reps == (uint64_t)l->extent)) {
        *te = (dt_entry_t){ .disp = e0->disp, .reps = reps,
                            .stride = e0->reps == 1 ? l->extent : e0->stride,
                            .size = e0->size, .child = e0->child, .sig = e0->sig };
        if (!te->child && te->reps > 1 && (uint64_t)te->stride == te->size) {
            te->size *= te->reps; /* count contiguous elements: one block */
            te->reps = 1;
        }
    }
    dt_cursor_seek(c, 0);
}

void dt_cursor_seek(dt_cursor_t *c, size_t offset)
{
    if (offset >= c->total) {
        c->pos = c->total;
        c->left = 0;
        return;
    }
    c->pos = offset;
    uintptr_t org = c->base;
    uint64_t rem = offset;
    const dt_node_t *nd = node_of(c, 0);
    for (int d = 0;; d++) {
        size_t e = nd->n == 1 ? 0 : find_entry(nd, rem);
        dt_entry_t tmp;
        const dt_entry_t *E = entry_of(nd, e, &tmp);
        rem -= E->prefix;
        uint64_t i = rem / E->size;
        rem -= i * E->size;
        dt_level_t *L = &c->lv[d];
        L->node = nd;
        L->e = e;
        L->i = i;
        L->org = org + (uintptr_t)E->disp + (uintptr_t)i * (uintptr_t)E->stride;
        if (!E->child) {
            c->depth = d;
            c->addr = L->org + rem;
            c->left = E->size - rem;
            return;
        }
        org = L->org;
        nd = dt_node_at(c->layout, E->child);
    }
}

/* From level d (positioned on an entry and repetition), down to the first leaf block. */
static void descend(dt_cursor_t *c, int d)
{
    for (;;) {
        dt_level_t *L = &c->lv[d];
        dt_entry_t tmp;
        const dt_entry_t *E = entry_of(node_of(c, d), L->e, &tmp);
        if (!E->child) {
            c->depth = d;
            c->addr = L->org;
            c->left = E->size;
            return;
        }
        const dt_node_t *ch = dt_node_at(c->layout, E->child);
        dt_level_t *M = &c->lv[++d];
        M->node = ch;
        M->e = 0;
        M->i = 0;
        M->org = L->org + (uintptr_t)entry_of(ch, 0, &tmp)->disp;
    }
}

/* Moves to the start of the next leaf block (there is one: see the invariant above). */
static void advance(dt_cursor_t *c)
{
    int d = c->depth;
    for (;; d--) {
        dt_level_t *L = &c->lv[d];
        const dt_node_t *nd = node_of(c, d);
        dt_entry_t tmp;
        const dt_entry_t *E = entry_of(nd, L->e, &tmp);
        if (L->i + 1 < E->reps) {
            L->i++;
            L->org += (uintptr_t)E->stride;
            break;
        }
        if (L->e + 1 < nd->n) {
            L->e++;
            L->i = 0;
            uintptr_t parent = d ? c->lv[d - 1].org : c->base;
            L->org = parent + (uintptr_t)entry_of(nd, L->e, &tmp)->disp;
            break;
        }
    }
    descend(c, d);
}

/* ---- copying --------------------------------------------------------------------------- */

#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE void copy_one(char *buf, uintptr_t a, size_t len, int unpack)
{
    if (unpack)
        memcpy((void *)a, buf, len);
    else
        memcpy(buf, (const void *)a, len);
}

/* k blocks of len bytes, stride apart, to or from buf. Small fixed sizes get inlined copies. */
static ALWAYS_INLINE void copy_blocks(char *buf, uintptr_t a, uintptr_t stride, size_t len,
                                      size_t k, int unpack)
{
#define FIXED(L)                                                                               \
    case L:                                                                                    \
        for (size_t j = 0; j < k; j++, buf += L, a += stride)                                 \
            copy_one(buf, a, L, unpack);                                                       \
        return;
    switch (len) {
        FIXED(1) FIXED(2) FIXED(4) FIXED(8) FIXED(12) FIXED(16) FIXED(24) FIXED(32) FIXED(48)
        FIXED(64)
    default:
        if (unpack && len <= 1024 && len % 64 == 0) {
            /* medium blocks into strided memory: inlined 64-byte pieces beat a library call
             * per block (measured: 15-20 % for 128 B-1 KiB; packing gains nothing) */
            for (size_t j = 0; j < k; j++, buf += len, a += stride)
                for (size_t q = 0; q < len; q += 64)
                    copy_one(buf + q, a + q, 64, unpack);
            return;
        }
        for (size_t j = 0; j < k; j++, buf += len, a += stride)
            copy_one(buf, a, len, unpack);
    }
#undef FIXED
}

static ALWAYS_INLINE size_t walk(dt_cursor_t *c, char *buf, size_t n, int unpack)
{
    if (n > c->total - c->pos)
        n = c->total - c->pos;
    size_t done = 0;
    while (done < n) {
        if (c->left == 0)
            advance(c);
        dt_level_t *L = &c->lv[c->depth];
        dt_entry_t tmp;
        const dt_entry_t *E = entry_of(node_of(c, c->depth), L->e, &tmp);
        size_t len = E->size, want = n - done;
        if (c->left == len && E->reps - L->i > 1 && want >= 2 * len) {
            /* a run of whole blocks of this entry */
            size_t k = E->reps - L->i;
            if (k > want / len)
                k = want / len;
            copy_blocks(buf + done, L->org, (uintptr_t)E->stride, len, k, unpack);
            done += k * len;
            L->i += k - 1;
            L->org += (uintptr_t)(k - 1) * (uintptr_t)E->stride;
            c->addr = L->org + len;
            c->left = 0;
            continue;
        }
        size_t m = c->left < want ? c->left : want;
        copy_one(buf + done, c->addr, m, unpack);
        c->addr += m;
        c->left -= m;
        done += m;
    }
    c->pos += done;
    return done;
}

size_t dt_pack(dt_cursor_t *c, void *dst, size_t n)
{
    return walk(c, dst, n, 0);
}

size_t dt_unpack(dt_cursor_t *c, const void *src, size_t n)
{
    return walk(c, (char *)(uintptr_t)src, n, 1);
}

int dt_iov(dt_cursor_t *c, struct iovec *iov, int maxiov, size_t maxbytes, size_t *bytes)
{
    size_t n = c->total - c->pos, done = 0;
    if (n > maxbytes)
        n = maxbytes;
    int k = 0;
    while (done < n) {
        if (c->left == 0)
            advance(c);
        size_t m = c->left < n - done ? c->left : n - done;
        if (k && (uintptr_t)iov[k - 1].iov_base + iov[k - 1].iov_len == c->addr) {
            iov[k - 1].iov_len += m;
        } else {
            if (k == maxiov)
                break;
            iov[k].iov_base = (void *)c->addr;
            iov[k].iov_len = m;
            k++;
        }
        c->addr += m;
        c->left -= m;
        done += m;
    }
    c->pos += done;
    *bytes = done;
    return k;
}

int dt_next_block(dt_cursor_t *c, uintptr_t *addr, size_t *len, int *basic)
{
    if (c->pos >= c->total)
        return 0;
    if (c->left == 0)
        advance(c);
    dt_entry_t tmp;
    const dt_entry_t *E = entry_of(node_of(c, c->depth), c->lv[c->depth].e, &tmp);
    const dt_sig_t *s = &dt_sigs(c->layout)[E->sig];
    const dt_run_t *r = &dt_runs(c->layout)[s->first];
    uint32_t j = 0;
    size_t m = c->left; /* a signature of one run: the rest of the leaf is of one type */
    if (s->nruns > 1) {
        uint64_t q = (E->size - c->left) % s->period, end = 0;
        while ((end += r[j].bytes) <= q)
            j++;
        if (end - q < m)
            m = (size_t)(end - q);
    }
    *addr = c->addr;
    *len = m;
    *basic = (int)r[j].basic;
    c->addr += m;
    c->left -= m;
    c->pos += m;
    return 1;
}

/* ---- element counts -------------------------------------------------------------------- */

/* Basic elements in the first q bytes of a leaf with signature s; -1 inside an element. */
static long long sig_elements(const dt_layout_t *l, uint32_t sig, uint64_t q)
{
    const dt_sig_t *s = &dt_sigs(l)[sig];
    const dt_run_t *r = &dt_runs(l)[s->first];
    long long n = (long long)(q / s->period * s->nelem);
    q %= s->period;
    for (uint32_t j = 0; q; j++) {
        uint64_t b = q < r[j].bytes ? q : r[j].bytes;
        if (b % r[j].esize)
            return -1;
        n += (long long)(b / r[j].esize);
        q -= b;
    }
    return n;
}

long long dt_layout_elements(const dt_layout_t *l, size_t bytes)
{
    if (!l->size)
        return 0;
    long long n = (long long)(bytes / l->size * l->nelem);
    uint64_t rem = bytes % l->size;
    const dt_node_t *nd = dt_node_at(l, l->root);
    while (rem) {
        size_t e = find_entry(nd, rem);
        dt_entry_t tmp;
        const dt_entry_t *E = entry_of(nd, e, &tmp);
        rem -= E->prefix;
        uint64_t i = rem / E->size;
        rem -= i * E->size;
        if (nd->kind == DT_NODE_BLOCKS) {
            long long k = sig_elements(l, nd->sig, E->prefix + rem);
            return k < 0 ? -1 : n + k;
        }
        if (!E->child) {
            long long k = sig_elements(l, E->sig, i * E->size + rem);
            return k < 0 ? -1 : n + (long long)E->eprefix + k;
        }
        const dt_node_t *ch = dt_node_at(l, E->child);
        n += (long long)(E->eprefix + i * ch->nelem);
        nd = ch;
    }
    return n;
}
