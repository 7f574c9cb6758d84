/*
 * Fuzz target: everything a connection to metampi-rendezvous (or a server a part connects
 * to) can make the other side parse (tools/rendezvous/rdv_wire.c): the handshake messages,
 * the frame layer with its MAC check, and every frame body. The first byte picks the parser;
 * the body parsers get the bytes directly (a fuzzer cannot forge MACs, so they are reached
 * without one here, as a peer with the key would reach them).
 */
#include "rdv_wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static rdv_layout_t layout;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const auth_key_t key = { { 1, 2, 3, 4, 5, 6, 7, 8 } };
    unsigned char na[AUTH_NONCE] = { 9 }, nc[AUTH_NONCE] = { 7 }, fixed[RDV_HELLO_LEN];
    const uint8_t *in = data + 1;
    size_t n = size - 1;
    /* an exact-size copy, so that a read beyond the input shows under ASan */
    unsigned char *body = malloc(n ? n : 1);
    if (!body)
        return 0;
    memcpy(body, in, n);
    memset(fixed, 0, sizeof fixed);
    memcpy(fixed, in, n < sizeof fixed ? n : sizeof fixed);
    char err[256];
    switch (data[0] % 12) {
    case 0:
        rdv_challenge_parse(fixed, na);
        break;
    case 1:
        rdv_hello_parse(fixed, &key, na, nc);
        break;
    case 2:
        rdv_verdict_parse(fixed, &key, nc, na);
        break;
    case 3: {  /* the stream as a reader consumes it */
        rdv_mac_ctx_t m = { .key = key, .dir = RDV_FROM_PART };
        size_t off = 0;
        for (;;) {
            uint8_t type;
            const unsigned char *b;
            size_t blen, used;
            if (rdv_frame_open(body + off, n - off, &m, &type, &b, &blen, &used, err,
                               sizeof err) != RDV_OK)
                break;
            if (used == 0 || used > n - off)
                abort();
            off += used;
        }
        break;
    }
    case 4: {
        rdv_join_t j;
        if (rdv_join_parse(body, n, &j, err, sizeof err) == 0) {
            rdv_strs_t s = j.hosts;
            for (uint32_t i = 0; i < j.hosts.n; i++)
                if (!rdv_valid_host(rdv_strs_next(&s)))
                    abort();
            for (uint32_t i = 0; i < j.rank_host.n; i++)
                if (rdv_u32s_at(&j.rank_host, i) >= j.hosts.n)
                    abort();
            if (j.rank_host.n != j.nranks)
                abort();
        }
        break;
    }
    case 5:
        if (rdv_layout_parse(body, n, &layout, err, sizeof err) == 0) {
            uint32_t sum = 0;
            for (uint32_t s = 0; s < layout.nsites; s++) {
                if (layout.site[s].first != sum)
                    abort();
                sum += layout.site[s].nranks;
                rdv_strs_t h = layout.site[s].hosts;
                for (uint32_t i = 0; i < layout.site[s].hosts.n; i++)
                    rdv_strs_next(&h);
            }
            if (sum != layout.size)
                abort();
        }
        break;
    case 6: {
        const char *t;
        rdv_text_parse(body, n, &t, err, sizeof err);
        break;
    }
    case 7: {
        uint32_t ms;
        rdv_strs_t m;
        if (rdv_waiting_parse(body, n, &ms, &m, err, sizeof err) == 0)
            for (uint32_t i = 0; i < m.n; i++)
                if (!rdv_valid_name(rdv_strs_next(&m)))
                    abort();
        break;
    }
    case 8:
    case 9: {   /* NUMBERS, RANKS: the spawning frames of a running job */
        rdv_ranks_t r;
        int rc = data[0] % 12 == 8 ? rdv_numbers_parse(body, n, &r, err, sizeof err)
                                   : rdv_ranks_parse(body, n, &r, err, sizeof err);
        if (rc == 0 && (!*r.kvsname || strlen(r.kvsname) > RDV_KVSNAME_MAX || !*r.sites ||
                        strspn(r.sites, "0123456789*,") != strlen(r.sites) || r.count == 0 ||
                        (!*r.why && r.count > RDV_ID_MAX - r.base)))
            abort();
        break;
    }
    case 11: {   /* RELAY: messages between parts */
        rdv_relay_t m;
        if (rdv_relay_parse(body, n, &m, err, sizeof err) == 0) {
            if (m.site >= RDV_SITES_MAX || m.fields.n > RDV_RELAY_FIELDS_MAX)
                abort();
            for (uint32_t i = 0; i < m.fields.n; i++)
                rdv_strs_next(&m.fields);
        }
        break;
    }
    default: {
        uint32_t base, site;
        const char *why;
        if (rdv_gw_ok_parse(body, n, &base, &site, &why, err, sizeof err) == 0 &&
            (base >= RDV_ID_MAX || site >= RDV_SITES_MAX))
            abort();
        break;
    }
    }
    free(body);
    return 0;
}

static void add_body(void (*add)(const void *, size_t), uint8_t sel, const rdv_buf_t *b)
{
    unsigned char buf[4096];
    if (b->len + 1 > sizeof buf)
        return;
    buf[0] = sel;
    memcpy(buf + 1, b->p, b->len);
    add(buf, b->len + 1);
}

void fuzz_make_seeds(void (*add)(const void *data, size_t size))
{
    static const auth_key_t key = { { 1, 2, 3, 4, 5, 6, 7, 8 } };
    unsigned char na[AUTH_NONCE] = { 9 }, nc[AUTH_NONCE] = { 7 };
    unsigned char buf[1 + RDV_HELLO_LEN];
    buf[0] = 0;
    rdv_challenge_encode(buf + 1, na);
    add(buf, 1 + RDV_CHALLENGE_LEN);
    buf[0] = 1;
    rdv_hello_encode(buf + 1, &key, na, nc);
    add(buf, 1 + RDV_HELLO_LEN);
    buf[0] = 2;
    rdv_verdict_encode(buf + 1, &key, RDV_VERDICT_ACCEPT, nc, na);
    add(buf, 1 + RDV_VERDICT_LEN);

    static const char *const sites[] = { "stuttgart", "berlin" };
    static const char *const hosts[] = { "h1", "h2" };
    static const uint32_t rank_host[] = { 0, 1, 1 };
    rdv_buf_t b = { 0 };
    rdv_put_u32(&b, RDV_VERSION);
    rdv_put_str(&b, "job1");
    rdv_put_str(&b, "berlin");
    rdv_put_strs(&b, sites, 2);
    rdv_put_str(&b, "streams=4 compression=auto");
    rdv_put_u32(&b, 3);
    rdv_put_strs(&b, hosts, 2);
    rdv_put_u32s(&b, rank_host, 3);
    rdv_put_str(&b, "10.0.2.1:7000");
    add_body(add, 4, &b);

    /* the same JOIN as a frame, and a second frame behind it */
    rdv_buf_t f = { 0 };
    rdv_mac_ctx_t m = { .key = key, .dir = RDV_FROM_PART };
    rdv_begin(&f, RDV_JOIN);
    rdv_put_raw(&f, b.p, b.len);
    rdv_end(&f, &m);
    rdv_begin(&f, RDV_ABORT);
    rdv_put_str(&f, "called off");
    rdv_end(&f, &m);
    add_body(add, 3, &f);

    b.len = 0;
    rdv_put_u32(&b, 4);
    rdv_put_u32(&b, 2);
    rdv_put_str(&b, "stuttgart");
    rdv_put_u32(&b, 0);
    rdv_put_u32(&b, 1);
    rdv_put_strs(&b, hosts, 1);
    rdv_put_u32s(&b, rank_host, 1);
    rdv_put_str(&b, "10.0.1.1:7000");
    rdv_put_str(&b, "berlin");
    rdv_put_u32(&b, 1);
    rdv_put_u32(&b, 3);
    rdv_put_strs(&b, hosts, 2);
    rdv_put_u32s(&b, rank_host, 3);
    rdv_put_str(&b, "");
    add_body(add, 5, &b);

    b.len = 0;
    rdv_put_str(&b, "site berlin did not join within 30 s");
    add_body(add, 6, &b);
    b.len = 0;
    rdv_put_u32(&b, 1234);
    rdv_put_strs(&b, sites, 2);
    add_body(add, 7, &b);

    b.len = 0;   /* NUMBERS, RANKS, GW_OK */
    rdv_put_str(&b, "kvs_12_34.s1");
    rdv_put_u32(&b, 3);
    rdv_put_str(&b, "0*2,1*1");
    add_body(add, 8, &b);
    b.len = 0;
    rdv_put_str(&b, "kvs_12_34.s1");
    rdv_put_u32(&b, 8);
    rdv_put_u32(&b, 3);
    rdv_put_str(&b, "0*2,1*1");
    rdv_put_u32(&b, 0);
    rdv_put_u32(&b, 2);
    rdv_put_str(&b, "");
    add_body(add, 9, &b);
    b.len = 0;
    rdv_put_u32(&b, 8);
    rdv_put_u32(&b, 1);
    rdv_put_str(&b, "no room");
    add_body(add, 10, &b);
    b.len = 0;
    static const char *const fields[] = { "kvs_1_2.s1", "metampi.ready", "" };
    rdv_put_u32(&b, 1);
    rdv_put_u32(&b, RDV_RELAY_KINDS + 2);
    rdv_put_u32(&b, 7);
    rdv_put_strs(&b, fields, 3);
    add_body(add, 11, &b);
    rdv_buf_free(&b);
    rdv_buf_free(&f);
}
