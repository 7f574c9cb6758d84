/*
 * What travels on a TCP connection between two ranks: first the handshake, then frames.
 * Every field is little-endian on the wire; every parser here is a pure function over the
 * bytes received (tests/fuzz drives them with arbitrary input).
 *
 * Handshake (net/auth.h has the argument): the acceptor speaks first.
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
 *
 * Frames: an 8-byte header, then len bytes: the frame the layer above sent, whose first
 * head_len bytes are its head (the sender's first iovec; 0 when the frame is not to be placed,
 * see transport.h "Placement"). Kind BYE (len 0) says the sender closes the connection on
 * purpose (MPI_Finalize): an end of stream after it is no failure.
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
    TCP_FRAME_HDR = 8,
    TCP_HEAD_MAX = 255,
};

enum { TCP_VERDICT_ACCEPT = 0, TCP_VERDICT_DUPLICATE = 1 };
enum { TCP_KIND_FRAME = 0, TCP_KIND_BYE = 1 };

typedef struct tcp_hello {
    uint32_t rank, size;
    unsigned char nonce[AUTH_NONCE];
    unsigned char mac[AUTH_MAC];
} tcp_hello_t;

typedef struct tcp_welcome {
    uint32_t verdict, rank;
    unsigned char mac[AUTH_MAC];
} tcp_welcome_t;

typedef struct tcp_frame_hdr {
    uint32_t len;       /* bytes after the header */
    uint8_t head_len;   /* the first head_len of them are the frame's head */
    uint8_t kind;       /* TCP_KIND_* */
    int32_t src;        /* set by parsers: the frame's source rank when its header names
                         * one (a connection that carries many ranks' frames), else -1 */
} tcp_frame_hdr_t;

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
 * `size` ranks other than `self` (fills *h), else what is wrong with it. */
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

void tcp_frame_hdr_encode(unsigned char out[TCP_FRAME_HDR], const tcp_frame_hdr_t *h);
/* NULL when in is a valid frame header for frames of at most max_len bytes (fills *h), else
 * what is wrong with it. */
const char *tcp_frame_hdr_parse(const unsigned char in[TCP_FRAME_HDR], size_t max_len,
                                tcp_frame_hdr_t *h);

#endif
