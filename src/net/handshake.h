/*
 * The one authenticated handshake that opens every connection between metampi processes
 * (rank <-> rank over TCP, rank <-> its site's gateway, gateway <-> gateway, a federated
 * start's part <-> the rendezvous server). Its argument is auth.h's; its messages are these,
 * every field little-endian, fixed sizes for each kind of connection (a *profile*):
 *
 *   acceptor  -> connector  CHALLENGE  magic[8], Na[16]
 *   connector -> acceptor   HELLO      magic[8], u32 words[hello_words], Nc[16],
 *                                      mac = auth_mac(key, hello label, Na, Nc, identity)
 *   acceptor  -> connector  ANSWER     magic[8], u32 words[answer_words],
 *                                      mac = auth_mac(key, answer label, Nc, Na, identity)
 *
 * A profile is one kind of connection: its three magics, how many words its HELLO and its
 * ANSWER carry, and the labels of their proofs. The words (a rank and the job's size, a
 * role, a verdict...) and the 64-bit identity each proof covers are the profile owner's: it
 * packs them (its wire module) and judges them (whether a rank may connect, which verdict).
 * Keys (auth.h: one per purpose) and labels (one per message of a profile) differ between
 * kinds of connection, so no proof is worth anything for another kind or another direction.
 *
 * The acceptor reads exactly one HELLO (net_hs_hello_len bytes) and nothing else before it has
 * verified it; nonces are fresh per connection (auth_nonce), so no message can be replayed.
 * Every parser is a pure function over the bytes received (tests/fuzz drives them through
 * the owners' parsers).
 */
#ifndef METAMPI_NET_HANDSHAKE_H
#define METAMPI_NET_HANDSHAKE_H

#include "net/auth.h"

#include <stddef.h>
#include <stdint.h>

enum {
    NET_HS_MAGIC = 8,
    NET_HS_WORDS_MAX = 4,
    NET_HS_CHALLENGE_LEN = NET_HS_MAGIC + AUTH_NONCE,
    /* the longest HELLO or ANSWER of any profile */
    NET_HS_MSG_MAX = NET_HS_MAGIC + 4 * NET_HS_WORDS_MAX + AUTH_NONCE + AUTH_MAC,
};

typedef struct net_hs_profile {
    char challenge[NET_HS_MAGIC], hello[NET_HS_MAGIC], answer[NET_HS_MAGIC];  /* magics */
    int hello_words, answer_words;          /* 0..NET_HS_WORDS_MAX */
    const char *hello_label, *answer_label; /* what each proof is for (auth_mac's label) */
} net_hs_profile_t;

size_t net_hs_hello_len(const net_hs_profile_t *p);
size_t net_hs_answer_len(const net_hs_profile_t *p);

/* CHALLENGE with the acceptor's nonce na. */
void net_hs_challenge(const net_hs_profile_t *p, unsigned char out[NET_HS_CHALLENGE_LEN],
                      const unsigned char na[AUTH_NONCE]);
/* 0 when in is the profile's CHALLENGE (na copied out), -1 when it is not. */
int net_hs_challenge_parse(const net_hs_profile_t *p,
                           const unsigned char in[NET_HS_CHALLENGE_LEN],
                           unsigned char na[AUTH_NONCE]);

/* HELLO with the connector's words and nonce nc, answering the challenge nonce na. */
void net_hs_hello(const net_hs_profile_t *p, unsigned char *out, const auth_key_t *k,
                  const uint32_t *words, const unsigned char na[AUTH_NONCE],
                  const unsigned char nc[AUTH_NONCE], uint64_t identity);
/* 0 when in starts with the profile's HELLO magic (its words and nonce Nc copied out), -1
 * when it does not. Says nothing about its proof: net_hs_hello_proves. */
int net_hs_hello_parse(const net_hs_profile_t *p, const unsigned char *in, uint32_t *words,
                       unsigned char nc[AUTH_NONCE]);
/* 1 when the HELLO in proves key k for our challenge nonce na and this identity (compared in
 * constant time), else 0. */
int net_hs_hello_proves(const net_hs_profile_t *p, const unsigned char *in,
                        const auth_key_t *k, const unsigned char na[AUTH_NONCE],
                        uint64_t identity);

/* ANSWER with the acceptor's words, proving k for the connector's nonce nc and our na; k
 * NULL: no proof (zeros), for a refusal that tells an honest connector with another key why
 * it is dropped and proves nothing. */
void net_hs_answer(const net_hs_profile_t *p, unsigned char *out, const auth_key_t *k,
                   const uint32_t *words, const unsigned char nc[AUTH_NONCE],
                   const unsigned char na[AUTH_NONCE], uint64_t identity);
/* As for HELLO: the magic and the words, then the proof. */
int net_hs_answer_parse(const net_hs_profile_t *p, const unsigned char *in, uint32_t *words);
int net_hs_answer_proves(const net_hs_profile_t *p, const unsigned char *in,
                         const auth_key_t *k, const unsigned char nc[AUTH_NONCE],
                         const unsigned char na[AUTH_NONCE], uint64_t identity);

#endif
