#include "rdv_wire.h"

#include "net/addr.h"
#include "net/bytes.h"
#include "net/handshake.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ----------------------------------------------------------------------------- */

void rdv_wan_text(int streams, const char *compression, const char *congestion, int encrypt,
                  int outage, char *buf, size_t cap)
{
    char n[16] = "default";
    if (streams > 0)
        snprintf(n, sizeof n, "%d", streams);
    snprintf(buf, cap, "streams=%s compression=%s congestion=%s encrypt=%s outage=%d", n,
             compression, congestion, encrypt ? "on" : "off", outage);
}

int rdv_valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > RDV_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

int rdv_valid_host(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > RDV_HOST_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 127)
            return 0;
    return 1;
}

int rdv_valid_addr(const char *s)
{
    net_addr_t a;
    char again[NET_ADDR_TEXT];
    if (strlen(s) > RDV_ADDR_MAX || net_addr_parse(s, NET_ADDR_NUMERIC, 0, &a, NULL, 0) ||
        !net_addr_is_unicast(&a) || strchr(s, '%'))
        return 0;
    net_addr_format(&a, again, sizeof again);
    return strcmp(again, s) == 0;
}

/* ---- handshake ------------------------------------------------------------------------- */

/* The rendezvous' kind of connection (net/handshake.h): no words in the HELLO, the verdict in
 * the answer. */
static const net_hs_profile_t PROFILE = {
    .challenge = "MMPIrdv1", .hello = "MMPIrdvh", .answer = "MMPIrdvv",
    .hello_words = 0, .answer_words = 1, .hello_label = "rdv-c", .answer_label = "rdv-a",
};

_Static_assert((int)RDV_CHALLENGE_LEN == (int)NET_HS_CHALLENGE_LEN, "the challenge");
_Static_assert((int)RDV_HELLO_LEN == NET_HS_MAGIC + AUTH_NONCE + AUTH_MAC, "no words");
_Static_assert((int)RDV_VERDICT_LEN == NET_HS_MAGIC + 4 + AUTH_MAC, "1 word");

void rdv_challenge_encode(unsigned char out[RDV_CHALLENGE_LEN],
                          const unsigned char na[AUTH_NONCE])
{
    net_hs_challenge(&PROFILE, out, na);
}

const char *rdv_challenge_parse(const unsigned char in[RDV_CHALLENGE_LEN],
                                unsigned char na[AUTH_NONCE])
{
    return net_hs_challenge_parse(&PROFILE, in, na)
               ? "not a metampi rendezvous server (bad challenge)"
               : NULL;
}

void rdv_hello_encode(unsigned char out[RDV_HELLO_LEN], const auth_key_t *k,
                      const unsigned char na[AUTH_NONCE], const unsigned char nc[AUTH_NONCE])
{
    net_hs_hello(&PROFILE, out, k, NULL, na, nc, 0);
}

const char *rdv_hello_parse(const unsigned char in[RDV_HELLO_LEN], const auth_key_t *k,
                            const unsigned char na[AUTH_NONCE], unsigned char nc[AUTH_NONCE])
{
    unsigned char theirs[AUTH_NONCE];
    if (net_hs_hello_parse(&PROFILE, in, NULL, theirs) != 0)
        return "not a metampi part (bad hello)";
    if (!net_hs_hello_proves(&PROFILE, in, k, na, 0))
        return "wrong job key";
    memcpy(nc, theirs, AUTH_NONCE);
    return NULL;
}

void rdv_verdict_encode(unsigned char out[RDV_VERDICT_LEN], const auth_key_t *k,
                        uint32_t verdict, const unsigned char nc[AUTH_NONCE],
                        const unsigned char na[AUTH_NONCE])
{
    /* only ACCEPT proves anything: a refusal carries zeros */
    net_hs_answer(&PROFILE, out, verdict == RDV_VERDICT_ACCEPT ? k : NULL, &verdict, nc, na,
                  verdict);
}

const char *rdv_verdict_parse(const unsigned char in[RDV_VERDICT_LEN], const auth_key_t *k,
                              const unsigned char nc[AUTH_NONCE],
                              const unsigned char na[AUTH_NONCE])
{
    uint32_t v;
    if (net_hs_answer_parse(&PROFILE, in, &v) != 0)
        return "is not a metampi rendezvous server (bad verdict)";
    if (v == RDV_VERDICT_BAD_KEY)
        return "refused this job key (the part's key differs from the server's)";
    if (v != RDV_VERDICT_ACCEPT)
        return "sent an unknown verdict";
    if (!net_hs_answer_proves(&PROFILE, in, k, nc, na, v))
        return "does not prove the job key (it has another key)";
    return NULL;
}

/* ---- frames ---------------------------------------------------------------------------- */

static void buf_reserve(rdv_buf_t *b, size_t more)
{
    if (b->len + more <= b->cap)
        return;
    size_t cap = b->cap ? 2 * b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) {
        fprintf(stderr, "metampi: out of memory\n");
        abort();
    }
    b->p = p;
    b->cap = cap;
}

void rdv_put_raw(rdv_buf_t *b, const void *data, size_t len)
{
    buf_reserve(b, len);
    memcpy(b->p + b->len, data, len);
    b->len += len;
}

void rdv_begin(rdv_buf_t *b, uint8_t type)
{
    b->start = b->len;
    buf_reserve(b, RDV_FRAME_HDR);
    net_put32(b->p + b->len, 0);
    b->p[b->len + 4] = type;
    b->len += RDV_FRAME_HDR;
}

void rdv_put_u32(rdv_buf_t *b, uint32_t v)
{
    buf_reserve(b, 4);
    net_put32(b->p + b->len, v);
    b->len += 4;
}

void rdv_put_str(rdv_buf_t *b, const char *s)
{
    size_t n = strlen(s) + 1;
    rdv_put_u32(b, (uint32_t)n);
    buf_reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

void rdv_put_strs(rdv_buf_t *b, const char *const *v, uint32_t n)
{
    rdv_put_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        rdv_put_str(b, v[i]);
}

void rdv_put_u32s(rdv_buf_t *b, const uint32_t *v, uint32_t n)
{
    rdv_put_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        rdv_put_u32(b, v[i]);
}

/* mac = HMAC(key, dir || Na || Nc || seq || type || body) */
static void frame_mac(const rdv_mac_ctx_t *m, uint8_t type, const unsigned char *body,
                      size_t len, unsigned char mac[AUTH_MAC])
{
    const char *label = m->dir == RDV_FROM_PART ? "rdv-p" : "rdv-s";
    unsigned char head[5 + 2 * AUTH_NONCE + 5];
    memcpy(head, label, 5);
    memcpy(head + 5, m->na, AUTH_NONCE);
    memcpy(head + 5 + AUTH_NONCE, m->nc, AUTH_NONCE);
    net_put32(head + 5 + 2 * AUTH_NONCE, m->seq);
    head[5 + 2 * AUTH_NONCE + 4] = type;
    unsigned int maclen = AUTH_MAC;
    unsigned char *msg = malloc(sizeof head + len);
    int ok = msg != NULL;
    if (ok) {
        memcpy(msg, head, sizeof head);
        if (len)
            memcpy(msg + sizeof head, body, len);
        ok = HMAC(EVP_sha256(), m->key.b, AUTH_KEY, msg, sizeof head + len, mac, &maclen) != NULL;
    }
    free(msg);
    if (!ok)
        memset(mac, 0, AUTH_MAC); /* never matches a real MAC: the frame is refused */
}

int rdv_end(rdv_buf_t *b, rdv_mac_ctx_t *m)
{
    size_t body = b->len - b->start - RDV_FRAME_HDR;
    size_t flen = 1 + body + AUTH_MAC;
    if (flen > RDV_MAX_FRAME) {
        b->len = b->start;
        return -1;
    }
    buf_reserve(b, AUTH_MAC);
    frame_mac(m, b->p[b->start + 4], b->p + b->start + RDV_FRAME_HDR, body, b->p + b->len);
    b->len += AUTH_MAC;
    net_put32(b->p + b->start, (uint32_t)flen);
    m->seq++;
    return 0;
}

void rdv_buf_free(rdv_buf_t *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

int rdv_frame_open(const unsigned char *buf, size_t len, rdv_mac_ctx_t *m, uint8_t *type,
                   const unsigned char **body, size_t *bodylen, size_t *used, char *err,
                   size_t errlen)
{
    if (len < 4)
        return RDV_MORE;
    uint32_t flen = net_get32(buf);
    if (flen < 1 + AUTH_MAC || flen > RDV_MAX_FRAME) {
        snprintf(err, errlen, "frame length %u (expected %u..%u)", flen, 1 + AUTH_MAC,
                 RDV_MAX_FRAME);
        return RDV_BAD;
    }
    if (len - 4 < flen)
        return RDV_MORE;
    size_t blen = flen - 1 - AUTH_MAC;
    unsigned char want[AUTH_MAC];
    frame_mac(m, buf[4], buf + RDV_FRAME_HDR, blen, want);
    if (CRYPTO_memcmp(want, buf + RDV_FRAME_HDR + blen, AUTH_MAC) != 0) {
        snprintf(err, errlen, "frame %u has a wrong MAC (altered, replayed or another key)",
                 m->seq);
        return RDV_BAD;
    }
    m->seq++;
    *type = buf[4];
    *body = buf + RDV_FRAME_HDR;
    *bodylen = blen;
    *used = 4 + (size_t)flen;
    return RDV_OK;
}

/* ---- body parsing: a cursor that never reads past the end --------------------------- */

typedef struct rd {
    const unsigned char *p;
    size_t left;
    int bad;
    char *err;
    size_t errlen;
    const char *frame;
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

static uint32_t rd_u32(rd_t *r, const char *field, uint32_t min, uint32_t max)
{
    if (!rd_need(r, 4, field))
        return 0;
    uint32_t v = net_get32(r->p);
    r->p += 4;
    r->left -= 4;
    if (v < min || v > max)
        rd_fail(r, "%s is %u (expected %u..%u)", field, v, min, max);
    return v;
}

/* A C string (NUL last and nowhere else); "" after a failure. */
static const char *rd_str(rd_t *r, const char *field)
{
    uint32_t n = rd_u32(r, field, 1, RDV_MAX_FRAME);
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

typedef int valid_fn(const char *s);

/* A list of count in min..max strings, each passing valid. */
static rdv_strs_t rd_strs(rd_t *r, const char *field, uint32_t min, uint32_t max,
                          valid_fn *valid)
{
    rdv_strs_t l = { NULL, 0 };
    uint32_t n = rd_u32(r, field, min, max);
    if (r->bad)
        return l;
    l.p = r->p;
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        const char *s = rd_str(r, field);
        if (!r->bad && !valid(s))
            rd_fail(r, "%s entry %u is not valid", field, i);
    }
    l.n = n;
    return l;
}

static rdv_u32s_t rd_u32s(rd_t *r, const char *field, uint32_t count, uint32_t below)
{
    rdv_u32s_t l = { NULL, 0 };
    rd_u32(r, field, count, count);
    if (!rd_need(r, (size_t)count * 4, field))
        return l;
    l.p = r->p;
    l.n = count;
    for (uint32_t i = 0; i < count; i++)
        if (net_get32(r->p + 4 * (size_t)i) >= below) {
            rd_fail(r, "%s entry %u is %u (expected 0..%u)", field, i, net_get32(r->p + 4 * i),
                    below - 1);
            return l;
        }
    r->p += 4 * (size_t)count;
    r->left -= 4 * (size_t)count;
    return l;
}

static int rd_done(rd_t *r)
{
    if (!r->bad && r->left)
        rd_fail(r, "%zu bytes after the last field", r->left);
    return r->bad ? -1 : 0;
}

static int addr_or_empty(const char *s)
{
    return !*s || rdv_valid_addr(s);
}

const char *rdv_strs_next(rdv_strs_t *s)
{
    uint32_t n = net_get32(s->p);
    const char *v = (const char *)s->p + 4;
    s->p += 4 + (size_t)n;
    return v;
}

uint32_t rdv_u32s_at(const rdv_u32s_t *u, uint32_t i)
{
    return net_get32(u->p + 4 * (size_t)i);
}

/* Nonzero when the names of l are pairwise distinct (l is validated). */
static int distinct(rdv_strs_t l)
{
    const char *seen[RDV_SITES_MAX];
    for (uint32_t i = 0; i < l.n && i < RDV_SITES_MAX; i++) {
        seen[i] = rdv_strs_next(&l);
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(seen[i], seen[j]) == 0)
                return 0;
    }
    return 1;
}

static int printable(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if ((unsigned char)*s < ' ' || (unsigned char)*s == 127)
            return 0;
    return 1;
}

int rdv_join_parse(const unsigned char *body, size_t len, rdv_join_t *j, char *err,
                   size_t errlen)
{
    rd_t r = { body, len, 0, err, errlen, "JOIN" };
    memset(j, 0, sizeof *j);
    j->version = rd_u32(&r, "version", 0, UINT32_MAX);
    if (!r.bad && j->version != RDV_VERSION) {
        rd_fail(&r, "protocol version %u (this metampi speaks %u)", j->version, RDV_VERSION);
        return -1;
    }
    j->job = rd_str(&r, "job");
    if (!r.bad && !rdv_valid_name(j->job))
        rd_fail(&r, "job ID is not valid");
    j->site = rd_str(&r, "site");
    if (!r.bad && !rdv_valid_name(j->site))
        rd_fail(&r, "site name is not valid");
    j->sites = rd_strs(&r, "sites", 1, RDV_SITES_MAX, rdv_valid_name);
    if (!r.bad && !distinct(j->sites))
        rd_fail(&r, "sites has a name twice");
    j->wan = rd_str(&r, "wan");
    if (!r.bad && (strlen(j->wan) > RDV_WAN_MAX || (*j->wan && !printable(j->wan))))
        rd_fail(&r, "wan is not a short printable text");
    j->nranks = rd_u32(&r, "nranks", 1, RDV_RANKS_MAX);
    j->hosts = rd_strs(&r, "hosts", 1, RDV_HOSTS_MAX, rdv_valid_host);
    j->rank_host = rd_u32s(&r, "rank_host", j->nranks, j->hosts.n);
    j->gateway = rd_str(&r, "gateway");
    if (!r.bad && !addr_or_empty(j->gateway))
        rd_fail(&r, "gateway is not IPv4:PORT or [IPv6]:PORT");
    return rd_done(&r);
}

int rdv_text_parse(const unsigned char *body, size_t len, const char **text, char *err,
                   size_t errlen)
{
    rd_t r = { body, len, 0, err, errlen, "text" };
    *text = rd_str(&r, "text");
    if (!r.bad && !printable(*text))
        rd_fail(&r, "the text is empty or not printable");
    return rd_done(&r);
}

int rdv_waiting_parse(const unsigned char *body, size_t len, uint32_t *ms_left,
                      rdv_strs_t *missing, char *err, size_t errlen)
{
    rd_t r = { body, len, 0, err, errlen, "WAITING" };
    *ms_left = rd_u32(&r, "ms_left", 0, UINT32_MAX);
    *missing = rd_strs(&r, "missing", 0, RDV_SITES_MAX, rdv_valid_name);
    return rd_done(&r);
}

int rdv_layout_parse(const unsigned char *body, size_t len, rdv_layout_t *l, char *err,
                     size_t errlen)
{
    rd_t r = { body, len, 0, err, errlen, "LAYOUT" };
    l->size = rd_u32(&r, "size", 1, RDV_RANKS_MAX);
    l->nsites = rd_u32(&r, "nsites", 1, RDV_SITES_MAX);
    uint32_t next = 0;
    for (uint32_t s = 0; s < l->nsites && !r.bad; s++) {
        rdv_site_t *t = &l->site[s];
        t->name = rd_str(&r, "site name");
        if (!r.bad && !rdv_valid_name(t->name))
            rd_fail(&r, "site %u: the name is not valid", s);
        for (uint32_t q = 0; q < s && !r.bad; q++)
            if (strcmp(l->site[q].name, t->name) == 0)
                rd_fail(&r, "site %s appears twice", t->name);
        t->first = rd_u32(&r, "first", next, next);
        t->nranks = rd_u32(&r, "nranks", 1, RDV_RANKS_MAX);
        if (!r.bad && t->nranks > l->size - next)
            rd_fail(&r, "the sites have more ranks than size %u", l->size);
        next += t->nranks;
        t->hosts = rd_strs(&r, "hosts", 1, RDV_HOSTS_MAX, rdv_valid_host);
        t->rank_host = rd_u32s(&r, "rank_host", t->nranks, t->hosts.n);
        t->gateway = rd_str(&r, "gateway");
        if (!r.bad && !addr_or_empty(t->gateway))
            rd_fail(&r, "site %s: gateway is not IPv4:PORT or [IPv6]:PORT", t->name);
    }
    if (!r.bad && next != l->size)
        rd_fail(&r, "the sites have %u ranks, size says %u", next, l->size);
    return rd_done(&r);
}

static int valid_kvsname(const char *s)
{
    size_t n = strlen(s);
    return n >= 1 && n <= RDV_KVSNAME_MAX &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

static int valid_sites_text(const char *s)
{
    size_t n = strlen(s);
    return n >= 1 && n <= RDV_SITES_TEXT_MAX && strspn(s, "0123456789*,") == n;
}

static int empty_or_printable(const char *s)
{
    return !*s || printable(s);
}

int rdv_numbers_parse(const unsigned char *body, size_t len, rdv_ranks_t *n, char *err,
                      size_t errlen)
{
    rd_t r = { body, len, 0, err, errlen, "NUMBERS" };
    memset(n, 0, sizeof *n);
    n->kvsname = rd_str(&r, "kvsname");
    if (!r.bad && !valid_kvsname(n->kvsname))
        rd_fail(&r, "kvsname is not 1..%d of [A-Za-z0-9_.-]", RDV_KVSNAME_MAX);
    n->count = rd_u32(&r, "count", 1, RDV_RANKS_MAX);
    n->sites = rd_str(&r, "sites");
    if (!r.bad && !valid_sites_text(n->sites))
        rd_fail(&r, "sites is not a run-length coded list of sites");
    n->why = "";
    return rd_done(&r);
}

int rdv_ranks_parse(const unsigned char *body, size_t len, rdv_ranks_t *n, char *err,
                    size_t errlen)
{
    rd_t r = { body, len, 0, err, errlen, "RANKS" };
    memset(n, 0, sizeof *n);
    n->kvsname = rd_str(&r, "kvsname");
    if (!r.bad && !valid_kvsname(n->kvsname))
        rd_fail(&r, "kvsname is not 1..%d of [A-Za-z0-9_.-]", RDV_KVSNAME_MAX);
    n->base = rd_u32(&r, "base", 0, RDV_ID_MAX);
    n->count = rd_u32(&r, "count", 1, RDV_RANKS_MAX);
    n->sites = rd_str(&r, "sites");
    if (!r.bad && !valid_sites_text(n->sites))
        rd_fail(&r, "sites is not a run-length coded list of sites");
    n->site = rd_u32(&r, "site", 0, RDV_SITES_MAX - 1);
    n->parts = rd_u32(&r, "parts", 0, RDV_SITES_MAX);
    n->why = rd_str(&r, "why");
    if (!r.bad && !empty_or_printable(n->why))
        rd_fail(&r, "why is not printable");
    if (!r.bad && !*n->why && n->count > RDV_ID_MAX - n->base)
        rd_fail(&r, "the numbers %u..%u go beyond %u", n->base, n->base + n->count - 1,
                RDV_ID_MAX - 1);
    return rd_done(&r);
}

int rdv_gw_ok_parse(const unsigned char *body, size_t len, uint32_t *base, uint32_t *site,
                    const char **why, char *err, size_t errlen)
{
    rd_t r = { body, len, 0, err, errlen, "GW_OK" };
    *base = rd_u32(&r, "base", 0, RDV_ID_MAX - 1);
    *site = rd_u32(&r, "site", 0, RDV_SITES_MAX - 1);
    *why = rd_str(&r, "why");
    if (!r.bad && !empty_or_printable(*why))
        rd_fail(&r, "why is not printable");
    return rd_done(&r);
}

static int any_string(const char *s)
{
    (void)s;
    return 1;
}

int rdv_relay_parse(const unsigned char *body, size_t len, rdv_relay_t *m, char *err,
                    size_t errlen)
{
    rd_t r = { body, len, 0, err, errlen, "RELAY" };
    memset(m, 0, sizeof *m);
    m->site = rd_u32(&r, "site", 0, RDV_SITES_MAX - 1);
    m->kind = rd_u32(&r, "kind", 0, UINT32_MAX);
    m->id = rd_u32(&r, "id", 0, UINT32_MAX);
    m->fields = rd_strs(&r, "fields", 0, RDV_RELAY_FIELDS_MAX, any_string);
    return rd_done(&r);
}

const char *rdv_type_name(uint8_t type, char *tmp, size_t cap)
{
    switch (type) {
    case RDV_JOIN: return "JOIN";
    case RDV_REFUSED: return "REFUSED";
    case RDV_WAITING: return "WAITING";
    case RDV_LAYOUT: return "LAYOUT";
    case RDV_ABORT: return "ABORT";
    case RDV_NUMBERS: return "NUMBERS";
    case RDV_RANKS: return "RANKS";
    case RDV_GW_OK: return "GW_OK";
    case RDV_RELAY: return "RELAY";
    default: snprintf(tmp, cap, "type %u", type); return tmp;
    }
}
