#include "transport/tcp/wire.h"

#include <string.h>

static const char MAGIC_CHALLENGE[8] = "MMPItcp1", MAGIC_HELLO[8] = "MMPIhelo",
                  MAGIC_WELCOME[8] = "MMPIwelc";

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void tcp_challenge_encode(unsigned char out[TCP_CHALLENGE_LEN],
                          const unsigned char nonce[AUTH_NONCE])
{
    memcpy(out, MAGIC_CHALLENGE, 8);
    memcpy(out + 8, nonce, AUTH_NONCE);
}

const char *tcp_challenge_parse(const unsigned char in[TCP_CHALLENGE_LEN],
                                unsigned char nonce[AUTH_NONCE])
{
    if (memcmp(in, MAGIC_CHALLENGE, 8) != 0)
        return "not a metampi rank (bad challenge)";
    memcpy(nonce, in + 8, AUTH_NONCE);
    return NULL;
}

static uint64_t hello_identity(uint32_t rank, uint32_t size)
{
    return (uint64_t)rank | (uint64_t)size << 32;
}

void tcp_hello_encode(unsigned char out[TCP_HELLO_LEN], const auth_key_t *k, uint32_t rank,
                      uint32_t size, const unsigned char na[AUTH_NONCE],
                      const unsigned char nc[AUTH_NONCE])
{
    memcpy(out, MAGIC_HELLO, 8);
    put32(out + 8, rank);
    put32(out + 12, size);
    memcpy(out + 16, nc, AUTH_NONCE);
    auth_mac(k, "tcp-c", na, nc, hello_identity(rank, size), out + 16 + AUTH_NONCE);
}

const char *tcp_hello_parse(const unsigned char in[TCP_HELLO_LEN], const auth_key_t *k,
                            const unsigned char na[AUTH_NONCE], uint32_t size, uint32_t self,
                            tcp_hello_t *h)
{
    if (memcmp(in, MAGIC_HELLO, 8) != 0)
        return "not a metampi hello";
    h->rank = get32(in + 8);
    h->size = get32(in + 12);
    memcpy(h->nonce, in + 16, AUTH_NONCE);
    memcpy(h->mac, in + 16 + AUTH_NONCE, AUTH_MAC);
    if (!auth_check(k, "tcp-c", na, h->nonce, hello_identity(h->rank, h->size), h->mac))
        return "wrong job key";
    /* below the MAC check, these can only be a peer of another size of this job: a bug */
    if (h->size != size)
        return "hello from a job of another size";
    if (h->rank >= size || h->rank == self)
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
    memcpy(out, MAGIC_WELCOME, 8);
    put32(out + 8, verdict);
    put32(out + 12, rank);
    auth_mac(k, "tcp-a", nc, na, welcome_identity(rank, verdict), out + 16);
}

const char *tcp_welcome_parse(const unsigned char in[TCP_WELCOME_LEN], const auth_key_t *k,
                              const unsigned char nc[AUTH_NONCE],
                              const unsigned char na[AUTH_NONCE], uint32_t expect,
                              tcp_welcome_t *w)
{
    if (memcmp(in, MAGIC_WELCOME, 8) != 0)
        return "not a metampi welcome";
    w->verdict = get32(in + 8);
    w->rank = get32(in + 12);
    memcpy(w->mac, in + 16, AUTH_MAC);
    if (!auth_check(k, "tcp-a", nc, na, welcome_identity(w->rank, w->verdict), w->mac))
        return "the peer does not know the job key";
    if (w->rank != expect)
        return "another rank answered at the peer's address";
    if (w->verdict != TCP_VERDICT_ACCEPT && w->verdict != TCP_VERDICT_DUPLICATE)
        return "unknown verdict";
    return NULL;
}
