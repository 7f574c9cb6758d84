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
 * Invariant: a key never travels over a socket; it reaches a rank through its environment
 * (METAMPI_JOB_KEY, 64 hex digits), set by the process that started it, and reaches a per-host
 * helper on its standard input.
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
