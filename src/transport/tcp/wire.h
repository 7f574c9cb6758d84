/*
 * What travels on a TCP connection between two ranks: first the handshake, then frames
 * (net/frame.h: the plain frame header; BYE in MPI_Finalize). Every field is little-endian
 * on the wire; every parser here is a pure function over the bytes received (tests/fuzz
 * drives them with arbitrary input).
 *
 * Handshake (net/handshake.h, with the TCP transport's magics, words and labels): the
 * acceptor speaks first.
 *   acceptor  -> connector  CHALLENGE  magic "MMPItcp1", Na[16]                      24 bytes
 *   connector -> acceptor   HELLO      magic "MMPIhelo", rank u32, size u32, Nc[16],
 *                                      mac = auth_mac(key, "tcp-c", Na, Nc, rank | size<<32)
 *                                                                                     64 bytes
 *   acceptor  -> connector  WELCOME    magic "MMPIwelc", verdict u32, rank u32,
 *                                      mac = auth_mac(key, "tcp-a", Nc, Na,
 *                                                     rank | verdict<<32)             48 bytes
 * The acceptor reads exactly one HELLO and nothing else before it has verified it. Verdict
 * ACCEPT: the connection carries frames from now on, both ways. Verdict DUPLICATE: both
 * ranks connected to each other at once and this connection loses (the one opened by the
 * lower rank wins); the connector closes it and waits for the acceptor's own connection.
 */
#ifndef METAMPI_TCP_WIRE_H
#define METAMPI_TCP_WIRE_H

#include "net/auth.h"

#include <stddef.h>
#include <stdint.h>

enum {
    TCP_CHALLENGE_LEN = 8 + AUTH_NONCE,
    TCP_HELLO_LEN = 8 + 4 + 4 + AUTH_NONCE + AUTH_MAC,
    TCP_WELCOME_LEN = 8 + 4 + 4 + AUTH_MAC,
};

enum { TCP_VERDICT_ACCEPT = 0, TCP_VERDICT_DUPLICATE = 1 };

typedef struct tcp_hello {
    uint32_t rank, size;
    unsigned char nonce[AUTH_NONCE];
} tcp_hello_t;

typedef struct tcp_welcome {
    uint32_t verdict, rank;
} tcp_welcome_t;

void tcp_challenge_encode(unsigned char out[TCP_CHALLENGE_LEN],
                          const unsigned char nonce[AUTH_NONCE]);
/* NULL when in is a CHALLENGE (its nonce copied out), else what is wrong with it. */
const char *tcp_challenge_parse(const unsigned char in[TCP_CHALLENGE_LEN],
                                unsigned char nonce[AUTH_NONCE]);

/* HELLO from rank/size with nonce Nc, answering challenge nonce Na. */
void tcp_hello_encode(unsigned char out[TCP_HELLO_LEN], const auth_key_t *k, uint32_t rank,
                      uint32_t size, const unsigned char na[AUTH_NONCE],
                      const unsigned char nc[AUTH_NONCE]);
/* NULL when in is a HELLO that proves the key for challenge nonce na from a rank of a job of
 * `size` ranks other than `self` (fills *h), else what is wrong with it. size 0: a job with
 * several parts, whose HELLOs name job-wide numbers (the caller maps them). */
const char *tcp_hello_parse(const unsigned char in[TCP_HELLO_LEN], const auth_key_t *k,
                            const unsigned char na[AUTH_NONCE], uint32_t size, uint32_t self,
                            tcp_hello_t *h);

void tcp_welcome_encode(unsigned char out[TCP_WELCOME_LEN], const auth_key_t *k,
                        uint32_t verdict, uint32_t rank, const unsigned char nc[AUTH_NONCE],
                        const unsigned char na[AUTH_NONCE]);
/* NULL when in is a WELCOME from rank `expect` proving the key for our nonce nc and the
 * acceptor's na (fills *w), else what is wrong with it. */
const char *tcp_welcome_parse(const unsigned char in[TCP_WELCOME_LEN], const auth_key_t *k,
                              const unsigned char nc[AUTH_NONCE],
                              const unsigned char na[AUTH_NONCE], uint32_t expect,
                              tcp_welcome_t *w);

#endif
