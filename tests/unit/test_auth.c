/* runtime/auth.c: key hex round trip and rejection of malformed keys; MACs that verify only
 * with the same key, label, nonces and identity; one known answer computed by openssl(1). */
#include "runtime/auth.h"

#include <stdio.h>
#include <string.h>

static int failures;
#define EXPECT(cond)                                                                           \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                    \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

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
    return failures ? 1 : 0;
}
