/*
 * Compression of WAN frames (zstd, Debian's libzstd): per frame, only for frames of at least
 * GW_Z_MIN bytes, and in `auto` mode only while it pays on the link.
 *
 * When it pays: a frame of n bytes takes n / B on a link of B bytes/s; compressed at C bytes/s
 * to ratio r it takes n / C + r n / B (the decompression is much faster and overlaps). So it
 * pays when C (1 - r) > B, and never when r is close to 1. `auto` measures every sample (r,
 * and C from the time ZSTD_compressCCtx took) and, when a sample does not pay, sends the next
 * `backoff` bytes uncompressed without trying; backoff doubles (1 MiB .. 64 MiB) while
 * samples keep failing and is reset by one that pays. B is the link's measured rate (the
 * streams' TCP delivery rates, gateway.c; 0: unknown, then only the ratio counts).
 */
#ifndef GATEWAY_ZC_H
#define GATEWAY_ZC_H

#include <stddef.h>
#include <stdint.h>

enum { GW_Z_AUTO = 0, GW_Z_ON = 1, GW_Z_OFF = 2 };
enum { GW_Z_MIN = 4096 };
#define GW_Z_RATIO_MAX 0.9         /* a sample must shrink the frame by 10 % at least */
#define GW_Z_BACKOFF_MIN (1u << 20)
#define GW_Z_BACKOFF_MAX (64u << 20)

typedef struct gw_z {
    int mode;
    size_t skip;                  /* auto: bytes still to send without trying */
    size_t backoff;
    double last_ratio, last_speed;/* of the last sample (speed in bytes/s) */
    void *cctx, *dctx;
    uint64_t tried, used;         /* frames compressed / sent compressed */
    uint64_t raw_bytes, wire_bytes;   /* of the frames sent compressed */
} gw_z_t;

/* 0, or -1 when zstd cannot be set up. */
int gw_z_init(gw_z_t *z, int mode);
void gw_z_free(gw_z_t *z);
/* The bound of a compressed frame of n bytes (the room dst needs). */
size_t gw_z_bound(size_t n);
/* Compresses src[0..n) into dst (cap bytes) when the mode and the decision say so and it
 * shrinks: returns the compressed size, or 0 to send the frame as it is. link_rate: the
 * link's bytes/s (0: unknown). */
size_t gw_z_maybe(gw_z_t *z, const void *src, size_t n, void *dst, size_t cap,
                  double link_rate);
/* Decompresses exactly raw bytes: 0, or -1 when src is not a zstd frame of that size. */
int gw_z_decompress(gw_z_t *z, const void *src, size_t n, void *dst, size_t raw);
/* The decision alone, for tests: whether a sample of ratio r at speed c (bytes/s) pays on a
 * link of rate b (0: unknown). */
int gw_z_pays(double r, double c, double b);

#endif
