#include "net/handshake.h"

#include "net/bytes.h"

#include <string.h>

size_t net_hs_hello_len(const net_hs_profile_t *p)
{
    return NET_HS_MAGIC + 4 * (size_t)p->hello_words + AUTH_NONCE + AUTH_MAC;
}

size_t net_hs_answer_len(const net_hs_profile_t *p)
{
    return NET_HS_MAGIC + 4 * (size_t)p->answer_words + AUTH_MAC;
}

void net_hs_challenge(const net_hs_profile_t *p, unsigned char out[NET_HS_CHALLENGE_LEN],
                      const unsigned char na[AUTH_NONCE])
{
    memcpy(out, p->challenge, NET_HS_MAGIC);
    memcpy(out + NET_HS_MAGIC, na, AUTH_NONCE);
}

int net_hs_challenge_parse(const net_hs_profile_t *p,
                           const unsigned char in[NET_HS_CHALLENGE_LEN],
                           unsigned char na[AUTH_NONCE])
{
    if (memcmp(in, p->challenge, NET_HS_MAGIC) != 0)
        return -1;
    memcpy(na, in + NET_HS_MAGIC, AUTH_NONCE);
    return 0;
}

/* magic | words, returning where the rest goes. */
static unsigned char *put_head(unsigned char *out, const char magic[NET_HS_MAGIC],
                               const uint32_t *words, int n)
{
    memcpy(out, magic, NET_HS_MAGIC);
    out += NET_HS_MAGIC;
    for (int i = 0; i < n; i++, out += 4)
        net_put32(out, words[i]);
    return out;
}

static const unsigned char *get_head(const unsigned char *in, const char magic[NET_HS_MAGIC],
                                     uint32_t *words, int n)
{
    if (memcmp(in, magic, NET_HS_MAGIC) != 0)
        return NULL;
    in += NET_HS_MAGIC;
    for (int i = 0; i < n; i++, in += 4)
        words[i] = net_get32(in);
    return in;
}

void net_hs_hello(const net_hs_profile_t *p, unsigned char *out, const auth_key_t *k,
                  const uint32_t *words, const unsigned char na[AUTH_NONCE],
                  const unsigned char nc[AUTH_NONCE], uint64_t identity)
{
    unsigned char *w = put_head(out, p->hello, words, p->hello_words);
    memcpy(w, nc, AUTH_NONCE);
    auth_mac(k, p->hello_label, na, nc, identity, w + AUTH_NONCE);
}

int net_hs_hello_parse(const net_hs_profile_t *p, const unsigned char *in, uint32_t *words,
                       unsigned char nc[AUTH_NONCE])
{
    const unsigned char *r = get_head(in, p->hello, words, p->hello_words);
    if (!r)
        return -1;
    memcpy(nc, r, AUTH_NONCE);
    return 0;
}

int net_hs_hello_proves(const net_hs_profile_t *p, const unsigned char *in,
                        const auth_key_t *k, const unsigned char na[AUTH_NONCE],
                        uint64_t identity)
{
    const unsigned char *nc = in + NET_HS_MAGIC + 4 * (size_t)p->hello_words;
    return auth_check(k, p->hello_label, na, nc, identity, nc + AUTH_NONCE);
}

void net_hs_answer(const net_hs_profile_t *p, unsigned char *out, const auth_key_t *k,
                   const uint32_t *words, const unsigned char nc[AUTH_NONCE],
                   const unsigned char na[AUTH_NONCE], uint64_t identity)
{
    unsigned char *w = put_head(out, p->answer, words, p->answer_words);
    if (k)
        auth_mac(k, p->answer_label, nc, na, identity, w);
    else
        memset(w, 0, AUTH_MAC);
}

int net_hs_answer_parse(const net_hs_profile_t *p, const unsigned char *in, uint32_t *words)
{
    return get_head(in, p->answer, words, p->answer_words) ? 0 : -1;
}

int net_hs_answer_proves(const net_hs_profile_t *p, const unsigned char *in,
                         const auth_key_t *k, const unsigned char nc[AUTH_NONCE],
                         const unsigned char na[AUTH_NONCE], uint64_t identity)
{
    const unsigned char *mac = in + NET_HS_MAGIC + 4 * (size_t)p->answer_words;
    return auth_check(k, p->answer_label, nc, na, identity, mac);
}
