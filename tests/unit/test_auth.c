/* net/auth.c: key hex round trip and rejection of malformed keys; MACs that verify only
 * with the same key, label, nonces and identity; one known answer computed by openssl(1).
 * Keys per purpose (issue 15, item 10): derived keys differ per purpose and from the job key,
 * match openssl(1)'s HKDF, and a handshake proof made with one purpose's key is refused
 * where another purpose is proven (the TCP transport, a gateway's ranks and WAN streams, the
 * rendezvous); a key taken from the environment leaves no trace there. */
#include "net/auth.h"
#include "rdv_wire.h"
#include "net/gw_wire.h"
#include "transport/tcp/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

extern char **environ;

static void hex_of(const auth_key_t *k, char out[AUTH_KEY_HEX + 1])
{
    auth_key_to_hex(k, out);
}

/* Derived keys: distinct per purpose, none the job key, the same every time; known answers
 * independent of our code:
 *   openssl kdf -keylen 32 -kdfopt digest:SHA256 -kdfopt hexkey:000102...1f \
 *     -kdfopt info:"metampi v1 ranks" HKDF */
static void test_derive(void)
{
    auth_key_t j, d[5], again;
    for (int i = 0; i < AUTH_KEY; i++)
        j.b[i] = (unsigned char)i;
    for (int p = AUTH_RANKS; p <= AUTH_RENDEZVOUS; p++) {
        EXPECT(auth_derive(&j, (auth_purpose_t)p, &d[p]) == 0);
        EXPECT(memcmp(d[p].b, j.b, AUTH_KEY) != 0);
        for (int q = AUTH_RANKS; q < p; q++)
            EXPECT(memcmp(d[p].b, d[q].b, AUTH_KEY) != 0);
        EXPECT(auth_derive(&j, (auth_purpose_t)p, &again) == 0 &&
               memcmp(again.b, d[p].b, AUTH_KEY) == 0);
    }
    char h[AUTH_KEY_HEX + 1];
    hex_of(&d[AUTH_RANKS], h);
    EXPECT(strcmp(h, "9d4252f216e43ebf6e5f72e11370471992cc90d89ccc5a3b2d5b3b2eabfea9d6") == 0);
    hex_of(&d[AUTH_GATEWAY_LINK], h);
    EXPECT(strcmp(h, "5f02dade2364e049d94c4a8d61a7e140474959e475b9aa00e22731ebc59ec228") == 0);
    EXPECT(auth_derive(&j, (auth_purpose_t)99, &again) == -1);
}

/* What each process holds proves only its own purpose: a rank holds R and derives its two
 * keys; a gateway holds J; a hello made with any other key is refused. */
static void test_purposes(void)
{
    auth_key_t j, r, tcp, rank_gw, link, rdv;
    EXPECT(auth_key_generate(&j) == 0);
    EXPECT(auth_derive(&j, AUTH_RANKS, &r) == 0);
    EXPECT(auth_derive(&r, AUTH_RANK_TCP, &tcp) == 0);
    EXPECT(auth_derive(&r, AUTH_RANK_GATEWAY, &rank_gw) == 0);
    EXPECT(auth_derive(&j, AUTH_GATEWAY_LINK, &link) == 0);
    EXPECT(auth_derive(&j, AUTH_RENDEZVOUS, &rdv) == 0);
    const gw_keys_t gateway = { rank_gw, link };
    const auth_key_t *wrong[] = { &j, &r, &tcp, &rank_gw, &link, &rdv };
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE];
    EXPECT(auth_nonce(na) == 0 && auth_nonce(nc) == 0);
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        const auth_key_t *k = wrong[i];
        unsigned char hello[GW_HELLO_LEN], thello[TCP_HELLO_LEN], rhello[RDV_HELLO_LEN];
        gw_hello_t gh;
        tcp_hello_t th;
        unsigned char got_nc[AUTH_NONCE];
        /* a gateway takes a rank's hello only under the rank-gateway key */
        gw_hello_encode(hello, k, GW_ROLE_RANK, 1, 4, na, nc);
        EXPECT((gw_hello_parse(hello, &gateway, na, &gh) == NULL) == (k == &rank_gw));
        /* a WAN stream's only under the gateway-gateway key: a rank cannot open one */
        gw_hello_encode(hello, k, GW_ROLE_LINK, 0 | 2 << 16, 0 | 1 << 16, na, nc);
        EXPECT((gw_hello_parse(hello, &gateway, na, &gh) == NULL) == (k == &link));
        /* a rank's TCP peer only under the TCP key */
        tcp_hello_encode(thello, k, 1, 4, na, nc);
        EXPECT((tcp_hello_parse(thello, &tcp, na, 4, 0, &th) == NULL) == (k == &tcp));
        /* the rendezvous only under the rendezvous key */
        rdv_hello_encode(rhello, k, na, nc);
        EXPECT((rdv_hello_parse(rhello, &rdv, na, got_nc) == NULL) == (k == &rdv));
    }
}

/* A key taken from the environment: read, the variable gone, its value overwritten where it
 * was (what /proc/<pid>/environ shows), the same after a second take. */
static void test_take_env(void)
{
    auth_key_t k, want;
    char hex[AUTH_KEY_HEX + 1];
    EXPECT(auth_key_generate(&want) == 0);
    auth_key_to_hex(&want, hex);
    EXPECT(setenv("METAMPI_TEST_KEY", hex, 1) == 0);
    char *where = getenv("METAMPI_TEST_KEY");
    EXPECT(auth_key_take_env("METAMPI_TEST_KEY", &k) == 1);
    EXPECT(memcmp(k.b, want.b, AUTH_KEY) == 0);
    EXPECT(getenv("METAMPI_TEST_KEY") == NULL);
    for (int i = 0; i < AUTH_KEY_HEX; i++)
        EXPECT(where[i] == 0);
    for (char **e = environ; *e; e++)
        EXPECT(strstr(*e, hex) == NULL);
    EXPECT(auth_key_take_env("METAMPI_TEST_KEY", &k) == 0);
    EXPECT(setenv("METAMPI_TEST_KEY", "not a key", 1) == 0);
    EXPECT(auth_key_take_env("METAMPI_TEST_KEY", &k) == -1);
    EXPECT(getenv("METAMPI_TEST_KEY") == NULL);
}

int main(void)
{
    auth_key_t a, b, c;
    char hex[AUTH_KEY_HEX + 1];
    EXPECT(auth_key_generate(&a) == 0);
    EXPECT(auth_key_generate(&b) == 0);
    EXPECT(memcmp(a.b, b.b, AUTH_KEY) != 0);
    auth_key_to_hex(&a, hex);
    EXPECT(strlen(hex) == AUTH_KEY_HEX);
    EXPECT(auth_key_from_hex(hex, &c) == 0 && memcmp(a.b, c.b, AUTH_KEY) == 0);
    hex[5] = 'g';
    EXPECT(auth_key_from_hex(hex, &c) != 0);
    hex[AUTH_KEY_HEX - 1] = '\0';
    EXPECT(auth_key_from_hex(hex, &c) != 0);
    EXPECT(auth_key_from_hex("", &c) != 0 && auth_key_from_hex(NULL, &c) != 0);

    unsigned char n1[AUTH_NONCE], n2[AUTH_NONCE], mac[AUTH_MAC];
    EXPECT(auth_nonce(n1) == 0 && auth_nonce(n2) == 0 && memcmp(n1, n2, AUTH_NONCE) != 0);
    auth_mac(&a, "c", n1, n2, 7, mac);
    EXPECT(auth_check(&a, "c", n1, n2, 7, mac));
    EXPECT(!auth_check(&b, "c", n1, n2, 7, mac));  /* another key */
    EXPECT(!auth_check(&a, "a", n1, n2, 7, mac));  /* another role */
    EXPECT(!auth_check(&a, "c", n2, n1, 7, mac));  /* nonces swapped */
    EXPECT(!auth_check(&a, "c", n1, n2, 8, mac));  /* another identity */
    mac[AUTH_MAC - 1] ^= 1;
    EXPECT(!auth_check(&a, "c", n1, n2, 7, mac));

    /* Known answer, independent of our code: the key "Jefe" zero-padded to 32 bytes is the
     * HMAC key "Jefe" (RFC 2104), and the message is label || nonces || identity (LE):
     *   printf 'L0123456789abcdeffedcba9876543210\x08\x07\x06\x05\x04\x03\x02\x01' |
     *     openssl dgst -sha256 -mac HMAC -macopt key:Jefe */
    auth_key_t jefe;
    memset(&jefe, 0, sizeof jefe);
    memcpy(jefe.b, "Jefe", 4);
    unsigned char f[AUTH_NONCE], s[AUTH_NONCE];
    memcpy(f, "0123456789abcdef", AUTH_NONCE);
    memcpy(s, "fedcba9876543210", AUTH_NONCE);
    auth_mac(&jefe, "L", f, s, 0x0102030405060708ull, mac);
    static const char expect_hex[] =
        "a8b41549aeb9dd1692a972c681cd270479e4994d97c3a76c801bf9cbecbd1ab2";
    char got[2 * AUTH_MAC + 1];
    for (int i = 0; i < AUTH_MAC; i++)
        snprintf(got + 2 * i, 3, "%02x", mac[i]);
    EXPECT(strcmp(got, expect_hex) == 0);
    if (failures)
        fprintf(stderr, "mac %s\n", got);
    test_derive();
    test_purposes();
    test_take_env();
    return expect_done("auth");
}
