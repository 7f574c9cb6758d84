#include "transport/tcp/wire.h"

#include "net/handshake.h"

/* The TCP transport's kind of connection (net/handshake.h): words rank, size / verdict, rank. */
static const net_hs_profile_t PROFILE = {
    .challenge = "MMPItcp1", .hello = "MMPIhelo", .answer = "MMPIwelc",
    .hello_words = 2, .answer_words = 2, .hello_label = "tcp-c", .answer_label = "tcp-a",
};

_Static_assert((int)TCP_CHALLENGE_LEN == (int)NET_HS_CHALLENGE_LEN, "the handshake's challenge");
_Static_assert((int)TCP_HELLO_LEN == NET_HS_MAGIC + 2 * 4 + AUTH_NONCE + AUTH_MAC, "2 words");
_Static_assert((int)TCP_WELCOME_LEN == NET_HS_MAGIC + 2 * 4 + AUTH_MAC, "2 words");

void tcp_challenge_encode(unsigned char out[TCP_CHALLENGE_LEN],
                          const unsigned char nonce[AUTH_NONCE])
{
    net_hs_challenge(&PROFILE, out, nonce);
}

const char *tcp_challenge_parse(const unsigned char in[TCP_CHALLENGE_LEN],
                                unsigned char nonce[AUTH_NONCE])
{
    return net_hs_challenge_parse(&PROFILE, in, nonce) ? "not a metampi rank (bad challenge)"
                                                       : NULL;
}

static uint64_t hello_identity(uint32_t rank, uint32_t size)
{
    return (uint64_t)rank | (uint64_t)size << 32;
}

void tcp_hello_encode(unsigned char out[TCP_HELLO_LEN], const auth_key_t *k, uint32_t rank,
                      uint32_t size, const unsigned char na[AUTH_NONCE],
                      const unsigned char nc[AUTH_NONCE])
{
    const uint32_t w[2] = { rank, size };
    net_hs_hello(&PROFILE, out, k, w, na, nc, hello_identity(rank, size));
}

const char *tcp_hello_parse(const unsigned char in[TCP_HELLO_LEN], const auth_key_t *k,
                            const unsigned char na[AUTH_NONCE], uint32_t size, uint32_t self,
                            tcp_hello_t *h)
{
    uint32_t w[2];
    if (net_hs_hello_parse(&PROFILE, in, w, h->nonce) != 0)
        return "not a metampi hello";
    h->rank = w[0];
    h->size = w[1];
    if (!net_hs_hello_proves(&PROFILE, in, k, na, hello_identity(h->rank, h->size)))
        return "wrong job key";
    /* below the MAC check, these can only be a peer of another size of this job: a bug */
    if (size && h->size != size)
        return "hello from a job of another size";
    if ((size && h->rank >= size) || h->rank == self)
        return "hello names an impossible rank";
    return NULL;
}

static uint64_t welcome_identity(uint32_t rank, uint32_t verdict)
{
    return (uint64_t)rank | (uint64_t)verdict << 32;
}

void tcp_welcome_encode(unsigned char out[TCP_WELCOME_LEN], const auth_key_t *k,
                        uint32_t verdict, uint32_t rank, const unsigned char nc[AUTH_NONCE],
                        const unsigned char na[AUTH_NONCE])
{
    const uint32_t w[2] = { verdict, rank };
    net_hs_answer(&PROFILE, out, k, w, nc, na, welcome_identity(rank, verdict));
}

const char *tcp_welcome_parse(const unsigned char in[TCP_WELCOME_LEN], const auth_key_t *k,
                              const unsigned char nc[AUTH_NONCE],
                              const unsigned char na[AUTH_NONCE], uint32_t expect,
                              tcp_welcome_t *w)
{
    uint32_t v[2];
    if (net_hs_answer_parse(&PROFILE, in, v) != 0)
        return "not a metampi welcome";
    w->verdict = v[0];
    w->rank = v[1];
    if (!net_hs_answer_proves(&PROFILE, in, k, nc, na, welcome_identity(w->rank, w->verdict)))
        return "the peer does not know the job key";
    if (w->rank != expect)
        return "another rank answered at the peer's address";
    if (w->verdict != TCP_VERDICT_ACCEPT && w->verdict != TCP_VERDICT_DUPLICATE)
        return "unknown verdict";
    return NULL;
}
