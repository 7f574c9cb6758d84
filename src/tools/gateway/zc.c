#include "zc.h"

#include <time.h>
#include <zstd.h>

enum { LEVEL = 1 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int gw_z_init(gw_z_t *z, int mode)
{
    *z = (gw_z_t){ .mode = mode, .backoff = GW_Z_BACKOFF_MIN };
    z->cctx = ZSTD_createCCtx();
    z->dctx = ZSTD_createDCtx();
    return z->cctx && z->dctx ? 0 : -1;
}

void gw_z_free(gw_z_t *z)
{
    ZSTD_freeCCtx(z->cctx);
    ZSTD_freeDCtx(z->dctx);
    z->cctx = z->dctx = NULL;
}

size_t gw_z_bound(size_t n)
{
    return ZSTD_compressBound(n);
}

int gw_z_pays(double r, double c, double b)
{
    if (r > GW_Z_RATIO_MAX)
        return 0;
    return b <= 0 || c * (1 - r) > b;
}

size_t gw_z_maybe(gw_z_t *z, const void *src, size_t n, void *dst, size_t cap,
                  double link_rate)
{
    if (z->mode == GW_Z_OFF || n < GW_Z_MIN)
        return 0;
    if (z->mode == GW_Z_AUTO && z->skip) {
        z->skip = z->skip > n ? z->skip - n : 0;
        return 0;
    }
    double t0 = now_s();
    size_t c = ZSTD_compressCCtx(z->cctx, dst, cap, src, n, LEVEL);
    double dt = now_s() - t0;
    z->tried++;
    if (ZSTD_isError(c))
        return 0;
    z->last_ratio = (double)c / (double)n;
    z->last_speed = dt > 0 ? (double)n / dt : 1e12;
    if (z->mode == GW_Z_AUTO) {
        if (gw_z_pays(z->last_ratio, z->last_speed, link_rate)) {
            z->backoff = GW_Z_BACKOFF_MIN;
        } else {
            z->skip = z->backoff;
            if (z->backoff < GW_Z_BACKOFF_MAX)
                z->backoff *= 2;
        }
    }
    if (c >= n)
        return 0; /* the work is done, but it did not shrink: send the original */
    z->used++;
    z->raw_bytes += n;
    z->wire_bytes += c;
    return c;
}

int gw_z_decompress(gw_z_t *z, const void *src, size_t n, void *dst, size_t raw)
{
    unsigned long long want = ZSTD_getFrameContentSize(src, n);
    if (want != raw)
        return -1;
    size_t got = ZSTD_decompressDCtx(z->dctx, dst, raw, src, n);
    return ZSTD_isError(got) || got != raw ? -1 : 0;
}
