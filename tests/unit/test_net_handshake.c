/* net/handshake.c, the one authenticated handshake, and its three owners' profiles (the TCP
 * transport, the gateways' ranks and WAN streams, the rendezvous):
 *   - every profile's messages are byte for byte what the wire formats say (built here by
 *     hand, as the Python attackers in tests/tcp and tests/gateway build them);
 *   - a proof holds only under its own key purpose and its own label: every HELLO and every
 *     ANSWER is refused under each other purpose's key, and a message of one kind of
 *     connection is refused by every other kind's parser;
 *   - any single byte changed in a HELLO or an ANSWER (magic, words, nonce, proof) is refused;
 *   - an ANSWER without a key (a refusal) proves nothing. */
#include "net/auth.h"
#include "net/bytes.h"
#include "net/handshake.h"
#include "rdv_wire.h"
#include "net/gw_wire.h"
#include "transport/tcp/wire.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"

/* HMAC-SHA256(key, label || first || second || identity LE), straight from libcrypto. */
static void ref_mac(const auth_key_t *k, const char *label, const unsigned char *first,
                    const unsigned char *second, uint64_t id, unsigned char out[AUTH_MAC])
{
    unsigned char msg[64 + 2 * AUTH_NONCE + 8];
    size_t n = strlen(label);
    memcpy(msg, label, n);
    memcpy(msg + n, first, AUTH_NONCE);
    memcpy(msg + n + AUTH_NONCE, second, AUTH_NONCE);
    for (int i = 0; i < 8; i++)
        msg[n + 2 * AUTH_NONCE + i] = (unsigned char)(id >> (8 * i));
    unsigned int len = AUTH_MAC;
    HMAC(EVP_sha256(), k->b, AUTH_KEY, msg, n + 2 * AUTH_NONCE + 8, out, &len);
}

/* magic | words (LE) | [nonce] | mac */
static size_t ref_msg(unsigned char *out, const char *magic, const uint32_t *w, int nw,
                      const unsigned char *nonce, const unsigned char mac[AUTH_MAC])
{
    size_t n = 0;
    memcpy(out, magic, 8);
    n += 8;
    for (int i = 0; i < nw; i++, n += 4)
        net_put32(out + n, w[i]);
    if (nonce) {
        memcpy(out + n, nonce, AUTH_NONCE);
        n += AUTH_NONCE;
    }
    memcpy(out + n, mac, AUTH_MAC);
    return n + AUTH_MAC;
}

/* The wire formats, built by hand. */
static void test_wire_bytes(void)
{
    auth_key_t k;
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE], mac[AUTH_MAC];
    unsigned char want[NET_HS_MSG_MAX], got[NET_HS_MSG_MAX];
    EXPECT(auth_key_generate(&k) == 0 && auth_nonce(na) == 0 && auth_nonce(nc) == 0);

    tcp_challenge_encode(got, na);
    EXPECT(memcmp(got, "MMPItcp1", 8) == 0 && memcmp(got + 8, na, AUTH_NONCE) == 0);
    gw_challenge_encode(got, na);
    EXPECT(memcmp(got, "MMPItcp1", 8) == 0 && memcmp(got + 8, na, AUTH_NONCE) == 0);
    rdv_challenge_encode(got, na);
    EXPECT(memcmp(got, "MMPIrdv1", 8) == 0 && memcmp(got + 8, na, AUTH_NONCE) == 0);

    /* TCP: HELLO rank 3, size 8; WELCOME DUPLICATE from rank 5 */
    ref_mac(&k, "tcp-c", na, nc, 3 | (uint64_t)8 << 32, mac);
    size_t n = ref_msg(want, "MMPIhelo", (const uint32_t[]){ 3, 8 }, 2, nc, mac);
    EXPECT(n == TCP_HELLO_LEN);
    tcp_hello_encode(got, &k, 3, 8, na, nc);
    EXPECT(memcmp(got, want, n) == 0);
    ref_mac(&k, "tcp-a", nc, na, 5 | (uint64_t)TCP_VERDICT_DUPLICATE << 32, mac);
    n = ref_msg(want, "MMPIwelc", (const uint32_t[]){ TCP_VERDICT_DUPLICATE, 5 }, 2, NULL, mac);
    EXPECT(n == TCP_WELCOME_LEN);
    tcp_welcome_encode(got, &k, TCP_VERDICT_DUPLICATE, 5, nc, na);
    EXPECT(memcmp(got, want, n) == 0);

    /* gateways: a rank's HELLO (rank 1 of 4), a WAN stream's, the WELCOME of site 2 */
    ref_mac(&k, "gw-rank", na, nc, 1 | (uint64_t)4 << 32, mac);
    n = ref_msg(want, "MMPIgwhl", (const uint32_t[]){ GW_ROLE_RANK, 1, 4 }, 3, nc, mac);
    EXPECT(n == GW_HELLO_LEN);
    gw_hello_encode(got, &k, GW_ROLE_RANK, 1, 4, na, nc);
    EXPECT(memcmp(got, want, n) == 0);
    uint32_t a = 0 | 3 << 16, b = 1 | 2 << 16;
    ref_mac(&k, "gw-link", na, nc, a | (uint64_t)b << 32, mac);
    n = ref_msg(want, "MMPIgwhl", (const uint32_t[]){ GW_ROLE_LINK, a, b }, 3, nc, mac);
    gw_hello_encode(got, &k, GW_ROLE_LINK, a, b, na, nc);
    EXPECT(memcmp(got, want, n) == 0);
    ref_mac(&k, "gw-acc", nc, na, 2, mac);
    n = ref_msg(want, "MMPIgwwl", (const uint32_t[]){ 0, 2 }, 2, NULL, mac);
    EXPECT(n == GW_WELCOME_LEN);
    gw_welcome_encode(got, &k, 2, nc, na);
    EXPECT(memcmp(got, want, n) == 0);

    /* rendezvous: HELLO without words, VERDICT ACCEPT proven, BAD_KEY with zeros */
    ref_mac(&k, "rdv-c", na, nc, 0, mac);
    n = ref_msg(want, "MMPIrdvh", NULL, 0, nc, mac);
    EXPECT(n == RDV_HELLO_LEN);
    rdv_hello_encode(got, &k, na, nc);
    EXPECT(memcmp(got, want, n) == 0);
    ref_mac(&k, "rdv-a", nc, na, RDV_VERDICT_ACCEPT, mac);
    n = ref_msg(want, "MMPIrdvv", (const uint32_t[]){ RDV_VERDICT_ACCEPT }, 1, NULL, mac);
    EXPECT(n == RDV_VERDICT_LEN);
    rdv_verdict_encode(got, &k, RDV_VERDICT_ACCEPT, nc, na);
    EXPECT(memcmp(got, want, n) == 0);
    memset(mac, 0, sizeof mac);
    n = ref_msg(want, "MMPIrdvv", (const uint32_t[]){ RDV_VERDICT_BAD_KEY }, 1, NULL, mac);
    rdv_verdict_encode(got, &k, RDV_VERDICT_BAD_KEY, nc, na);
    EXPECT(memcmp(got, want, n) == 0);
}

/* Every answer, under every key purpose: only its own purpose's key proves it. (test_auth
 * does the same for every HELLO.) */
static void test_answers_per_purpose(void)
{
    auth_key_t j, r, tcp, rank_gw, link, rdv;
    EXPECT(auth_key_generate(&j) == 0);
    EXPECT(auth_derive(&j, AUTH_RANKS, &r) == 0);
    EXPECT(auth_derive(&r, AUTH_RANK_TCP, &tcp) == 0);
    EXPECT(auth_derive(&r, AUTH_RANK_GATEWAY, &rank_gw) == 0);
    EXPECT(auth_derive(&j, AUTH_GATEWAY_LINK, &link) == 0);
    EXPECT(auth_derive(&j, AUTH_RENDEZVOUS, &rdv) == 0);
    const auth_key_t *keys[] = { &j, &r, &tcp, &rank_gw, &link, &rdv };
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE], m[NET_HS_MSG_MAX];
    EXPECT(auth_nonce(na) == 0 && auth_nonce(nc) == 0);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const auth_key_t *k = keys[i];
        tcp_welcome_t w;
        tcp_welcome_encode(m, k, TCP_VERDICT_ACCEPT, 2, nc, na);
        EXPECT((tcp_welcome_parse(m, &tcp, nc, na, 2, &w) == NULL) == (k == &tcp));
        /* a gateway answers each role with that role's key */
        gw_welcome_encode(m, k, 1, nc, na);
        EXPECT((gw_welcome_parse(m, &rank_gw, nc, na, 1) == NULL) == (k == &rank_gw));
        EXPECT((gw_welcome_parse(m, &link, nc, na, 1) == NULL) == (k == &link));
        rdv_verdict_encode(m, k, RDV_VERDICT_ACCEPT, nc, na);
        EXPECT((rdv_verdict_parse(m, &rdv, nc, na) == NULL) == (k == &rdv));
    }
}

/* One kind's messages are refused by every other kind's parser, even under one key; the
 * nonces of a proof cannot be swapped (a HELLO sent back as an answer proves nothing). */
static void test_kinds_apart(void)
{
    auth_key_t k;
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE], m[NET_HS_MSG_MAX], got[AUTH_NONCE];
    EXPECT(auth_key_generate(&k) == 0 && auth_nonce(na) == 0 && auth_nonce(nc) == 0);
    const gw_keys_t both = { k, k };
    tcp_hello_t th;
    gw_hello_t gh;
    tcp_welcome_t tw;

    tcp_hello_encode(m, &k, 1, 4, na, nc);
    EXPECT(tcp_hello_parse(m, &k, na, 4, 0, &th) == NULL);
    EXPECT(gw_hello_parse(m, &both, na, &gh) != NULL);
    EXPECT(rdv_hello_parse(m, &k, na, got) != NULL);

    gw_hello_encode(m, &k, GW_ROLE_RANK, 1, 4, na, nc);
    EXPECT(gw_hello_parse(m, &both, na, &gh) == NULL);
    EXPECT(tcp_hello_parse(m, &k, na, 4, 0, &th) != NULL);
    /* the role word picks the label: a rank's proof does not open a WAN stream */
    net_put32(m + 8, GW_ROLE_LINK);
    EXPECT(gw_hello_parse(m, &both, na, &gh) != NULL);
    net_put32(m + 8, 7);
    EXPECT(gw_hello_parse(m, &both, na, &gh) != NULL);

    rdv_hello_encode(m, &k, na, nc);
    EXPECT(rdv_hello_parse(m, &k, na, got) == NULL && memcmp(got, nc, AUTH_NONCE) == 0);
    EXPECT(tcp_hello_parse(m, &k, na, 4, 0, &th) != NULL);

    tcp_welcome_encode(m, &k, TCP_VERDICT_ACCEPT, 1, nc, na);
    EXPECT(tcp_welcome_parse(m, &k, nc, na, 1, &tw) == NULL);
    EXPECT(tcp_welcome_parse(m, &k, na, nc, 1, &tw) != NULL); /* nonces swapped */
    EXPECT(gw_welcome_parse(m, &k, nc, na, 1) != NULL);
    EXPECT(rdv_verdict_parse(m, &k, nc, na) != NULL);
    gw_welcome_encode(m, &k, 1, nc, na);
    EXPECT(tcp_welcome_parse(m, &k, nc, na, 1, &tw) != NULL);

    /* challenges: the rendezvous' is its own */
    tcp_challenge_encode(m, na);
    EXPECT(gw_challenge_parse(m, got) == NULL && memcmp(got, na, AUTH_NONCE) == 0);
    EXPECT(rdv_challenge_parse(m, got) != NULL);
    rdv_challenge_encode(m, na);
    EXPECT(tcp_challenge_parse(m, got) != NULL && gw_challenge_parse(m, got) != NULL);
}

/* What an owner packs into a proof's identity: here all of the words. */
static uint64_t ident(const uint32_t *w, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++)
        h = (h ^ w[i]) * 1099511628211ull;
    return h;
}

/* Parses and checks a HELLO / an ANSWER as an owner does: 1 when it is taken. */
static int hello_ok(const net_hs_profile_t *p, const unsigned char *m, const auth_key_t *k,
                    const unsigned char *na)
{
    uint32_t w[NET_HS_WORDS_MAX];
    unsigned char nc[AUTH_NONCE];
    return net_hs_hello_parse(p, m, w, nc) == 0 &&
           net_hs_hello_proves(p, m, k, na, ident(w, p->hello_words));
}

static int answer_ok(const net_hs_profile_t *p, const unsigned char *m, const auth_key_t *k,
                     const unsigned char *nc, const unsigned char *na)
{
    uint32_t w[NET_HS_WORDS_MAX];
    return net_hs_answer_parse(p, m, w) == 0 &&
           net_hs_answer_proves(p, m, k, nc, na, ident(w, p->answer_words));
}

/* The codec over profiles of every shape: round trips, and every single byte changed is
 * refused; a keyless answer proves nothing. */
static void test_codec(void)
{
    auth_key_t k;
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE], m[NET_HS_MSG_MAX], got_nc[AUTH_NONCE];
    EXPECT(auth_key_generate(&k) == 0 && auth_nonce(na) == 0 && auth_nonce(nc) == 0);
    for (int hw = 0; hw <= NET_HS_WORDS_MAX; hw++)
        for (int aw = 0; aw <= NET_HS_WORDS_MAX; aw++) {
            const net_hs_profile_t p = { .challenge = "CHALLNGE", .hello = "HELLOxyz",
                                         .answer = "ANSWERxy", .hello_words = hw,
                                         .answer_words = aw, .hello_label = "test-c",
                                         .answer_label = "test-a" };
            const uint32_t words[NET_HS_WORDS_MAX] = { 0x01020304, 5, 0xffffffff, 42 };
            uint32_t back[NET_HS_WORDS_MAX];
            size_t hl = net_hs_hello_len(&p), al = net_hs_answer_len(&p);
            EXPECT(hl <= NET_HS_MSG_MAX && al <= NET_HS_MSG_MAX);
            net_hs_hello(&p, m, &k, words, na, nc, ident(words, hw));
            EXPECT(net_hs_hello_parse(&p, m, back, got_nc) == 0);
            EXPECT(memcmp(back, words, 4 * (size_t)hw) == 0);
            EXPECT(memcmp(got_nc, nc, AUTH_NONCE) == 0);
            EXPECT(hello_ok(&p, m, &k, na));
            EXPECT(!net_hs_hello_proves(&p, m, &k, na, ident(words, hw) + 1));
            EXPECT(!hello_ok(&p, m, &k, nc));
            for (size_t i = 0; i < hl; i++) {
                m[i] ^= 0x20;
                EXPECT(!hello_ok(&p, m, &k, na));
                m[i] ^= 0x20;
            }
            net_hs_answer(&p, m, &k, words, nc, na, ident(words, aw));
            EXPECT(net_hs_answer_parse(&p, m, back) == 0);
            EXPECT(memcmp(back, words, 4 * (size_t)aw) == 0);
            EXPECT(answer_ok(&p, m, &k, nc, na));
            EXPECT(!answer_ok(&p, m, &k, na, nc));
            for (size_t i = 0; i < al; i++) {
                m[i] ^= 0x01;
                EXPECT(!answer_ok(&p, m, &k, nc, na));
                m[i] ^= 0x01;
            }
            /* the same key and nonces under the other label */
            const net_hs_profile_t q = { .challenge = "CHALLNGE", .hello = "HELLOxyz",
                                         .answer = "ANSWERxy", .hello_words = hw,
                                         .answer_words = aw, .hello_label = "test-a",
                                         .answer_label = "test-c" };
            EXPECT(!answer_ok(&q, m, &k, nc, na));
            net_hs_hello(&p, m, &k, words, na, nc, ident(words, hw));
            EXPECT(!hello_ok(&q, m, &k, na));
            net_hs_answer(&p, m, NULL, words, nc, na, ident(words, aw));
            EXPECT(net_hs_answer_parse(&p, m, back) == 0);
            EXPECT(!answer_ok(&p, m, &k, nc, na));
            net_hs_challenge(&p, m, na);
            EXPECT(net_hs_challenge_parse(&p, m, got_nc) == 0 &&
                   memcmp(got_nc, na, AUTH_NONCE) == 0);
            m[3] ^= 1;
            EXPECT(net_hs_challenge_parse(&p, m, got_nc) != 0);
        }
}

int main(void)
{
    test_wire_bytes();
    test_answers_per_purpose();
    test_kinds_apart();
    test_codec();
    return expect_done("net_handshake");
}
