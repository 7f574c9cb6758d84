/*
 * The launcher's control-channel frames (tools/launch/ctl.c): every frame type round-trips;
 * every proper prefix of a frame asks for more bytes; corrupted frames (each byte replaced
 * by several values, and random bytes) are either valid or rejected with a message, never
 * read beyond their buffer (run under ASan: the buffers are exact-size heap copies).
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static int parse_exact(const unsigned char *p, size_t len, ctl_frame_t *f, char *err)
{
    unsigned char *copy = malloc(len ? len : 1);
    memcpy(copy, p, len);
    size_t used = 0;
    int rc = ctl_parse(copy, len, f, &used, err, 256);
    if (rc == CTL_OK) {
        CHECK(used <= len);
        /* walk every list so an overread inside one would show */
        if (f->type == CTL_JOB) {
            ctl_strs_t s = f->u.job.argv;
            for (uint32_t i = 0; i < f->u.job.argv.n; i++)
                CHECK(strlen(ctl_strs_next(&s)) < len);
            s = f->u.job.hosts;
            for (uint32_t i = 0; i < f->u.job.hosts.n; i++)
                CHECK(strlen(ctl_strs_next(&s)) < len);
            s = f->u.job.kvs;
            for (uint32_t i = 0; i < f->u.job.kvs.n; i++)
                CHECK(strlen(ctl_strs_next(&s)) < len);
            s = f->u.job.gateway;
            for (uint32_t i = 0; i < f->u.job.gateway.n; i++)
                CHECK(strlen(ctl_strs_next(&s)) < len);
            for (uint32_t i = 0; i < f->u.job.ranks.n; i++)
                (void)ctl_u32s_at(&f->u.job.ranks, i);
        } else if (f->type == CTL_PARTS) {
            ctl_strs_t s = f->u.parts.fields;
            for (uint32_t i = 0; i < f->u.parts.fields.n; i++)
                CHECK(strlen(ctl_strs_next(&s)) < len);
        } else if (f->type == CTL_KVS) {
            ctl_strs_t s = f->u.kv;
            for (uint32_t i = 0; i < f->u.kv.n; i++)
                CHECK(strlen(ctl_strs_next(&s)) < len);
        }
    } else if (rc == CTL_BAD) {
        CHECK(err[0] != '\0');
    }
    free(copy);
    return rc;
}

static void build_all(ctl_buf_t *b, size_t *starts, int *n)
{
    const char *argv[] = { "prog", "a b", "" };
    const char *env[] = { "A=1", "B=x=y" };
    const char *hosts[] = { "h1", "h2", "h3" };
    const char *kv[] = { "k1", "v1", "k2", "" };
    const char *sites[] = { "metampi.sites", "2,1,1", "metampi.site_names", "a,b",
                            "metampi.rank_sites", "0*4,1*2" };
    const char *gw[] = { "--site", "1", "--gateways", "10.0.1.1:7000,10.0.2.1:7000" };
    *n = 0;
#define START(t) do { starts[(*n)++] = b->len; ctl_begin(b, t); } while (0)
    START(CTL_KEY);
    ctl_put_str(b, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789ABCDEF");
    ctl_end(b);
    START(CTL_JOB);
    ctl_put_str(b, "/tmp");
    ctl_put_str(b, "prog");
    ctl_put_strs(b, argv, 3);
    ctl_put_strs(b, env, 2);
    ctl_put_u32(b, 6);
    ctl_put_u32(b, 1);
    ctl_put_strs(b, hosts, 3);
    ctl_put_u32(b, 2);
    ctl_put_u32(b, 1);
    ctl_put_u32(b, 4);
    ctl_put_str(b, "kvs_1_2");
    ctl_put_str(b, "(vector,(0,3,1),(1,1,1),(2,1,2))");
    ctl_put_strs(b, sites, 6);
    ctl_put_strs(b, gw, 4);
    ctl_put_u8(b, 3);
    ctl_put_u8(b, 0);
    ctl_put_u8(b, 1);
    ctl_put_u32(b, 45);
    ctl_put_u32(b, 90);
    ctl_end(b);
    START(CTL_STDIN);
    ctl_put_data(b, "abc", 3);
    ctl_end(b);
    START(CTL_KILL);
    ctl_put_u32(b, 15);
    ctl_end(b);
    START(CTL_KVS);
    ctl_put_strs(b, kv, 4);
    ctl_end(b);
    START(CTL_BARRIER_OUT);
    ctl_end(b);
    START(CTL_END);
    ctl_end(b);
    START(CTL_BEAT);
    ctl_end(b);
    START(CTL_HELLO);
    ctl_put_u32(b, CTL_HELLO_MAGIC);
    ctl_put_u32(b, CTL_VERSION);
    ctl_put_u32(b, 42);
    ctl_end(b);
    START(CTL_OUTPUT);
    ctl_put_u8(b, 2);
    ctl_put_u8(b, 1);
    ctl_put_u32(b, 5);
    ctl_put_data(b, "line\n", 5);
    ctl_end(b);
    START(CTL_EXITED);
    ctl_put_u32(b, 3);
    ctl_put_u32(b, 77);
    ctl_put_u32(b, 9);
    ctl_put_u8(b, 1);
    ctl_put_u8(b, 0);
    ctl_end(b);
    START(CTL_ABORTED);
    ctl_put_u32(b, 3);
    ctl_put_u32(b, 77);
    ctl_put_u32(b, (uint32_t)-1);
    ctl_put_u8(b, 1);
    ctl_put_str(b, "bye");
    ctl_end(b);
    START(CTL_PMI_FAILED);
    ctl_put_u32(b, 0);
    ctl_put_u32(b, 1);
    ctl_put_u8(b, 2);
    ctl_put_str(b, "");
    ctl_end(b);
    START(CTL_FAIL);
    ctl_put_u32(b, 127);
    ctl_put_str(b, "cannot execute 'x'");
    ctl_end(b);
    START(CTL_NOTE);
    ctl_put_str(b, "warning");
    ctl_end(b);
    START(CTL_REPORT);
    ctl_put_str(b, "[h:1] rank 0 not bound\n");
    ctl_end(b);
    START(CTL_BARRIER_IN);
    ctl_end(b);
    START(CTL_STDIN_ACK);
    ctl_put_u32(b, 3);
    ctl_end(b);
    START(CTL_STDIN_CLOSED);
    ctl_end(b);
    START(CTL_DONE);
    ctl_end(b);
    START(CTL_STATS);
    ctl_put_str(b, "metampi-gateway-stats site=a to=b\n");
    ctl_end(b);
    START(CTL_PARTS);
    ctl_put_u8(b, CTL_PARTS_ASK);
    ctl_put_u32(b, 2);
    ctl_put_u32(b, 1);
    ctl_put_strs(b, argv, 2);
    ctl_end(b);
    starts[*n] = b->len;
}

int main(void)
{
    ctl_buf_t b = { 0 };
    size_t starts[64];
    int n;
    build_all(&b, starts, &n);
    char err[256];
    ctl_frame_t f;

    /* round trip of the whole stream, frame by frame */
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        size_t used = 0;
        int rc = ctl_parse(b.p + off, b.len - off, &f, &used, err, sizeof err);
        if (rc != CTL_OK)
            fprintf(stderr, "frame %d: %s\n", i, err);
        CHECK(rc == CTL_OK);
        CHECK(used == starts[i + 1] - starts[i]);
        off += used;
        if (f.type == CTL_JOB) {
            CHECK(strcmp(f.u.job.cwd, "/tmp") == 0);
            CHECK(f.u.job.argv.n == 3 && f.u.job.size == 6 && f.u.job.host == 1);
            CHECK(f.u.job.ranks.n == 2 && ctl_u32s_at(&f.u.job.ranks, 1) == 4);
            ctl_strs_t h = f.u.job.hosts;
            ctl_strs_next(&h);
            CHECK(strcmp(ctl_strs_next(&h), "h2") == 0);
            CHECK(f.u.job.bind == 3 && f.u.job.report_bindings == 1);
            CHECK(f.u.job.peer_timeout == 45);
            CHECK(f.u.job.silence == 90);
            ctl_strs_t k = f.u.job.kvs;
            CHECK(k.n == 6);
            for (int i = 0; i < 5; i++)
                ctl_strs_next(&k);
            CHECK(strcmp(ctl_strs_next(&k), "0*4,1*2") == 0);
            ctl_strs_t gw = f.u.job.gateway;
            CHECK(gw.n == 4);
            ctl_strs_next(&gw);
            CHECK(strcmp(ctl_strs_next(&gw), "1") == 0);
        }
        if (f.type == CTL_PARTS)
            CHECK(f.u.parts.op == CTL_PARTS_ASK && f.u.parts.node == 2 &&
                  f.u.parts.rank == 1 && f.u.parts.fields.n == 2);
        if (f.type == CTL_OUTPUT)
            CHECK(f.u.output.len == 5 && f.u.output.rank == 5 && f.u.output.stream == 2);
        if (f.type == CTL_ABORTED)
            CHECK(f.u.aborted.exitcode == -1 && strcmp(f.u.aborted.msg, "bye") == 0);
    }
    CHECK(off == b.len);

    unsigned seed = 12345;
    for (int i = 0; i < n; i++) {
        const unsigned char *fr = b.p + starts[i];
        size_t len = starts[i + 1] - starts[i];
        /* every proper prefix: more bytes needed, never a frame */
        for (size_t k = 0; k < len; k++)
            CHECK(parse_exact(fr, k, &f, err) == CTL_MORE);
        CHECK(parse_exact(fr, len, &f, err) == CTL_OK);
        /* one byte changed, several ways */
        unsigned char *m = malloc(len);
        static const unsigned char vals[] = { 0, 1, 2, 0x7f, 0x80, 0xff };
        for (size_t k = 0; k < len; k++) {
            for (size_t v = 0; v < sizeof vals; v++) {
                memcpy(m, fr, len);
                m[k] = vals[v];
                parse_exact(m, len, &f, err);
            }
        }
        /* random corruption of several bytes */
        for (int t = 0; t < 2000; t++) {
            memcpy(m, fr, len);
            for (int c = 0; c < 3; c++) {
                seed = seed * 1103515245u + 12345u;
                m[(seed >> 8) % len] = (unsigned char)(seed >> 16);
            }
            parse_exact(m, len, &f, err);
        }
        free(m);
    }
    /* a length beyond the limit is rejected at once, not waited for */
    unsigned char big[5] = { 0xff, 0xff, 0xff, 0x7f, CTL_DONE };
    CHECK(parse_exact(big, 5, &f, err) == CTL_BAD);
    unsigned char zero[5] = { 0, 0, 0, 0, CTL_DONE };
    CHECK(parse_exact(zero, 5, &f, err) == CTL_BAD);
    unsigned char unknown[5] = { 1, 0, 0, 0, 99 };
    CHECK(parse_exact(unknown, 5, &f, err) == CTL_BAD && strstr(err, "unknown frame type 99"));
    /* the JOB frame's key-value pairs: an even count of valid PMI keys and values */
    static const char *const odd[] = { "k" }, *const badkey[] = { "a=b", "v" },
                             *const badval[] = { "k", "two words" }, *const okkv[] = { "k", "v" };
    static const struct { const char *const *kv; uint32_t n; const char *err; } kvs[] = {
        { odd, 1, "1 key-value strings (an odd count)" },
        { badkey, 2, "key-value string 0 is not a valid PMI key" },
        { badval, 2, "key-value string 1 is not a valid PMI value" },
        { okkv, 2, NULL },
    };
    for (size_t t = 0; t < sizeof kvs / sizeof kvs[0]; t++) {
        ctl_buf_t j = { 0 };
        const char *argv[] = { "p" }, *hosts[] = { "h" };
        ctl_begin(&j, CTL_JOB);
        ctl_put_str(&j, "/");
        ctl_put_str(&j, "p");
        ctl_put_strs(&j, argv, 1);
        ctl_put_strs(&j, NULL, 0);
        ctl_put_u32(&j, 1);
        ctl_put_u32(&j, 0);
        ctl_put_strs(&j, hosts, 1);
        ctl_put_u32(&j, 1);
        ctl_put_u32(&j, 0);
        ctl_put_str(&j, "kvs");
        ctl_put_str(&j, "");
        ctl_put_strs(&j, kvs[t].kv, kvs[t].n);
        ctl_put_strs(&j, NULL, 0);
        ctl_put_u8(&j, 0);
        ctl_put_u8(&j, 0);
        ctl_put_u8(&j, 0);
        ctl_put_u32(&j, 60);
        ctl_put_u32(&j, 0);
        ctl_end(&j);
        int rc = parse_exact(j.p, j.len, &f, err);
        if (kvs[t].err)
            CHECK(rc == CTL_BAD && strstr(err, kvs[t].err));
        else
            CHECK(rc == CTL_OK && f.u.job.kvs.n == 2);
        ctl_buf_free(&j);
    }
    /* a helper started for spawned ranks only: a JOB that names no ranks of its host */
    {
        ctl_buf_t j = { 0 };
        const char *argv[] = { "p" }, *hosts[] = { "h1", "h2" };
        ctl_begin(&j, CTL_JOB);
        ctl_put_str(&j, "/");
        ctl_put_str(&j, "p");
        ctl_put_strs(&j, argv, 1);
        ctl_put_strs(&j, NULL, 0);
        ctl_put_u32(&j, 2);
        ctl_put_u32(&j, 1);
        ctl_put_strs(&j, hosts, 2);
        ctl_put_u32(&j, 0);
        ctl_put_str(&j, "kvs");
        ctl_put_str(&j, "");
        ctl_put_strs(&j, NULL, 0);
        ctl_put_strs(&j, NULL, 0);
        ctl_put_u8(&j, 0);
        ctl_put_u8(&j, 0);
        ctl_put_u8(&j, 0);
        ctl_put_u32(&j, 60);
        ctl_put_u32(&j, 0);
        ctl_end(&j);
        int rc = parse_exact(j.p, j.len, &f, err);
        if (rc != CTL_OK)
            fprintf(stderr, "a JOB without ranks: %s\n", err);
        CHECK(rc == CTL_OK && f.u.job.ranks.n == 0 && f.u.job.host == 1);
        ctl_buf_free(&j);
    }
    /* spawned ranks' job-wide numbers pass CTL_MAX_RANKS (numbers are never reused) */
    {
        ctl_buf_t e = { 0 };
        ctl_begin(&e, CTL_EXITED);
        ctl_put_u32(&e, CTL_MAX_RANKS + 904);
        ctl_put_u32(&e, 77);
        ctl_put_u32(&e, 0);
        ctl_put_u8(&e, 1);
        ctl_put_u8(&e, 1);
        ctl_end(&e);
        int rc = parse_exact(e.p, e.len, &f, err);
        if (rc != CTL_OK)
            fprintf(stderr, "EXITED of rank %u: %s\n", CTL_MAX_RANKS + 904, err);
        CHECK(rc == CTL_OK && f.u.exited.rank == CTL_MAX_RANKS + 904);
        ctl_buf_free(&e);
        ctl_begin(&e, CTL_EXITED);
        ctl_put_u32(&e, CTL_MAX_RANK_ID);
        ctl_put_u32(&e, 77);
        ctl_put_u32(&e, 0);
        ctl_put_u8(&e, 1);
        ctl_put_u8(&e, 1);
        ctl_end(&e);
        CHECK(parse_exact(e.p, e.len, &f, err) == CTL_BAD);
        ctl_buf_free(&e);
    }
    ctl_buf_free(&b);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    else
        printf("ctl: all checks passed\n");
    return failures != 0;
}
