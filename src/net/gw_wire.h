/*
 * What travels to, from and between the site gateways (tools/gateway, metampi-gateway):
 * the handshake every gateway connection starts with, the frames between a rank and its
 * site's gateway, and the WAN frames between two gateways. Every field is little-endian;
 * every parser here is a pure function over the bytes received (tests/fuzz drives them).
 *
 * Handshake (net/handshake.h, with the gateways' magics, words and labels): the gateway
 * accepts and speaks first.
 *   gateway   -> connector  CHALLENGE  as the TCP transport's (tcp/wire.h): "MMPItcp1", Na
 *   connector -> gateway    HELLO      magic "MMPIgwhl", role u32, a u32, b u32, Nc[16],
 *                                      mac = auth_mac(key(role), label(role), Na, Nc,
 *                                                     a | b<<32)                     68 bytes
 *        role RANK ("gw-rank"): a = the rank, b = the job size
 *        role LINK ("gw-link"): a = the connecting gateway's site | sites << 16,
 *                               b = the stream's index | streams << 8 | generation << 16
 *                               (the link's connection count, mod 2^16: a new generation
 *                               replaces the streams of the last one: tools/gateway/link.h)
 *   gateway   -> connector  WELCOME    magic "MMPIgwwl", verdict u32 (0), site u32,
 *                                      mac = auth_mac(key(role), "gw-acc", Nc, Na,
 *                                                     site | verdict<<32)            48 bytes
 * key(RANK) is the rank-gateway key, derived from the ranks' key; key(LINK) the gateway-
 * gateway key, derived from the job key (auth.h): a rank cannot open a WAN stream, and no
 * proof of another kind of connection (the TCP transport's, the rendezvous') is worth
 * anything here; the labels differ as well ("tcp-c", "tcp-a"). The gateway reads exactly one
 * HELLO and nothing else before it has verified it.
 *
 * Rank <-> gateway frames (GW_FRAME_HDR bytes of header, then len bytes):
 *   u32 len | u8 head_len | u8 kind | u16 0 | u32 dst | u32 src
 * as the TCP transport's frames, plus the ranks: every frame of a rank to a rank at another
 * site goes to the rank's gateway, over the WAN, and from the remote gateway to dst, with
 * its header unchanged. Kind BYE (len 0, ranks 0) ends the connection on purpose.
 * Kind MULTI (rank -> gateway only; head_len 0, dst the first inner frame's, src the
 * sender): the body is FRAME-kind rank frames, headers and all, one after the other, each of
 * at most GW_MULTI_ITEM_MAX bytes, all from the sender to ranks of one other site, at most
 * GW_MULTI_MAX bytes in all. The gateway sends them on as one BATCH of their own, which the
 * other site's gateway splits as any batch: frames a rank sent as one group (the transport's
 * group_begin/group_end) cross the WAN as one frame.
 Kinds STOP and GO (gateway -> rank only; len 0, dst the rank told, src the rank it is
 * about): stop sending to rank src / send to it again. A gateway says STOP when the frames
 * for src that wait for its credit (below) pass a bound, so that a rank that stays outside
 * MPI holds up only the frames for itself (tools/gateway/link.h, "Flow control").
 *
 * WAN frames, on each of a link's TCP streams (GW_WAN_HDR bytes of header, then len):
 *   u32 len | u8 kind | u8 flags | u16 0 | u32 raw_len | u32 src | u64 seq
 *   BATCH  rank frames, header and all, one after the other (small frames coalesced);
 *   PIECE  the next bytes of rank src's current large frame (the first piece starts with
 *          the rank frame's header): a large frame is cut into pieces with consecutive
 *          sequence numbers, sent on several streams, put together again at the receiver;
 *   ACK    (no body) seq = the next BATCH or PIECE the sending gateway expects: it has every
 *          frame below it (a cumulative acknowledgement, which frees the other gateway's
 *          copies kept for resending); also the heartbeat of an idle stream;
 *   BYE    the sending gateway ends the link on purpose (no body, seq 0);
 *   CREDIT (seq 0, src 0, never compressed) u32 rank | u32 total entries: the receiving
 *          gateway has written `total` bytes (mod 2^32) of rank frames from this link to that
 *          rank of its site since the job began; the sender may send as much more to it as
 *          that total grew (link.h). A total, not a difference: a CREDIT lost with a broken
 *          stream is made good by the next one;
 *   RESUME (src 0, never compressed) the first frame on every stream, in both directions:
 *          seq = the next BATCH or PIECE the sender expects, body = GW_RESUME_LEN bytes: the
 *          sending gateway's instance (16 random bytes, drawn at its start), then the
 *          receiver's instance as the sender knows it (zeros before it does). A link that
 *          was broken and is opened again goes on only between the same two instances
 *          (tools/gateway/link.h,
 *          "Reconnection").
 * seq numbers the BATCH and PIECE frames of one direction of a link from 0, in the order the
 * sending gateway made them; the receiver forwards them in that order, whichever stream
 * brought them, and each is sent again after a reconnection until an ACK or RESUME covers it.
 * flags GW_WAN_Z: the body is zstd-compressed, raw_len its size when decompressed (else
 * raw_len == len).
 */
#ifndef METAMPI_GW_WIRE_H
#define METAMPI_GW_WIRE_H

#include "net/addr.h"
#include "net/auth.h"
#include "net/frame.h"

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

enum {
    GW_CHALLENGE_LEN = 8 + AUTH_NONCE,
    GW_HELLO_LEN = 8 + 4 + 4 + 4 + AUTH_NONCE + AUTH_MAC,
    GW_WELCOME_LEN = 8 + 4 + 4 + AUTH_MAC,
    GW_FRAME_HDR = 16,
    GW_WAN_HDR = 24,
    GW_SITES_MAX = 256,
    GW_STREAMS_MAX = 64,
    GW_RANKS_MAX = 1 << 20,
    GW_WAN_MAX = (4 << 20) + 4096,      /* the largest WAN frame body, and decompressed */
    GW_MULTI_ITEM_MAX = 64 << 10,       /* an inner frame of a MULTI, header included */
    GW_MULTI_MAX = 256 << 10,           /* a MULTI's body: one batch of the gateway's */
    GW_CREDIT_ENTRY = 8,                /* rank, bytes */
    GW_CREDIT_MAX = 8192 * GW_CREDIT_ENTRY, /* a CREDIT frame's body at most */
    GW_INSTANCE = 16,                   /* a gateway's instance (RESUME) */
    GW_RESUME_LEN = 2 * GW_INSTANCE,
};

enum { GW_ROLE_RANK = 1, GW_ROLE_LINK = 2 };
enum { GW_KIND_FRAME = NET_KIND_FRAME, GW_KIND_BYE = NET_KIND_BYE, GW_KIND_MULTI = 2,
       GW_KIND_STOP = 3, GW_KIND_GO = 4 };
enum { GW_WAN_BYE = NET_KIND_BYE, GW_WAN_BATCH = 2, GW_WAN_PIECE = 3, GW_WAN_ACK = 4,
       GW_WAN_CREDIT = 5, GW_WAN_RESUME = 6 };
enum { GW_WAN_Z = 1 };

typedef struct gw_hello {
    uint32_t role, a, b;
    unsigned char nonce[AUTH_NONCE];
} gw_hello_t;

typedef struct gw_welcome {
    uint32_t verdict, site;
} gw_welcome_t;

/* The keys a gateway proves: one per role of the connector. */
typedef struct gw_keys {
    auth_key_t rank;             /* auth.h: AUTH_RANK_GATEWAY */
    auth_key_t link;             /* AUTH_GATEWAY_LINK */
} gw_keys_t;

/* A rank frame's header. */
typedef struct gw_frame {
    uint32_t len;
    uint8_t head_len, kind;
    uint32_t dst, src;
} gw_frame_t;

typedef struct gw_wan {
    uint32_t len;
    uint8_t kind, flags;
    uint32_t raw_len, src;
    uint64_t seq;
} gw_wan_t;

/* A gateway's WAN address "IPv4:PORT" or "[IPv6]:PORT", numeric (net/addr.h; the launcher's
 * metampi.gw.<site> value, the gateway's --gateways entries): NULL, or what is wrong. */
const char *gw_addr_parse(const char *s, net_addr_t *a);

/* The gateway's CHALLENGE with its nonce na. */
void gw_challenge_encode(unsigned char out[GW_CHALLENGE_LEN],
                         const unsigned char na[AUTH_NONCE]);
/* NULL when in is a CHALLENGE (na copied out), else what is wrong with it. */
const char *gw_challenge_parse(const unsigned char in[GW_CHALLENGE_LEN],
                               unsigned char na[AUTH_NONCE]);

/* k: the key of the role (gw_keys_t). */
void gw_hello_encode(unsigned char out[GW_HELLO_LEN], const auth_key_t *k, uint32_t role,
                     uint32_t a, uint32_t b, const unsigned char na[AUTH_NONCE],
                     const unsigned char nc[AUTH_NONCE]);
/* NULL when in is a HELLO of a known role proving that role's key for challenge nonce na
 * (fills *h), else what is wrong with it. Whether a and b make sense is the caller's to
 * check. */
const char *gw_hello_parse(const unsigned char in[GW_HELLO_LEN], const gw_keys_t *k,
                           const unsigned char na[AUTH_NONCE], gw_hello_t *h);

void gw_welcome_encode(unsigned char out[GW_WELCOME_LEN], const auth_key_t *k, uint32_t site,
                       const unsigned char nc[AUTH_NONCE], const unsigned char na[AUTH_NONCE]);
/* NULL when in is a WELCOME from the gateway of site `expect` proving the key for our nonce nc
 * and the gateway's na, else what is wrong with it. */
const char *gw_welcome_parse(const unsigned char in[GW_WELCOME_LEN], const auth_key_t *k,
                             const unsigned char nc[AUTH_NONCE],
                             const unsigned char na[AUTH_NONCE], uint32_t expect);

void gw_frame_encode(unsigned char out[GW_FRAME_HDR], const gw_frame_t *f);
/* The kind of a rank frame whose header a parser has accepted. */
uint8_t gw_frame_kind(const unsigned char in[GW_FRAME_HDR]);
/* NULL when in is a valid rank frame header for frames of at most max_len bytes between
 * ranks below size (fills *f), else what is wrong with it. */
const char *gw_frame_parse(const unsigned char in[GW_FRAME_HDR], size_t max_len,
                           uint32_t size, gw_frame_t *f);
/* The rank's parser of what its gateway sends, as a frame reader's header parser (net/rx.h):
 * as gw_frame_parse, and STOP and GO too; ctx points to the job size (a uint32_t); h->src is
 * the frame's source rank (for STOP and GO, the rank they are about). */
const char *gw_frame_parse_rx(const unsigned char *in, size_t max_len, net_frame_hdr_t *h,
                              const void *ctx);
/* The gateway's parser of what its ranks send: as gw_frame_parse, and MULTI frames too. */
const char *gw_rank_frame_parse(const unsigned char in[GW_FRAME_HDR], size_t max_len,
                                uint32_t size, gw_frame_t *f);
const char *gw_rank_frame_parse_rx(const unsigned char *in, size_t max_len, net_frame_hdr_t *h,
                                   const void *ctx);
/* The first inner frame of a MULTI body p[0..left) from rank sender: NULL (fills *f: its bytes
 * are GW_FRAME_HDR + f->len) or what is wrong. Whether its destination is at the right site
 * is the gateway's to check. */
const char *gw_multi_next(const unsigned char *p, size_t left, uint32_t size, uint32_t sender,
                          gw_frame_t *f);
/* The first rank frame of a BATCH body p[0..left): NULL (fills *f: its bytes are
 * GW_FRAME_HDR + f->len) or what is wrong. A BATCH holds only whole FRAME-kind frames. */
const char *gw_batch_next(const unsigned char *p, size_t left, size_t max_len, uint32_t size,
                          gw_frame_t *f);

void gw_wan_encode(unsigned char out[GW_WAN_HDR], const gw_wan_t *w);
/* NULL when in is a valid WAN frame header of a link between sites carrying ranks below size
 * (fills *w), else what is wrong with it. */
const char *gw_wan_parse(const unsigned char in[GW_WAN_HDR], uint32_t size, gw_wan_t *w);
/* As a frame reader's header parser: ctx points to the job size; h->src is -1 (the stream
 * reading it is the frame's source). */
const char *gw_wan_parse_rx(const unsigned char *in, size_t max_len, net_frame_hdr_t *h,
                            const void *ctx);

#endif
