/*
 * Proof of a shared job key, for every TCP connection of a job (rank to rank, launcher to
 * per-host helper, gateways): HMAC-SHA256 over fresh nonces (OpenSSL libcrypto).
 *
 * The handshake each user builds from these pieces (the framing is the user's):
 *   1. acceptor -> connector:  its nonce Na (AUTH_NONCE bytes);
 *   2. connector -> acceptor:  its nonce Nc, its identity, auth_mac(key, "c", Na, Nc, identity);
 *      the acceptor reads exactly this fixed-size message — nothing else — and verifies it;
 *   3. acceptor -> connector:  auth_mac(key, "a", Nc, Na, identity): the acceptor knows the
 *      key too (mutual), bound to this connection's nonces, so neither side can be replayed.
 * Nonces come from the kernel's random source, so no two connections share them.
 *
 * Keys per purpose: every connection proves a key of its own purpose, derived with HKDF-SHA256
 * (RFC 5869, OpenSSL's EVP_KDF) from the job key, so that a key (or any proof made with it)
 * is worth nothing for another purpose, and each process holds only the keys its part needs:
 *
 *   job key J           mpirun, the per-host helpers, the gateways, the rendezvous key file
 *   |- ranks' key R     = derive(J, RANKS): the only key a rank gets (METAMPI_RANK_KEY)
 *   |  |- derive(R, RANK_TCP)      rank <-> rank, the TCP transport
 *   |  `- derive(R, RANK_GATEWAY)  rank <-> its site's gateway
 *   |- derive(J, GATEWAY_LINK)     gateway <-> gateway, the WAN streams
 *   `- derive(J, RENDEZVOUS)       the parts of a federated job <-> the rendezvous server
 *
 * Invariant: a key never travels over a socket; it reaches a process through its environment
 * (METAMPI_RANK_KEY for a rank, METAMPI_JOB_KEY for a gateway; 64 hex digits), set by the
 * process that started it — which takes it out of its environment as soon as it has read it
 * (auth_key_take_env), so that nothing the process starts inherits it — or on a per-host
 * helper's standard input, or from a key file.
 */
#ifndef METAMPI_AUTH_H
#define METAMPI_AUTH_H

#include <stddef.h>
#include <stdint.h>

enum { AUTH_KEY = 32, AUTH_NONCE = 16, AUTH_MAC = 32, AUTH_KEY_HEX = 2 * AUTH_KEY };

typedef struct auth_key {
    unsigned char b[AUTH_KEY];
} auth_key_t;

/* A fresh random key / nonce. 0, or -1 when the system has no randomness to give. */
int auth_key_generate(auth_key_t *k);
int auth_nonce(unsigned char nonce[AUTH_NONCE]);

/* The purposes of the keys derived from a job key (see above). */
typedef enum auth_purpose {
    AUTH_RANKS,          /* from J: the ranks' key */
    AUTH_RANK_TCP,       /* from R */
    AUTH_RANK_GATEWAY,   /* from R */
    AUTH_GATEWAY_LINK,   /* from J */
    AUTH_RENDEZVOUS,     /* from J */
} auth_purpose_t;

/* out = HKDF-SHA256(ikm = from, no salt, info = the purpose's label), AUTH_KEY bytes. 0, or
 * -1 when libcrypto fails (out is then zeros: it proves nothing). */
int auth_derive(const auth_key_t *from, auth_purpose_t purpose, auth_key_t *out);

/* Takes a key out of the environment variable `name`: reads it, overwrites the value in
 * place (the memory /proc/<pid>/environ shows, too) and removes the variable. 1 taken (*k),
 * 0 not set, -1 set but not AUTH_KEY_HEX hex digits (removed all the same). */
int auth_key_take_env(const char *name, auth_key_t *k);

/* Overwrites a key that is no longer needed (not optimised away). */
void auth_key_wipe(auth_key_t *k);

/* hex: AUTH_KEY_HEX characters plus a terminating NUL. */
void auth_key_to_hex(const auth_key_t *k, char hex[AUTH_KEY_HEX + 1]);
/* 0 when hex is exactly AUTH_KEY_HEX hex digits, -1 otherwise. */
int auth_key_from_hex(const char *hex, auth_key_t *k);

/* mac = HMAC-SHA256(key, label || first || second || identity (little-endian)). */
void auth_mac(const auth_key_t *k, const char *label, const unsigned char first[AUTH_NONCE],
              const unsigned char second[AUTH_NONCE], uint64_t identity,
              unsigned char mac[AUTH_MAC]);
/* 1 when mac is what auth_mac gives for these inputs (compared in constant time), else 0. */
int auth_check(const auth_key_t *k, const char *label, const unsigned char first[AUTH_NONCE],
               const unsigned char second[AUTH_NONCE], uint64_t identity,
               const unsigned char mac[AUTH_MAC]);

#endif
