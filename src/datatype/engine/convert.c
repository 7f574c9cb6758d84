/*
 * The converter (convert.h): the receiver's cursor hands out pieces of one basic type
 * (dt_next_block); each piece is filled from the stream, element by element in the sender's
 * sizes, whole runs at once through the kernels. A foreign element cut by the end of a
 * fragment waits in cv->part until the next call completes it.
 *
 * Invariants: cv->elems elements of the current piece remain at cv->addr, each nsize bytes
 * here and fsize bytes in the stream; npart < fsize bytes of the next one are held in part
 * (npart > 0 only while elems > 0). cv->in counts the stream bytes consumed.
 */
#include "datatype/engine/convert.h"

#include "datatype/engine/convert_kernels.h"
#include "datatype/engine/format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const dt_cv_basic_t *basics;
static int nbasics;

void dt_conv_set_basics(const dt_cv_basic_t *table, int n)
{
    basics = table;
    nbasics = n <= DT_CV_MAX_BASIC ? n : DT_CV_MAX_BASIC;
}

static const dt_cv_basic_t *basic_info(int basic)
{
    return basic >= 1 && basic <= nbasics ? &basics[basic] : NULL;
}

size_t dt_conv_basic_size(int basic, const arch_desc_t *a)
{
    const dt_cv_basic_t *e = basic_info(basic);
    if (!e)
        return 0;
    size_t part = e->ctype >= 0 && e->ctype < ARCH_NTYPES ? a->size[e->ctype] : e->fixed;
    return part * (e->parts ? e->parts : 1);
}

void dt_conv_init(dt_conv_t *cv, const arch_desc_t *from, const dt_layout_t *l,
                  uintptr_t base, size_t count)
{
    memset(cv, 0, offsetof(dt_conv_t, part));
    dt_cursor_init(&cv->cur, l, base, count);
    cv->from = from;
    cv->to = arch_local();
    cv->in = cv->elements = 0;
    cv->why = DT_CV_FIT;
    for (int b = 0; b <= DT_CV_MAX_BASIC; b++) {
        size_t f = dt_conv_basic_size(b, from), n = dt_conv_basic_size(b, cv->to);
        cv->fsz[b] = (uint8_t)(f <= 255 ? f : 0);
        cv->nsz[b] = (uint8_t)(n <= 255 ? n : 0);
    }
}

static void note_failure(dt_conv_t *cv, int why, uint64_t elem)
{
    if (cv->why == DT_CV_FIT) {
        cv->why = why;
        cv->why_basic = cv->basic;
        cv->why_elem = elem;
    }
}

/* Moves to the next piece; 0 when the receiver's buffer is full. */
static int next_piece(dt_conv_t *cv)
{
    uintptr_t addr;
    size_t len;
    int basic;
    while (dt_next_block(&cv->cur, &addr, &len, &basic)) {
        int known = basic >= 0 && basic <= DT_CV_MAX_BASIC;
        size_t nsize = known ? cv->nsz[basic] : 0, fsize = known ? cv->fsz[basic] : 0;
        cv->basic = basic;
        if (!nsize || !fsize || len % nsize) { /* not in the table: copy as bytes */
            note_failure(cv, DT_CV_NO_TYPE, cv->elements);
            nsize = fsize = 1;
        }
        cv->addr = addr;
        cv->elems = len / nsize;
        cv->nsize = (unsigned)nsize;
        cv->fsize = (unsigned)fsize;
        if (cv->elems)
            return 1;
    }
    return 0;
}

/* k whole elements from src into the current piece. */
static void convert_run(dt_conv_t *cv, const unsigned char *src, size_t k)
{
    size_t bad = 0;
    const dt_cv_basic_t *e = basic_info(cv->basic);
    int why = e ? dt_conv_run(e, cv->from, cv->to, src, cv->fsize, (unsigned char *)cv->addr,
                              cv->nsize, k, &bad)
                : (memcpy((void *)cv->addr, src, k * cv->nsize), DT_CV_FIT);
    if (why != DT_CV_FIT)
        note_failure(cv, why, cv->elements + bad);
    cv->addr += k * cv->nsize;
    cv->elems -= k;
    cv->elements += k;
}

size_t dt_conv_unpack(dt_conv_t *cv, const void *src_, size_t n)
{
    const unsigned char *src = src_;
    size_t taken = 0;
    while (taken < n) {
        if (!cv->elems && !next_piece(cv))
            break;
        size_t avail = n - taken;
        if (cv->npart) { /* complete the element split by the previous fragment */
            size_t m = cv->fsize - cv->npart;
            if (m > avail)
                m = avail;
            memcpy(cv->part + cv->npart, src + taken, m);
            cv->npart += m;
            taken += m;
            if (cv->npart < cv->fsize)
                break;
            cv->npart = 0;
            convert_run(cv, cv->part, 1);
            continue;
        }
        size_t k = avail / cv->fsize;
        if (k > cv->elems)
            k = cv->elems;
        if (k) {
            convert_run(cv, src + taken, k);
            taken += k * cv->fsize;
            continue;
        }
        memcpy(cv->part, src + taken, avail); /* the start of a split element */
        cv->npart = avail;
        taken += avail;
    }
    cv->in += taken;
    return taken;
}

size_t dt_conv_restream(dt_conv_t *cv, const void *in_, void *out_, size_t n)
{
    const unsigned char *in = in_;
    unsigned char *out = out_;
    size_t done = 0;
    /* the pieces come in stream order; each element keeps its offset, its size alike */
    while (done < n && (cv->elems || next_piece(cv))) {
        if (cv->fsize != cv->nsize)
            break;
        size_t k = (n - done) / cv->fsize;
        if (k == 0)
            break;
        if (k > cv->elems)
            k = cv->elems;
        uintptr_t at = cv->addr;
        cv->addr = (uintptr_t)(out + done);
        convert_run(cv, in + done, k);
        cv->addr = at + k * cv->nsize;
        done += k * cv->fsize;
    }
    cv->in += done;
    return done;
}

size_t dt_conv_native_bytes(const dt_conv_t *cv)
{
    return cv->cur.pos - cv->elems * cv->nsize;
}

int dt_conv_failure(const dt_conv_t *cv, char *buf, size_t len)
{
    if (cv->why == DT_CV_FIT)
        return 0;
    const dt_cv_basic_t *e = basic_info(cv->why_basic);
    const char *name = e ? e->name : "an unknown basic type";
    size_t fsize = dt_conv_basic_size(cv->why_basic, cv->from);
    size_t nsize = dt_conv_basic_size(cv->why_basic, cv->to);
    switch (cv->why) {
    case DT_CV_INT_RANGE:
        snprintf(buf, len,
                 "a %s value (basic element %" PRIu64 " of the message) does not fit in the "
                 "%zu bytes of the receiver's %s (the sender's has %zu)",
                 name, cv->why_elem, nsize, name, fsize);
        break;
    case DT_CV_FLOAT_RANGE:
        snprintf(buf, len,
                 "a %s value (basic element %" PRIu64 " of the message) is beyond the range "
                 "of the receiver's format (stored as infinity)",
                 name, cv->why_elem);
        break;
    case DT_CV_NO_FORMAT:
        snprintf(buf, len,
                 "%s (basic element %" PRIu64 " of the message) has a floating-point format "
                 "metampi cannot convert between these architectures (stored as NaN)",
                 name, cv->why_elem);
        break;
    default:
        snprintf(buf, len, "basic element %" PRIu64 " of the message has a type (%s) the "
                           "converter does not know (bytes copied)", cv->why_elem, name);
    }
    return cv->why;
}

/* ---- sizes and counts in another architecture's stream -------------------------------- */

/* Walks the pieces of one element of l, calling back with (basic, elements, foreign bytes of
 * one); the callback returns nonzero to stop. */
typedef int piece_fn(void *ctx, int basic, uint64_t elems, uint64_t fsize);

static int walk_element(const dt_layout_t *l, const arch_desc_t *a, piece_fn *fn, void *ctx)
{
    dt_cursor_t c;
    dt_cursor_init(&c, l, 0, 1);
    uintptr_t addr;
    size_t len;
    int basic;
    while (dt_next_block(&c, &addr, &len, &basic)) {
        size_t nsize = dt_conv_basic_size(basic, arch_local());
        size_t fsize = dt_conv_basic_size(basic, a);
        if (!nsize || !fsize || len % nsize)
            return -1;
        if (fn(ctx, basic, len / nsize, fsize))
            return 1;
    }
    return 0;
}

static int size_differs(void *ctx, int basic, uint64_t elems, uint64_t fsize)
{
    (void)elems;
    int *alike = ctx;
    *alike = fsize == dt_conv_basic_size(basic, arch_local());
    return !*alike;
}

int dt_conv_sizes_alike(const dt_layout_t *l, const arch_desc_t *a)
{
    int alike = 1;
    return walk_element(l, a, size_differs, &alike) >= 0 && alike;
}

static int add_size(void *ctx, int basic, uint64_t elems, uint64_t fsize)
{
    (void)basic;
    uint64_t *sum = ctx, b;
    if (__builtin_mul_overflow(elems, fsize, &b) || __builtin_add_overflow(*sum, b, sum)) {
        *sum = UINT64_MAX;
        return 1;
    }
    return 0;
}

uint64_t dt_conv_stream_size(const dt_layout_t *l, const arch_desc_t *a, size_t count)
{
    if (!count || !dt_layout_size(l))
        return 0;
    uint64_t one = 0, all;
    if (walk_element(l, a, add_size, &one) != 0 || one == UINT64_MAX ||
        __builtin_mul_overflow(one, (uint64_t)count, &all))
        return UINT64_MAX;
    return all;
}

typedef struct {
    uint64_t left;    /* stream bytes still to count */
    long long elems;  /* basic elements counted */
    int split;        /* the bytes end inside a basic element */
} prefix_t;

static int count_prefix(void *ctx, int basic, uint64_t elems, uint64_t fsize)
{
    (void)basic;
    prefix_t *p = ctx;
    uint64_t k = p->left / fsize;
    if (k >= elems) {
        p->elems += (long long)elems;
        p->left -= elems * fsize;
        return p->left == 0;
    }
    p->elems += (long long)k;
    p->split = p->left % fsize != 0;
    p->left = 0;
    return 1;
}

void dt_conv_stream_count(const dt_layout_t *l, const arch_desc_t *a, uint64_t bytes,
                          long long *whole, long long *basic)
{
    uint64_t one = dt_conv_stream_size(l, a, 1);
    *whole = *basic = -1;
    if (one == UINT64_MAX)
        return;
    if (one == 0) {
        *whole = *basic = 0;
        return;
    }
    uint64_t n = bytes / one, rest = bytes % one;
    *whole = rest ? -1 : (long long)n;
    prefix_t p = { rest, 0, 0 };
    if (rest && walk_element(l, a, count_prefix, &p) < 0)
        return;
    if (!p.split)
        *basic = (long long)(n * l->nelem) + p.elems;
}
