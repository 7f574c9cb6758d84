/*
 * The rendezvous protocol (tools/rendezvous/rdv_wire.c): the handshake with the right and a
 * wrong key; every frame type round-trips; every proper prefix of a frame asks for more; any
 * changed byte, a replayed, reordered or reflected frame fails the MAC; the body parsers
 * reject each rule of the format (exact-size heap copies, so ASan sees any overread); the
 * name and address rules.
 */
#include "rdv_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static const auth_key_t KEY = { { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 } };
static const auth_key_t OTHER = { { 1, 2, 3, 4, 5, 6, 7, 8, 9, 11 } };

static rdv_mac_ctx_t ctx(enum rdv_dir dir, const auth_key_t *k)
{
    rdv_mac_ctx_t m = { .key = *k, .seq = 0, .dir = dir };
    memset(m.na, 0xa1, AUTH_NONCE);
    memset(m.nc, 0xc3, AUTH_NONCE);
    return m;
}

static void test_names(void)
{
    CHECK(rdv_valid_name("stuttgart"));
    CHECK(rdv_valid_name("a-b_c.9"));
    CHECK(!rdv_valid_name(""));
    CHECK(!rdv_valid_name("a b"));
    CHECK(!rdv_valid_name("a/b"));
    char long_name[RDV_NAME_MAX + 2];
    memset(long_name, 'x', sizeof long_name);
    long_name[RDV_NAME_MAX] = '\0';
    CHECK(rdv_valid_name(long_name));
    long_name[RDV_NAME_MAX] = 'x';
    long_name[RDV_NAME_MAX + 1] = '\0';
    CHECK(!rdv_valid_name(long_name));
    CHECK(rdv_valid_host("node-1.example.org"));
    CHECK(!rdv_valid_host(""));
    CHECK(!rdv_valid_host("a b"));
    CHECK(!rdv_valid_host("a\tb"));
    CHECK(rdv_valid_addr("10.0.1.1:7000"));
    CHECK(rdv_valid_addr("255.255.255.254:65535"));
    CHECK(!rdv_valid_addr("255.255.255.255:7000"));     /* broadcast: not a gateway's */
    CHECK(!rdv_valid_addr("0.0.0.0:7000"));
    CHECK(rdv_valid_addr("[fd00::1]:7000"));
    CHECK(rdv_valid_addr("[2001:db8::ffff:1:2]:1"));
    CHECK(rdv_valid_addr("[2001:db8:ffff:ffff:ffff:ffff:ffff:fffe]:65535"));  /* long */
    CHECK(rdv_valid_addr("[::ffff:10.0.0.1]:7000"));
    CHECK(!rdv_valid_addr("[FD00::1]:7000"));           /* only the text form inet_ntop writes */
    CHECK(!rdv_valid_addr("[fd00:0::1]:7000"));
    CHECK(!rdv_valid_addr("fd00::1:7000"));
    CHECK(!rdv_valid_addr("[fd00::1]"));
    CHECK(!rdv_valid_addr("[::]:7000"));
    CHECK(!rdv_valid_addr("[ff02::1]:7000"));
    CHECK(!rdv_valid_addr("[fe80::1%1]:7000"));
    CHECK(!rdv_valid_addr("10.0.1.1:0"));
    CHECK(!rdv_valid_addr("10.0.1.1:65536"));
    CHECK(!rdv_valid_addr("10.0.1.256:7000"));
    CHECK(!rdv_valid_addr("10.0.1:7000"));
    CHECK(!rdv_valid_addr("10.0.01.1:7000"));
    CHECK(!rdv_valid_addr("10.0.1.1:7000x"));
    CHECK(!rdv_valid_addr("10.0.1.1"));
    CHECK(!rdv_valid_addr("host:7000"));
    CHECK(!rdv_valid_addr(""));
}

static void test_handshake(void)
{
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE], got[AUTH_NONCE];
    memset(na, 7, sizeof na);
    memset(nc, 9, sizeof nc);
    unsigned char ch[RDV_CHALLENGE_LEN], hello[RDV_HELLO_LEN], v[RDV_VERDICT_LEN];
    rdv_challenge_encode(ch, na);
    CHECK(rdv_challenge_parse(ch, got) == NULL && memcmp(got, na, AUTH_NONCE) == 0);
    ch[0] ^= 1;
    CHECK(rdv_challenge_parse(ch, got) != NULL);

    rdv_hello_encode(hello, &KEY, na, nc);
    CHECK(rdv_hello_parse(hello, &KEY, na, got) == NULL && memcmp(got, nc, AUTH_NONCE) == 0);
    CHECK(rdv_hello_parse(hello, &OTHER, na, got) != NULL);   /* wrong key */
    unsigned char na2[AUTH_NONCE];
    memset(na2, 8, sizeof na2);
    CHECK(rdv_hello_parse(hello, &KEY, na2, got) != NULL);    /* another challenge: replay */
    for (size_t i = 0; i < sizeof hello; i++) {               /* any byte changed */
        hello[i] ^= 0x40;
        CHECK(rdv_hello_parse(hello, &KEY, na, got) != NULL);
        hello[i] ^= 0x40;
    }

    rdv_verdict_encode(v, &KEY, RDV_VERDICT_ACCEPT, nc, na);
    CHECK(rdv_verdict_parse(v, &KEY, nc, na) == NULL);
    CHECK(rdv_verdict_parse(v, &OTHER, nc, na) != NULL);     /* a server without the key */
    CHECK(rdv_verdict_parse(v, &KEY, na, nc) != NULL);       /* nonces swapped */
    rdv_verdict_encode(v, &KEY, RDV_VERDICT_BAD_KEY, nc, na);
    const char *bad = rdv_verdict_parse(v, &KEY, nc, na);
    CHECK(bad && strstr(bad, "refused this job key"));
    v[8] = 7;
    CHECK(rdv_verdict_parse(v, &KEY, nc, na) != NULL);
}

/* An exact-size heap copy, so that ASan sees any read beyond it. */
static unsigned char *copy(const unsigned char *p, size_t n)
{
    unsigned char *c = malloc(n ? n : 1);
    memcpy(c, p, n);
    return c;
}

typedef int parse_fn(const unsigned char *body, size_t len, char *err);

static int p_join(const unsigned char *b, size_t n, char *err)
{
    rdv_join_t j;
    int rc = rdv_join_parse(b, n, &j, err, 256);
    if (rc == 0) {  /* walk the lists: an overread would show */
        rdv_strs_t s = j.sites;
        for (uint32_t i = 0; i < j.sites.n; i++)
            CHECK(rdv_valid_name(rdv_strs_next(&s)));
        s = j.hosts;
        for (uint32_t i = 0; i < j.hosts.n; i++)
            CHECK(rdv_valid_host(rdv_strs_next(&s)));
        for (uint32_t i = 0; i < j.rank_host.n; i++)
            CHECK(rdv_u32s_at(&j.rank_host, i) < j.hosts.n);
    }
    return rc;
}

static int p_layout(const unsigned char *b, size_t n, char *err)
{
    static rdv_layout_t l;
    int rc = rdv_layout_parse(b, n, &l, err, 256);
    if (rc == 0) {
        uint32_t sum = 0;
        for (uint32_t s = 0; s < l.nsites; s++) {
            CHECK(l.site[s].first == sum);
            sum += l.site[s].nranks;
            rdv_strs_t h = l.site[s].hosts;
            for (uint32_t i = 0; i < l.site[s].hosts.n; i++)
                CHECK(rdv_valid_host(rdv_strs_next(&h)));
            for (uint32_t i = 0; i < l.site[s].rank_host.n; i++)
                CHECK(rdv_u32s_at(&l.site[s].rank_host, i) < l.site[s].hosts.n);
        }
        CHECK(sum == l.size);
    }
    return rc;
}

static int p_text(const unsigned char *b, size_t n, char *err)
{
    const char *t;
    return rdv_text_parse(b, n, &t, err, 256);
}

static int p_waiting(const unsigned char *b, size_t n, char *err)
{
    uint32_t ms;
    rdv_strs_t m;
    return rdv_waiting_parse(b, n, &ms, &m, err, 256);
}

/* Body b[0..n) parses; every truncation and many corruptions do not crash, and a failure
 * always says why. */
static void torture(parse_fn *parse, const unsigned char *b, size_t n)
{
    char err[256];
    unsigned char *c = copy(b, n);
    CHECK(parse(c, n, err) == 0);
    free(c);
    for (size_t k = 0; k < n; k++) {
        c = copy(b, k);
        err[0] = '\0';
        CHECK(parse(c, k, err) != 0 && err[0]);
        free(c);
    }
    static const unsigned char vals[] = { 0, 1, 2, 0x20, 0x7f, 0x80, 0xff };
    for (size_t k = 0; k < n; k++)
        for (size_t v = 0; v < sizeof vals; v++) {
            c = copy(b, n);
            c[k] = vals[v];
            err[0] = '\0';
            if (parse(c, n, err) != 0)
                CHECK(err[0]);
            free(c);
        }
}

static const char *const SITES[] = { "stuttgart", "berlin" };
static const char *const HOSTS[] = { "h1", "h2" };
static const uint32_t RANK_HOST[] = { 0, 0, 1 };

static void put_join(rdv_buf_t *b, const char *job, const char *site, uint32_t nranks,
                     const char *gateway)
{
    rdv_put_u32(b, RDV_VERSION);
    rdv_put_str(b, job);
    rdv_put_str(b, site);
    rdv_put_strs(b, SITES, 2);
    rdv_put_str(b, "streams=4 compression=auto");
    rdv_put_u32(b, nranks);
    rdv_put_strs(b, HOSTS, 2);
    rdv_put_u32s(b, RANK_HOST, nranks);
    rdv_put_str(b, gateway);
}

static void test_bodies(void)
{
    rdv_buf_t b = { 0 };
    size_t n;
    char err[256];
    rdv_join_t j;

    b.len = b.start = 0;
    put_join(&b, "job1", "berlin", 3, "10.0.2.1:7000");
    n = b.len;
    torture(p_join, b.p, n);
    CHECK(rdv_join_parse(b.p, n, &j, err, sizeof err) == 0);
    CHECK(strcmp(j.job, "job1") == 0 && strcmp(j.site, "berlin") == 0 && j.nranks == 3);
    CHECK(j.sites.n == 2 && j.hosts.n == 2 && rdv_u32s_at(&j.rank_host, 2) == 1);
    CHECK(strcmp(j.gateway, "10.0.2.1:7000") == 0);
    CHECK(strcmp(j.wan, "streams=4 compression=auto") == 0);
    /* [wan] settings that are not a short line of text */
    b.len = 0;
    rdv_put_u32(&b, RDV_VERSION);
    rdv_put_str(&b, "j");
    rdv_put_str(&b, "berlin");
    rdv_put_strs(&b, SITES, 2);
    rdv_put_str(&b, "streams=4\n");
    CHECK(rdv_join_parse(b.p, b.len, &j, err, sizeof err) != 0 && strstr(err, "wan"));

    /* each rule of JOIN */
    struct { const char *job, *site, *gw; uint32_t nranks; const char *why; } bad[] = {
        { "job 1", "berlin", "", 3, "job ID" },
        { "job1", "ber/lin", "", 3, "site name" },
        { "job1", "berlin", "10.0.2.1", 3, "gateway" },
        { "job1", "berlin", "", 0, "nranks" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b.len = 0;
        put_join(&b, bad[i].job, bad[i].site, bad[i].nranks, bad[i].gw);
        CHECK(rdv_join_parse(b.p, b.len, &j, err, sizeof err) != 0);
        CHECK(strstr(err, bad[i].why) != NULL);
    }
    /* a rank on a host that is not in the list */
    b.len = 0;
    rdv_put_u32(&b, RDV_VERSION);
    rdv_put_str(&b, "j");
    rdv_put_str(&b, "berlin");
    rdv_put_strs(&b, SITES, 2);
    rdv_put_str(&b, "");
    rdv_put_u32(&b, 1);
    rdv_put_strs(&b, HOSTS, 2);
    uint32_t two = 2;
    rdv_put_u32s(&b, &two, 1);
    rdv_put_str(&b, "");
    CHECK(rdv_join_parse(b.p, b.len, &j, err, sizeof err) != 0 && strstr(err, "rank_host"));
    /* a site named twice */
    b.len = 0;
    rdv_put_u32(&b, RDV_VERSION);
    rdv_put_str(&b, "j");
    rdv_put_str(&b, "berlin");
    const char *twice[] = { "berlin", "berlin" };
    rdv_put_strs(&b, twice, 2);
    CHECK(rdv_join_parse(b.p, b.len, &j, err, sizeof err) != 0 && strstr(err, "twice"));
    /* another protocol version */
    b.len = 0;
    rdv_put_u32(&b, RDV_VERSION + 1);
    CHECK(rdv_join_parse(b.p, b.len, &j, err, sizeof err) != 0 && strstr(err, "version"));
    /* trailing bytes */
    b.len = 0;
    put_join(&b, "job1", "berlin", 3, "");
    rdv_put_u32(&b, 0);
    CHECK(rdv_join_parse(b.p, b.len, &j, err, sizeof err) != 0 && strstr(err, "after"));

    /* LAYOUT: two sites */
    b.len = 0;
    rdv_put_u32(&b, 5);
    rdv_put_u32(&b, 2);
    rdv_put_str(&b, "stuttgart");
    rdv_put_u32(&b, 0);
    rdv_put_u32(&b, 2);
    rdv_put_strs(&b, HOSTS, 1);
    uint32_t zeros[2] = { 0, 0 };
    rdv_put_u32s(&b, zeros, 2);
    rdv_put_str(&b, "10.0.1.1:7000");
    rdv_put_str(&b, "berlin");
    rdv_put_u32(&b, 2);
    rdv_put_u32(&b, 3);
    rdv_put_strs(&b, HOSTS, 2);
    rdv_put_u32s(&b, RANK_HOST, 3);
    rdv_put_str(&b, "");
    n = b.len;
    torture(p_layout, b.p, n);
    static rdv_layout_t l;
    CHECK(rdv_layout_parse(b.p, n, &l, err, sizeof err) == 0);
    CHECK(l.size == 5 && l.nsites == 2 && l.site[1].first == 2 && l.site[1].nranks == 3);
    CHECK(strcmp(l.site[0].gateway, "10.0.1.1:7000") == 0 && !l.site[1].gateway[0]);
    /* size that does not match the sites */
    unsigned char *c = copy(b.p, n);
    c[0] = 6;
    CHECK(rdv_layout_parse(c, n, &l, err, sizeof err) != 0);
    c[0] = 4;
    CHECK(rdv_layout_parse(c, n, &l, err, sizeof err) != 0);
    free(c);

    /* texts */
    b.len = 0;
    rdv_put_str(&b, "site berlin did not join within 30 s");
    torture(p_text, b.p, b.len);
    b.len = 0;
    rdv_put_str(&b, "line\nbreak");
    CHECK(p_text(b.p, b.len, err) != 0);
    b.len = 0;
    rdv_put_str(&b, "");
    CHECK(p_text(b.p, b.len, err) != 0);

    /* WAITING */
    b.len = 0;
    rdv_put_u32(&b, 30000);
    rdv_put_strs(&b, SITES + 1, 1);
    torture(p_waiting, b.p, b.len);
    uint32_t ms;
    rdv_strs_t miss;
    CHECK(rdv_waiting_parse(b.p, b.len, &ms, &miss, err, sizeof err) == 0);
    CHECK(ms == 30000 && miss.n == 1 && strcmp(rdv_strs_next(&miss), "berlin") == 0);
    rdv_buf_free(&b);
}

static void test_frames(void)
{
    rdv_buf_t b = { 0 };
    rdv_mac_ctx_t tx = ctx(RDV_FROM_PART, &KEY);
    size_t starts[4];
    starts[0] = b.len;
    rdv_begin(&b, RDV_JOIN);
    put_join(&b, "job1", "berlin", 3, "");
    CHECK(rdv_end(&b, &tx) == 0);
    starts[1] = b.len;
    rdv_begin(&b, RDV_ABORT);
    rdv_put_str(&b, "bye");
    CHECK(rdv_end(&b, &tx) == 0);
    starts[2] = b.len;
    CHECK(tx.seq == 2);

    /* the stream, frame by frame */
    rdv_mac_ctx_t rx = ctx(RDV_FROM_PART, &KEY);
    size_t off = 0;
    char err[256];
    for (int i = 0; i < 2; i++) {
        uint8_t type;
        const unsigned char *body;
        size_t blen, used;
        int rc = rdv_frame_open(b.p + off, b.len - off, &rx, &type, &body, &blen, &used, err,
                                sizeof err);
        CHECK(rc == RDV_OK);
        CHECK(used == starts[i + 1] - starts[i]);
        CHECK(type == (i == 0 ? RDV_JOIN : RDV_ABORT));
        if (i == 0) {
            rdv_join_t j;
            CHECK(rdv_join_parse(body, blen, &j, err, sizeof err) == 0);
        }
        off += used;
    }
    CHECK(rx.seq == 2);

    const unsigned char *f = b.p;
    size_t flen = starts[1];
    for (size_t k = 0; k < flen; k++) {   /* every prefix: more, and the seq stays */
        unsigned char *c = copy(f, k);
        rdv_mac_ctx_t r = ctx(RDV_FROM_PART, &KEY);
        uint8_t type;
        const unsigned char *body;
        size_t blen, used;
        CHECK(rdv_frame_open(c, k, &r, &type, &body, &blen, &used, err, sizeof err) ==
              RDV_MORE && r.seq == 0);
        free(c);
    }
    for (size_t k = 0; k < flen; k++) {   /* any byte changed: never accepted as it is */
        unsigned char *c = copy(f, flen);
        c[k] ^= 0x10;
        rdv_mac_ctx_t r = ctx(RDV_FROM_PART, &KEY);
        uint8_t type;
        const unsigned char *body;
        size_t blen, used;
        int rc = rdv_frame_open(c, flen, &r, &type, &body, &blen, &used, err, sizeof err);
        CHECK(rc != RDV_OK);
        free(c);
    }
    struct { const char *what; rdv_mac_ctx_t r; } wrong[] = {
        { "replayed (seq 1)", ctx(RDV_FROM_PART, &KEY) },
        { "reflected (other direction)", ctx(RDV_FROM_SERVER, &KEY) },
        { "other key", ctx(RDV_FROM_PART, &OTHER) },
        { "other connection (nonce)", ctx(RDV_FROM_PART, &KEY) },
    };
    wrong[0].r.seq = 1;
    wrong[3].r.na[0] ^= 1;
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        uint8_t type;
        const unsigned char *body;
        size_t blen, used;
        int rc = rdv_frame_open(f, flen, &wrong[i].r, &type, &body, &blen, &used, err,
                                sizeof err);
        if (rc != RDV_BAD || !strstr(err, "MAC"))
            fprintf(stderr, "%s accepted\n", wrong[i].what);
        CHECK(rc == RDV_BAD && strstr(err, "MAC"));
    }
    /* lengths out of range */
    unsigned char tiny[8] = { 3, 0, 0, 0, 1, 0, 0, 0 };
    rdv_mac_ctx_t r = ctx(RDV_FROM_PART, &KEY);
    uint8_t type;
    const unsigned char *body;
    size_t blen, used;
    CHECK(rdv_frame_open(tiny, sizeof tiny, &r, &type, &body, &blen, &used, err, sizeof err) ==
          RDV_BAD);
    unsigned char huge[8] = { 0, 0, 0x20, 0, 1, 0, 0, 0 };
    CHECK(rdv_frame_open(huge, sizeof huge, &r, &type, &body, &blen, &used, err, sizeof err) ==
          RDV_BAD);
    /* a frame too large to build is dropped */
    rdv_buf_t big = { 0 };
    rdv_begin(&big, RDV_ABORT);
    char *s = malloc(RDV_MAX_FRAME);
    memset(s, 'x', RDV_MAX_FRAME - 1);
    s[RDV_MAX_FRAME - 1] = '\0';
    rdv_put_str(&big, s);
    rdv_mac_ctx_t t2 = ctx(RDV_FROM_SERVER, &KEY);
    CHECK(rdv_end(&big, &t2) != 0 && big.len == 0 && t2.seq == 0);
    free(s);
    rdv_buf_free(&big);
    rdv_buf_free(&b);
}

/* The frames of a running job (spawning): NUMBERS, RANKS, GW_OK and what they refuse. */
static void ranks_body(rdv_buf_t *b, const char *kvs, uint32_t base, uint32_t count,
                       const char *sites, const char *why)
{
    b->len = 0;
    rdv_put_str(b, kvs);
    rdv_put_u32(b, base);
    rdv_put_u32(b, count);
    rdv_put_str(b, sites);
    rdv_put_u32(b, 1);
    rdv_put_u32(b, 2);
    rdv_put_str(b, why);
}

static void test_spawn_frames(void)
{
    rdv_buf_t b = { 0 };
    rdv_ranks_t r;
    char err[256];
    rdv_put_str(&b, "kvs_1_2.s3");
    rdv_put_u32(&b, 4);
    rdv_put_str(&b, "0*3,1*1");
    CHECK(rdv_numbers_parse(b.p, b.len, &r, err, sizeof err) == 0);
    CHECK(strcmp(r.kvsname, "kvs_1_2.s3") == 0 && r.count == 4 &&
          strcmp(r.sites, "0*3,1*1") == 0 && !*r.why);
    b.len = 0;
    rdv_put_str(&b, "kvs 1");   /* a blank in the kvsname */
    rdv_put_u32(&b, 4);
    rdv_put_str(&b, "0*4");
    CHECK(rdv_numbers_parse(b.p, b.len, &r, err, sizeof err) != 0 && strstr(err, "kvsname"));
    b.len = 0;
    rdv_put_str(&b, "k.s1");
    rdv_put_u32(&b, 0);   /* no ranks */
    rdv_put_str(&b, "0*4");
    CHECK(rdv_numbers_parse(b.p, b.len, &r, err, sizeof err) != 0 && strstr(err, "count"));
    b.len = 0;
    rdv_put_str(&b, "k.s1");
    rdv_put_u32(&b, 4);
    rdv_put_str(&b, "0*4;rm");   /* not a list of sites */
    CHECK(rdv_numbers_parse(b.p, b.len, &r, err, sizeof err) != 0 && strstr(err, "sites"));

    ranks_body(&b, "k.s1", 8, 3, "1*3", "");
    CHECK(rdv_ranks_parse(b.p, b.len, &r, err, sizeof err) == 0);
    CHECK(r.base == 8 && r.count == 3 && r.site == 1 && r.parts == 2 && !*r.why);
    ranks_body(&b, "k.s1", RDV_ID_MAX - 2, 3, "1*3", "");   /* beyond the numbers */
    CHECK(rdv_ranks_parse(b.p, b.len, &r, err, sizeof err) != 0 && strstr(err, "beyond"));
    ranks_body(&b, "k.s1", 0, 3, "1*3", "too many ranks");  /* a refusal names no numbers */
    CHECK(rdv_ranks_parse(b.p, b.len, &r, err, sizeof err) == 0 && !strcmp(r.why,
                                                                          "too many ranks"));
    ranks_body(&b, "k.s1", 8, 3, "1*3", "bell\a");
    CHECK(rdv_ranks_parse(b.p, b.len, &r, err, sizeof err) != 0 && strstr(err, "why"));
    rdv_put_u32(&b, 0);   /* a field too many */
    ranks_body(&b, "k.s1", 8, 3, "1*3", "");
    rdv_put_u32(&b, 0);
    CHECK(rdv_ranks_parse(b.p, b.len, &r, err, sizeof err) != 0);

    uint32_t base, site;
    const char *why;
    b.len = 0;
    rdv_put_u32(&b, 8);
    rdv_put_u32(&b, 1);
    rdv_put_str(&b, "");
    CHECK(rdv_gw_ok_parse(b.p, b.len, &base, &site, &why, err, sizeof err) == 0 &&
          base == 8 && site == 1 && !*why);
    b.len = 0;
    rdv_put_u32(&b, 8);
    rdv_put_u32(&b, RDV_SITES_MAX);   /* no such site */
    rdv_put_str(&b, "");
    CHECK(rdv_gw_ok_parse(b.p, b.len, &base, &site, &why, err, sizeof err) != 0);

    /* RELAY: any strings, empty ones included; a site beyond the bound, a truncated list
     * and bytes after it are refused */
    static const char *const f[3] = { "kvs_1.s2", "", "cmd=get key=x" };
    rdv_relay_t m;
    b.len = 0;
    rdv_put_u32(&b, 2);
    rdv_put_u32(&b, RDV_RELAY_KINDS + 1);
    rdv_put_u32(&b, 99);
    rdv_put_strs(&b, f, 3);
    CHECK(rdv_relay_parse(b.p, b.len, &m, err, sizeof err) == 0 && m.site == 2 &&
          m.kind == RDV_RELAY_KINDS + 1 && m.id == 99 && m.fields.n == 3);
    CHECK(strcmp(rdv_strs_next(&m.fields), "kvs_1.s2") == 0 &&
          strcmp(rdv_strs_next(&m.fields), "") == 0 &&
          strcmp(rdv_strs_next(&m.fields), "cmd=get key=x") == 0);
    CHECK(rdv_relay_parse(b.p, b.len - 1, &m, err, sizeof err) != 0);
    rdv_put_u32(&b, 0);
    CHECK(rdv_relay_parse(b.p, b.len, &m, err, sizeof err) != 0 &&
          strstr(err, "after the last field"));
    b.len = 0;
    rdv_put_u32(&b, RDV_SITES_MAX);
    rdv_put_u32(&b, RDV_RELAY_KINDS);
    rdv_put_u32(&b, 1);
    rdv_put_strs(&b, f, 1);
    CHECK(rdv_relay_parse(b.p, b.len, &m, err, sizeof err) != 0);
    rdv_buf_free(&b);
}

int main(void)
{
    test_spawn_frames();
    test_names();
    test_handshake();
    test_bodies();
    test_frames();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("rdv_wire: all checks passed\n");
    return 0;
}
