#include "ctl.h"

#include "util.h"

#include "net/liveness.h"
#include "runtime/pmi_wire.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ---- parsing: a cursor over the body that never reads past its end ----------------- */

typedef struct rd {
    const unsigned char *p;
    size_t left;
    int bad;
    char *err;
    size_t errlen;
    const char *frame;   /* type name, for messages */
} rd_t;

static void rd_fail(rd_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rd_fail(rd_t *r, const char *fmt, ...)
{
    if (r->bad)
        return;
    r->bad = 1;
    int n = snprintf(r->err, r->errlen, "%s frame: ", r->frame);
    if (n < 0 || (size_t)n >= r->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int rd_need(rd_t *r, size_t n, const char *field)
{
    if (r->bad)
        return 0;
    if (r->left < n) {
        rd_fail(r, "%s needs %zu bytes, %zu left", field, n, r->left);
        return 0;
    }
    return 1;
}

static uint8_t rd_u8(rd_t *r, const char *field, uint8_t max)
{
    if (!rd_need(r, 1, field))
        return 0;
    uint8_t v = *r->p;
    r->p++;
    r->left--;
    if (v > max)
        rd_fail(r, "%s is %u (at most %u)", field, v, max);
    return v;
}

static uint32_t rd_u32(rd_t *r, const char *field, uint32_t min, uint32_t max)
{
    if (!rd_need(r, 4, field))
        return 0;
    uint32_t v = le32(r->p);
    r->p += 4;
    r->left -= 4;
    if (v < min || v > max)
        rd_fail(r, "%s is %u (expected %u..%u)", field, v, min, max);
    return v;
}

static const char *rd_str(rd_t *r, const char *field)
{
    uint32_t n = rd_u32(r, field, 1, CTL_MAX_FRAME);
    if (!rd_need(r, n, field))
        return "";
    const char *s = (const char *)r->p;
    if (s[n - 1] != '\0' || memchr(s, '\0', n - 1)) {
        rd_fail(r, "%s is not one NUL-terminated string", field);
        return "";
    }
    r->p += n;
    r->left -= n;
    return s;
}

static ctl_strs_t rd_strs(rd_t *r, const char *field, uint32_t min)
{
    ctl_strs_t v = { r->p + 4, 0 };
    uint32_t n = rd_u32(r, field, min, CTL_MAX_FRAME / 5);
    /* each string takes at least 5 bytes: checked before walking them */
    if (r->bad || !rd_need(r, (size_t)n * 5, field))
        return (ctl_strs_t){ NULL, 0 };
    v.p = r->p;
    for (uint32_t i = 0; i < n && !r->bad; i++)
        rd_str(r, field);
    v.n = r->bad ? 0 : n;
    return v;
}

static ctl_u32s_t rd_u32s(rd_t *r, const char *field, uint32_t min, uint32_t max_count)
{
    uint32_t n = rd_u32(r, field, min, max_count);
    if (r->bad || !rd_need(r, (size_t)n * 4, field))
        return (ctl_u32s_t){ NULL, 0 };
    ctl_u32s_t v = { r->p, n };
    r->p += (size_t)n * 4;
    r->left -= (size_t)n * 4;
    return v;
}

static int is_hex(const char *s, size_t n)
{
    if (strlen(s) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
              (s[i] >= 'A' && s[i] <= 'F')))
            return 0;
    return 1;
}

static void parse_job(rd_t *r, ctl_job_t *j)
{
    j->cwd = rd_str(r, "cwd");
    j->prog = rd_str(r, "program");
    j->argv = rd_strs(r, "argv", 1);
    j->env = rd_strs(r, "environment", 0);
    j->size = rd_u32(r, "size", 1, CTL_MAX_RANKS);
    j->host = rd_u32(r, "host index", 0, CTL_MAX_RANKS);
    j->hosts = rd_strs(r, "hosts", 1);
    j->ranks = rd_u32s(r, "ranks", 0, CTL_MAX_RANKS);
    j->kvsname = rd_str(r, "kvsname");
    j->mapping = rd_str(r, "mapping");
    j->kvs = rd_strs(r, "key-value pairs", 0);
    j->gateway = rd_strs(r, "gateway arguments", 0);
    j->bind = rd_u8(r, "bind policy", 4);
    j->oversubscribe = rd_u8(r, "oversubscribe", 1);
    j->report_bindings = rd_u8(r, "report_bindings", 1);
    j->peer_timeout = rd_u32(r, "peer timeout", 0, LIVENESS_MAX_S);
    j->silence = rd_u32(r, "silence", 0, LIVENESS_MAX_S);
    if (r->bad)
        return;
    if (j->host >= j->hosts.n)
        rd_fail(r, "host index %u but %u hosts", j->host, j->hosts.n);
    ctl_strs_t env = j->env;
    for (uint32_t i = 0; i < env.n && !r->bad; i++) {
        const char *e = ctl_strs_next(&env);
        if (!strchr(e, '=') || e[0] == '=')
            rd_fail(r, "environment entry %u is not NAME=value", i);
    }
    if (j->kvs.n % 2)
        rd_fail(r, "%u key-value strings (an odd count)", j->kvs.n);
    ctl_strs_t kv = j->kvs;
    for (uint32_t i = 0; i < kv.n && !r->bad; i++) {
        const char *e = ctl_strs_next(&kv);
        if (i % 2 == 0 ? !pmi_wire_valid_key(e) : !pmi_wire_valid_value(e))
            rd_fail(r, "key-value string %u is not a valid PMI %s", i, i % 2 ? "value" : "key");
    }
    for (uint32_t i = 0; i < j->ranks.n && !r->bad; i++) {
        uint32_t v = ctl_u32s_at(&j->ranks, i);
        if (v >= j->size || (i > 0 && v <= ctl_u32s_at(&j->ranks, i - 1)))
            rd_fail(r, "rank list is not ascending below size %u (entry %u is %u)", j->size, i,
                    v);
    }
}

int ctl_parse(const void *buf, size_t len, ctl_frame_t *f, size_t *used, char *err,
              size_t errlen)
{
    const unsigned char *b = buf;
    if (len < 4)
        return CTL_MORE;
    uint32_t flen = le32(b);
    if (flen < 1 || flen > CTL_MAX_FRAME) {
        snprintf(err, errlen, "frame length %u (expected 1..%u)", flen, CTL_MAX_FRAME);
        return CTL_BAD;
    }
    if (len - 4 < flen)
        return CTL_MORE;
    char tname[32];
    memset(f, 0, sizeof *f);
    f->type = b[4];
    rd_t r = { .p = b + 5, .left = flen - 1, .err = err, .errlen = errlen,
               .frame = ctl_type_name(f->type, tname, sizeof tname) };
    switch (f->type) {
    case CTL_KEY:
        f->u.key = rd_str(&r, "key");
        if (!r.bad && !is_hex(f->u.key, CTL_KEY_HEX))
            rd_fail(&r, "key is not %d hex digits", CTL_KEY_HEX);
        break;
    case CTL_JOB:
        parse_job(&r, &f->u.job);
        break;
    case CTL_STDIN:
        f->u.data.p = r.p;
        f->u.data.len = (uint32_t)r.left;
        if (r.left > CTL_STDIN_WINDOW)
            rd_fail(&r, "%zu bytes of data (at most %u)", r.left, CTL_STDIN_WINDOW);
        r.left = 0;
        break;
    case CTL_KILL:
        f->u.sig = rd_u32(&r, "signal", 1, 64);
        break;
    case CTL_BARRIER_OUT:
    case CTL_END:
    case CTL_BEAT:
    case CTL_BARRIER_IN:
    case CTL_STDIN_CLOSED:
    case CTL_DONE:
        break;
    case CTL_KVS:
        f->u.kv = rd_strs(&r, "key-value list", 0);
        if (!r.bad && f->u.kv.n % 2)
            rd_fail(&r, "odd number of strings (%u) in a key-value list", f->u.kv.n);
        break;
    case CTL_PARTS:
        f->u.parts.op = rd_u8(&r, "op", CTL_PARTS_OP_MAX);
        if (!r.bad && f->u.parts.op < 1)
            rd_fail(&r, "op is 0 (expected 1..%d)", CTL_PARTS_OP_MAX);
        f->u.parts.node = rd_u32(&r, "node", 0, UINT32_MAX);
        f->u.parts.rank = rd_u32(&r, "rank", 0, CTL_MAX_RANK_ID - 1);
        f->u.parts.fields = rd_strs(&r, "fields", 0);
        break;
    case CTL_HELLO:
        f->u.hello.magic = rd_u32(&r, "magic", CTL_HELLO_MAGIC, CTL_HELLO_MAGIC);
        f->u.hello.version = rd_u32(&r, "version", CTL_VERSION, CTL_VERSION);
        f->u.hello.pid = rd_u32(&r, "pid", 1, INT32_MAX);
        break;
    case CTL_OUTPUT:
        f->u.output.stream = (uint8_t)rd_u8(&r, "stream", 2);
        if (!r.bad && f->u.output.stream < 1)
            rd_fail(&r, "stream is 0 (expected 1 or 2)");
        f->u.output.add_newline = rd_u8(&r, "add_newline", 1);
        f->u.output.rank = rd_u32(&r, "rank", 0, CTL_MAX_RANK_ID - 1);
        f->u.output.p = r.p;
        f->u.output.len = (uint32_t)r.left;
        if (!r.bad && r.left == 0)
            rd_fail(&r, "no data");
        r.left = 0;
        break;
    case CTL_EXITED:
        f->u.exited.rank = rd_u32(&r, "rank", 0, CTL_MAX_RANK_ID - 1);
        f->u.exited.pid = rd_u32(&r, "pid", 1, INT32_MAX);
        f->u.exited.status = (int32_t)rd_u32(&r, "status", 0, 0xffff);
        f->u.exited.inited = rd_u8(&r, "inited", 1);
        f->u.exited.finalized = rd_u8(&r, "finalized", 1);
        break;
    case CTL_ABORTED:
        f->u.aborted.rank = rd_u32(&r, "rank", 0, CTL_MAX_RANK_ID - 1);
        f->u.aborted.pid = rd_u32(&r, "pid", 1, INT32_MAX);
        f->u.aborted.exitcode = (int32_t)rd_u32(&r, "exitcode", 0, UINT32_MAX);
        f->u.aborted.has_msg = rd_u8(&r, "has_msg", 1);
        f->u.aborted.msg = rd_str(&r, "message");
        break;
    case CTL_PMI_FAILED:
        f->u.pmi_failed.rank = rd_u32(&r, "rank", 0, CTL_MAX_RANK_ID - 1);
        f->u.pmi_failed.pid = rd_u32(&r, "pid", 1, INT32_MAX);
        f->u.pmi_failed.kind = rd_u8(&r, "kind", 2);
        f->u.pmi_failed.detail = rd_str(&r, "detail");
        break;
    case CTL_FAIL:
        f->u.fail.status = rd_u32(&r, "status", 1, 255);
        f->u.fail.text = rd_str(&r, "text");
        break;
    case CTL_NOTE:
    case CTL_REPORT:
    case CTL_STATS:
        f->u.text = rd_str(&r, "text");
        break;
    case CTL_STDIN_ACK:
        f->u.n = rd_u32(&r, "byte count", 1, CTL_STDIN_WINDOW);
        break;
    default:
        snprintf(err, errlen, "unknown frame type %u", f->type);
        return CTL_BAD;
    }
    if (!r.bad && r.left)
        rd_fail(&r, "%zu bytes after the last field", r.left);
    if (r.bad)
        return CTL_BAD;
    *used = 4 + (size_t)flen;
    return CTL_OK;
}

const char *ctl_strs_next(ctl_strs_t *s)
{
    uint32_t n = le32(s->p);
    const char *v = (const char *)s->p + 4;
    s->p += 4 + (size_t)n;
    return v;
}

uint32_t ctl_u32s_at(const ctl_u32s_t *u, uint32_t i)
{
    return le32(u->p + 4 * (size_t)i);
}

const char *ctl_type_name(uint8_t type, char *tmp, size_t cap)
{
    static const char *const names[] = {
        [CTL_KEY] = "KEY", [CTL_JOB] = "JOB", [CTL_STDIN] = "STDIN", [CTL_KILL] = "KILL",
        [CTL_BARRIER_OUT] = "BARRIER_OUT", [CTL_KVS] = "KVS", [CTL_END] = "END",
        [CTL_BEAT] = "BEAT", [CTL_PARTS] = "PARTS",
        [CTL_HELLO] = "HELLO",
        [CTL_OUTPUT] = "OUTPUT", [CTL_EXITED] = "EXITED", [CTL_ABORTED] = "ABORTED",
        [CTL_PMI_FAILED] = "PMI_FAILED", [CTL_FAIL] = "FAIL", [CTL_NOTE] = "NOTE",
        [CTL_REPORT] = "REPORT", [CTL_BARRIER_IN] = "BARRIER_IN",
        [CTL_STDIN_ACK] = "STDIN_ACK", [CTL_STDIN_CLOSED] = "STDIN_CLOSED", [CTL_DONE] = "DONE",
        [CTL_STATS] = "STATS",
    };
    if (type < sizeof names / sizeof names[0] && names[type])
        return names[type];
    snprintf(tmp, cap, "type %u", type);
    return tmp;
}

/* ---- building ----------------------------------------------------------------------- */

static void put(ctl_buf_t *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = 2 * (b->len + n) + 256;
        b->p = util_xrealloc(b->p, b->cap);
    }
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
}

void ctl_begin(ctl_buf_t *b, uint8_t type)
{
    b->start = b->len;
    unsigned char hdr[5] = { 0, 0, 0, 0, type };
    put(b, hdr, 5);
}

void ctl_put_u8(ctl_buf_t *b, uint8_t v)
{
    put(b, &v, 1);
}

void ctl_put_u32(ctl_buf_t *b, uint32_t v)
{
    unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                           (unsigned char)(v >> 24) };
    put(b, x, 4);
}

void ctl_put_str(ctl_buf_t *b, const char *s)
{
    size_t n = strlen(s) + 1;
    ctl_put_u32(b, (uint32_t)n);
    put(b, s, n);
}

void ctl_put_strs(ctl_buf_t *b, const char *const *v, uint32_t n)
{
    ctl_put_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        ctl_put_str(b, v[i]);
}

void ctl_put_data(ctl_buf_t *b, const void *data, size_t len)
{
    put(b, data, len);
}

int ctl_end(ctl_buf_t *b)
{
    size_t flen = b->len - b->start - 4;
    if (flen > CTL_MAX_FRAME) {
        b->len = b->start;
        return -1;
    }
    uint32_t v = (uint32_t)flen;
    unsigned char *h = b->p + b->start;
    h[0] = (unsigned char)v;
    h[1] = (unsigned char)(v >> 8);
    h[2] = (unsigned char)(v >> 16);
    h[3] = (unsigned char)(v >> 24);
    return 0;
}

void ctl_buf_free(ctl_buf_t *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}
