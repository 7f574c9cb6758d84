#include "net/auth.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>

int auth_key_generate(auth_key_t *k)
{
    return RAND_bytes(k->b, AUTH_KEY) == 1 ? 0 : -1;
}

int auth_nonce(unsigned char nonce[AUTH_NONCE])
{
    return RAND_bytes(nonce, AUTH_NONCE) == 1 ? 0 : -1;
}

void auth_key_to_hex(const auth_key_t *k, char hex[AUTH_KEY_HEX + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < AUTH_KEY; i++) {
        hex[2 * i] = digits[k->b[i] >> 4];
        hex[2 * i + 1] = digits[k->b[i] & 15];
    }
    hex[AUTH_KEY_HEX] = '\0';
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int auth_key_from_hex(const char *hex, auth_key_t *k)
{
    if (!hex || strlen(hex) != AUTH_KEY_HEX)
        return -1;
    for (int i = 0; i < AUTH_KEY; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        k->b[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

void auth_mac(const auth_key_t *k, const char *label, const unsigned char first[AUTH_NONCE],
              const unsigned char second[AUTH_NONCE], uint64_t identity,
              unsigned char mac[AUTH_MAC])
{
    size_t ll = strlen(label);
    unsigned char msg[64 + 2 * AUTH_NONCE + 8];
    if (ll > 64)
        ll = 64;
    memcpy(msg, label, ll);
    memcpy(msg + ll, first, AUTH_NONCE);
    memcpy(msg + ll + AUTH_NONCE, second, AUTH_NONCE);
    for (int i = 0; i < 8; i++)
        msg[ll + 2 * AUTH_NONCE + i] = (unsigned char)(identity >> (8 * i));
    unsigned int len = AUTH_MAC;
    if (!HMAC(EVP_sha256(), k->b, AUTH_KEY, msg, ll + 2 * AUTH_NONCE + 8, mac, &len))
        memset(mac, 0, AUTH_MAC); /* never matches a real MAC: the peer is refused */
}

int auth_check(const auth_key_t *k, const char *label, const unsigned char first[AUTH_NONCE],
               const unsigned char second[AUTH_NONCE], uint64_t identity,
               const unsigned char mac[AUTH_MAC])
{
    unsigned char want[AUTH_MAC];
    auth_mac(k, label, first, second, identity, want);
    return CRYPTO_memcmp(want, mac, AUTH_MAC) == 0;
}

/* The HKDF info of each purpose: fixed forever (changing one changes every derived key). */
static const char *purpose_label(auth_purpose_t p)
{
    switch (p) {
    case AUTH_RANKS:
        return "metampi v1 ranks";
    case AUTH_RANK_TCP:
        return "metampi v1 rank-rank tcp";
    case AUTH_RANK_GATEWAY:
        return "metampi v1 rank-gateway";
    case AUTH_GATEWAY_LINK:
        return "metampi v1 gateway-gateway";
    case AUTH_RENDEZVOUS:
        return "metampi v1 rendezvous";
    }
    return NULL;
}

int auth_derive(const auth_key_t *from, auth_purpose_t purpose, auth_key_t *out)
{
    const char *label = purpose_label(purpose);
    EVP_KDF *kdf = label ? EVP_KDF_fetch(NULL, OSSL_KDF_NAME_HKDF, NULL) : NULL;
    EVP_KDF_CTX *ctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    EVP_KDF_free(kdf);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)from->b, AUTH_KEY),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)label,
                                          label ? strlen(label) : 0),
        OSSL_PARAM_construct_end(),
    };
    int ok = ctx && EVP_KDF_derive(ctx, out->b, AUTH_KEY, params) == 1;
    EVP_KDF_CTX_free(ctx);
    if (!ok)
        memset(out->b, 0, AUTH_KEY);
    return ok ? 0 : -1;
}

void auth_key_wipe(auth_key_t *k)
{
    OPENSSL_cleanse(k->b, AUTH_KEY);
}

int auth_key_take_env(const char *name, auth_key_t *k)
{
    char *v = getenv(name);
    if (!v)
        return 0;
    int rc = auth_key_from_hex(v, k) == 0 ? 1 : -1;
    OPENSSL_cleanse(v, strlen(v));
    unsetenv(name);
    return rc;
}
