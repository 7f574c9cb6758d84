/*
 * The rendezvous protocol of a federated start (docs/metacomputer.md, "Federated start"):
 * what travels between metampi-rendezvous (the server, S) and the mpirun of each site (a
 * part, P) over one TCP connection. Every field is little-endian; every parser here is a pure
 * function over the bytes received (tests/fuzz drives them with arbitrary input).
 *
 * Handshake (net/handshake.h, with the rendezvous' magics and labels; fixed sizes, the
 * server speaks first); key is the rendezvous key, derived from the job key (auth.h:
 * AUTH_RENDEZVOUS), which no rank or gateway holds:
 *   S -> P  CHALLENGE  magic "MMPIrdv1", Na[16]                                     24 bytes
 *   P -> S  HELLO      magic "MMPIrdvh", Nc[16], auth_mac(key, "rdv-c", Na, Nc, 0)   56 bytes
 *   S -> P  VERDICT    magic "MMPIrdvv", verdict u32,
 *                      auth_mac(key, "rdv-a", Nc, Na, verdict) (zeros unless ACCEPT) 44 bytes
 * The server reads exactly one HELLO and nothing else before it has verified it; a HELLO
 * that is not one or does not prove the key gets VERDICT BAD_KEY (unauthenticated: it only
 * tells an honest part with the wrong key file why it is dropped) and the connection closes.
 *
 * TLS (net/secure.h): after VERDICT ACCEPT the part starts TLS 1.3 (the server is the TLS
 * server), keyed by PSK = net_secure_psk(key, "rdv", Na, Nc); every frame below travels
 * inside its records, both ways, so the job's layout (hosts, gateway addresses) is not read
 * on the path, and a record altered in transit fails to open: the reader drops the
 * connection naming the integrity failure (the part's run ends with that line).
 *
 * Frames (after ACCEPT, both ways):
 *   u32 len | u8 type | body | mac[32]      len = 1 + body + 32, at most RDV_MAX_FRAME
 *   mac = HMAC-SHA256(key, dir || Na || Nc || u32 seq || u8 type || body), dir = "rdv-p" for
 *   the part's frames and "rdv-s" for the server's, seq counting each direction's frames
 *   from 0. So a frame cannot be altered, replayed, reordered or moved to another connection
 *   by someone on the path who lacks the key (the rendezvous crosses sites' networks).
 * Body fields: u32; str = u32 n | n bytes, the last NUL and no other; strs = u32 count |
 * count str; u32s = u32 count | count u32. A body must be consumed exactly.
 *
 * Conversation:
 *   P: JOIN once. S: REFUSED (and closes) or WAITING, then LAYOUT or ABORT (and closes).
 *   JOIN     u32 version (RDV_VERSION), str job, str site, strs sites (the description's
 *            site names in order), str wan (the description's [wan] settings, such as
 *            "streams=4 compression=auto congestion=auto encrypt=on": the gateways of all sites
 *            must agree), u32
 *            nranks, strs hosts (this part's hosts), u32s
 *            rank_host (nranks entries: the host of each of its ranks, in rank order), str
 *            gateway ("IPv4:port" or "[IPv6]:port", net/addr.h's text form, where the site's gateway listens for other sites; "" none)
 *   REFUSED  str why: this part cannot join (unknown site, site already there, other job,
 *            other sites or [wan] settings, too many ranks); the others are not disturbed
 *   WAITING  u32 ms_left (until the server gives up on the missing sites), strs missing
 *   LAYOUT   u32 size (world ranks), u32 nsites, then per site in description order:
 *            str name, u32 first (world rank of its first rank), u32 nranks, strs hosts,
 *            u32s rank_host, str gateway — every site's JOIN as it came, placed in the world
 *   ABORT    str why: the job will not start (a site did not arrive in time, the server was
 *            stopped); the text names the missing sites
 * The server sends the same LAYOUT bytes (apart from the MAC) to every part. Each part keeps
 * its connection while its ranks run, for spawning (docs/dynproc.md, "Federated jobs"); the
 * server serves them until every part has closed it, then exits:
 *   NUMBERS  P: str kvsname (the new part's, 1..RDV_KVSNAME_MAX of [A-Za-z0-9_.-]), u32 count
 *            (1..RDV_RANKS_MAX), str sites (the site of each new rank, run-length coded as
 *            the gateways' --rank-sites: digits, '*' and ',', at most RDV_SITES_TEXT_MAX)
 *   RANKS    S: str kvsname, u32 base, u32 count, str sites, u32 site (the asking part's
 *            site), u32 parts (the GW_OKs the asker will get: one per part that got this
 *            RANKS), str why: the answer to a NUMBERS, in the server's one order, to every
 *            part; why "" gives the numbers base..base+count-1 (never given again), else
 *            (to the asker alone, base 0, parts 0) the reason there are none
 *   GW_OK    P: u32 base (of a RANKS it got), u32 site (its own), str why ("" or printable):
 *            its gateway knows those ranks, or why not; S: the same, to the part that asked
 *            for those numbers
 */
#ifndef RDV_WIRE_H
#define RDV_WIRE_H

#include "net/auth.h"

#include <stddef.h>
#include <stdint.h>

#define RDV_VERSION 1
#define RDV_MAX_FRAME (1u << 20)
#define RDV_NAME_MAX 64         /* site names and job IDs: 1..64 of [A-Za-z0-9_.-] */
#define RDV_HOST_MAX 255        /* host names: 1..255 printable characters, no blank */
#define RDV_ADDR_MAX 53         /* "[ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255]:65535" */
#define RDV_SITES_MAX 256
#define RDV_RANKS_MAX 4096      /* world ranks (= CTL_MAX_RANKS) */
#define RDV_HOSTS_MAX 4096      /* hosts of one site */
#define RDV_WAN_MAX 128         /* the [wan] settings text */
#define RDV_KVSNAME_MAX 200     /* a spawned part's kvsname */
#define RDV_SITES_TEXT_MAX 65536  /* a spawned part's run-length coded sites */
#define RDV_ID_MAX (1u << 30)   /* job-wide numbers stay below (= CTL_MAX_RANK_ID) */

enum {
    RDV_CHALLENGE_LEN = 8 + AUTH_NONCE,
    RDV_HELLO_LEN = 8 + AUTH_NONCE + AUTH_MAC,
    RDV_VERDICT_LEN = 8 + 4 + AUTH_MAC,
    RDV_FRAME_HDR = 5,          /* u32 len, u8 type */
};

enum { RDV_VERDICT_ACCEPT = 0, RDV_VERDICT_BAD_KEY = 1 };

enum rdv_type {
    RDV_JOIN = 1,
    RDV_REFUSED = 2,
    RDV_WAITING = 3,
    RDV_LAYOUT = 4,
    RDV_ABORT = 5,
    RDV_NUMBERS = 6,
    RDV_RANKS = 7,
    RDV_GW_OK = 8,
    RDV_RELAY = 9,
};

/* RELAY kinds the server makes; the parts' own kinds start at RDV_RELAY_KINDS. */
enum { RDV_RELAY_UNREACHED = 0, RDV_RELAY_GONE = 1, RDV_RELAY_KINDS = 16 };
#define RDV_RELAY_FIELDS_MAX 65536

enum rdv_dir { RDV_FROM_PART = 0, RDV_FROM_SERVER = 1 };

/* A validated list inside a frame body. */
typedef struct rdv_strs {
    const unsigned char *p;
    uint32_t n;
} rdv_strs_t;

typedef struct rdv_u32s {
    const unsigned char *p;
    uint32_t n;
} rdv_u32s_t;

typedef struct rdv_join {
    uint32_t version;
    const char *job, *site;
    rdv_strs_t sites;       /* valid, distinct names, 1..RDV_SITES_MAX */
    const char *wan;        /* the [wan] settings: "" or printable, at most RDV_WAN_MAX */
    uint32_t nranks;        /* 1..RDV_RANKS_MAX */
    rdv_strs_t hosts;       /* valid host names, 1..RDV_HOSTS_MAX */
    rdv_u32s_t rank_host;   /* nranks entries, each < hosts.n */
    const char *gateway;    /* "" or a valid IPv4:port / [IPv6]:port (rdv_valid_addr) */
} rdv_join_t;

typedef struct rdv_site {
    const char *name;
    uint32_t first, nranks;
    rdv_strs_t hosts;
    rdv_u32s_t rank_host;
    const char *gateway;
} rdv_site_t;

typedef struct rdv_layout {
    uint32_t size, nsites;  /* size = the sum of nranks, <= RDV_RANKS_MAX */
    rdv_site_t site[RDV_SITES_MAX];  /* distinct names; first = ranks of the sites before */
} rdv_layout_t;

/* ---- validation of names -------------------------------------------------------------- */

/* The [wan] settings as JOIN carries them: "streams=N compression=C congestion=T encrypt=E
 * outage=S"
 * (N "default" when the description leaves it to the gateways: streams 0; E on or off: a
 * gateway with TLS cannot talk to one without). */
void rdv_wan_text(int streams, const char *compression, const char *congestion, int encrypt,
                  int outage, char *buf, size_t cap);

/* Nonzero when s is a valid site name / job ID, host name, gateway address (net/addr.h's
 * text form exactly, as net_addr_format writes it: "a.b.c.d:PORT" or "[v6]:PORT"). */
int rdv_valid_name(const char *s);
int rdv_valid_host(const char *s);
int rdv_valid_addr(const char *s);

/* ---- handshake ------------------------------------------------------------------------- */

void rdv_challenge_encode(unsigned char out[RDV_CHALLENGE_LEN],
                          const unsigned char na[AUTH_NONCE]);
/* NULL when in is a CHALLENGE (nonce copied out), else what is wrong with it. */
const char *rdv_challenge_parse(const unsigned char in[RDV_CHALLENGE_LEN],
                                unsigned char na[AUTH_NONCE]);

void rdv_hello_encode(unsigned char out[RDV_HELLO_LEN], const auth_key_t *k,
                      const unsigned char na[AUTH_NONCE], const unsigned char nc[AUTH_NONCE]);
/* NULL when in is a HELLO proving the key for challenge nonce na (Nc copied out). */
const char *rdv_hello_parse(const unsigned char in[RDV_HELLO_LEN], const auth_key_t *k,
                            const unsigned char na[AUTH_NONCE], unsigned char nc[AUTH_NONCE]);

/* verdict ACCEPT carries the server's proof of the key; BAD_KEY carries zeros. */
void rdv_verdict_encode(unsigned char out[RDV_VERDICT_LEN], const auth_key_t *k,
                        uint32_t verdict, const unsigned char nc[AUTH_NONCE],
                        const unsigned char na[AUTH_NONCE]);
/* NULL when in is a VERDICT ACCEPT proving the key for our nonce nc and the server's na;
 * else what is wrong, worded to follow "the server" (BAD_KEY: "refused this job key ..."). */
const char *rdv_verdict_parse(const unsigned char in[RDV_VERDICT_LEN], const auth_key_t *k,
                              const unsigned char nc[AUTH_NONCE],
                              const unsigned char na[AUTH_NONCE]);

/* ---- frames ---------------------------------------------------------------------------- */

/* One direction of an authenticated connection: the key, both nonces and the next seq. */
typedef struct rdv_mac_ctx {
    auth_key_t key;
    unsigned char na[AUTH_NONCE], nc[AUTH_NONCE];
    uint32_t seq;
    enum rdv_dir dir;
} rdv_mac_ctx_t;

typedef struct rdv_buf {
    unsigned char *p;
    size_t len, cap;
    size_t start;           /* of the frame being built */
} rdv_buf_t;

/* Raw bytes outside a frame (the handshake messages). */
void rdv_put_raw(rdv_buf_t *b, const void *data, size_t len);
void rdv_begin(rdv_buf_t *b, uint8_t type);
void rdv_put_u32(rdv_buf_t *b, uint32_t v);
void rdv_put_str(rdv_buf_t *b, const char *s);
void rdv_put_strs(rdv_buf_t *b, const char *const *v, uint32_t n);
void rdv_put_u32s(rdv_buf_t *b, const uint32_t *v, uint32_t n);
/* Appends the MAC (advancing m->seq). 0, or -1 (frame dropped) when it exceeds
 * RDV_MAX_FRAME. */
int rdv_end(rdv_buf_t *b, rdv_mac_ctx_t *m);
void rdv_buf_free(rdv_buf_t *b);

enum { RDV_OK = 0, RDV_MORE = 1, RDV_BAD = -1 };

/* The frame at the start of buf[0..len): RDV_OK with its type, body and total size (bytes
 * to consume) once the MAC is verified against m (advancing m->seq); RDV_MORE when it is not
 * complete yet; RDV_BAD with a message (bad length, bad MAC). */
int rdv_frame_open(const unsigned char *buf, size_t len, rdv_mac_ctx_t *m, uint8_t *type,
                   const unsigned char **body, size_t *bodylen, size_t *used, char *err,
                   size_t errlen);

/* Body parsers: 0, or -1 with a message in err. Pointers point into body. */
int rdv_join_parse(const unsigned char *body, size_t len, rdv_join_t *j, char *err,
                   size_t errlen);
/* REFUSED and ABORT: a non-empty printable text. */
int rdv_text_parse(const unsigned char *body, size_t len, const char **text, char *err,
                   size_t errlen);
int rdv_waiting_parse(const unsigned char *body, size_t len, uint32_t *ms_left,
                      rdv_strs_t *missing, char *err, size_t errlen);
int rdv_layout_parse(const unsigned char *body, size_t len, rdv_layout_t *l, char *err,
                     size_t errlen);

/* The frames of a running job (spawning). Strings point into body. */
typedef struct rdv_ranks {
    const char *kvsname, *sites, *why;
    uint32_t base, count, site, parts;
} rdv_ranks_t;

/* NUMBERS: kvsname, count, sites (base, site, why unset). */
int rdv_numbers_parse(const unsigned char *body, size_t len, rdv_ranks_t *r, char *err,
                      size_t errlen);
/* RANKS: every field; why "" with base + count <= RDV_ID_MAX, or why printable. */
int rdv_ranks_parse(const unsigned char *body, size_t len, rdv_ranks_t *r, char *err,
                    size_t errlen);
/* GW_OK: base, site, why ("" or printable). */
int rdv_gw_ok_parse(const unsigned char *body, size_t len, uint32_t *base, uint32_t *site,
                    const char **why, char *err, size_t errlen);

/* RELAY: site, kind, id, fields (any strings). */
typedef struct rdv_relay {
    uint32_t site, kind, id;
    rdv_strs_t fields;
} rdv_relay_t;
int rdv_relay_parse(const unsigned char *body, size_t len, rdv_relay_t *m, char *err,
                    size_t errlen);

/* The next string of a validated list (call at most n times); the i-th u32. */
const char *rdv_strs_next(rdv_strs_t *s);
uint32_t rdv_u32s_at(const rdv_u32s_t *u, uint32_t i);

/* A printable name of a frame type ("LAYOUT", "type 99"). */
const char *rdv_type_name(uint8_t type, char *tmp, size_t cap);

#endif
