/*
 * Conversion bandwidth between unlike architectures (issue 19): how fast a receiver unpacks
 * a stream packed by a sender of another architecture (datatype/engine/convert.h), against
 * the like-peer unpack of the same data (dt_unpack: today's path) and memcpy of its bytes.
 * Not an MPI program: the engine is driven directly on synthetic foreign streams, so the
 * number is the converter's alone (no transport).
 *
 * Cases: doubles and ints from a big-endian sender (byte reversal), a struct from a big-endian
 * sender, longs from an ILP32 sender (4 -> 8 bytes), long doubles from s390x (binary128 -> x87),
 * and the byte-reversal kernel against a scalar __builtin_bswap64 loop.
 *
 * Usage: convert_bench [MiB]  (default 16: the native bytes per case)
 * Prints one line per case: "<case>|<native bytes>|<convert GB/s>|<like-peer unpack GB/s>|
 * <memcpy GB/s>" (GB = 1e9 bytes of native data per second; the best of several trials).
 */
#include "datatype/construct.h"
#include "datatype/dtype.h"
#include "datatype/engine/convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { TRIALS = 5 };
static volatile unsigned char sink;

/* Best GB/s of fn over TRIALS runs of `bytes` native bytes each. */
#define BEST(bytes, stmt)                                                                      \
    ({                                                                                         \
        double best_ = 0;                                                                      \
        for (int t_ = 0; t_ < TRIALS; t_++) {                                                  \
            double t0_ = now();                                                                \
            stmt;                                                                              \
            double dt_ = now() - t0_;                                                          \
            if (dt_ > 0 && (double)(bytes) / dt_ / 1e9 > best_)                                \
                best_ = (double)(bytes) / dt_ / 1e9;                                           \
        }                                                                                      \
        best_;                                                                                 \
    })

static void run_case(const char *name, const dtype_t *t, size_t count, const arch_desc_t *from,
                     unsigned char *native, unsigned char *stream, unsigned char *copy)
{
    size_t nbytes = count * (size_t)t->size;
    size_t span = count * (size_t)(t->ub - t->lb);
    size_t fbytes = (size_t)dt_conv_stream_size(t->layout, from, count);
    memset(stream, 0x11, fbytes); /* any bytes: every value converts (no range failure) */
    double conv = BEST(nbytes, {
        dt_conv_t cv;
        dt_conv_init(&cv, from, t->layout, (uintptr_t)native, count);
        dt_conv_unpack(&cv, stream, fbytes);
    });
    double like = BEST(nbytes, {
        dt_cursor_t c;
        dt_cursor_init(&c, t->layout, (uintptr_t)native, count);
        dt_unpack(&c, stream, nbytes);
    });
    double mem = BEST(nbytes, memcpy(copy, stream, nbytes));
    sink ^= native[span / 2] ^ copy[nbytes / 2];
    printf("%s|%zu|%.2f|%.2f|%.2f\n", name, nbytes, conv, like, mem);
}

static void scalar_swap8(unsigned char *out, const unsigned char *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, in + 8 * i, 8);
        v = __builtin_bswap64(v);
        memcpy(out + 8 * i, &v, 8);
    }
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 16;
    if (mib < 1 || mib > 1024 || dtype_init(NULL) != 0) {
        fprintf(stderr, "usage: convert_bench [MiB 1..1024]\n");
        return 2;
    }
    size_t bytes = mib << 20;
    unsigned char *native = malloc(2 * bytes), *stream = malloc(2 * bytes),
                  *copy = malloc(2 * bytes);
    if (!native || !stream || !copy)
        return 1;
    memset(native, 0, 2 * bytes);
    memset(copy, 0, 2 * bytes);

    arch_desc_t big = *arch_local(), ilp32 = *arch_local(), s390x = *arch_local();
    big.byte_order = s390x.byte_order = ARCH_BIG;
    s390x.ldbl_format = ARCH_LDBL_BINARY128;
    ilp32.size[ARCH_LONG] = ilp32.size[ARCH_POINTER] = 4;

    run_case("doubles from big-endian", dtype_lookup(MPI_DOUBLE), bytes / 8, &big, native,
             stream, copy);
    run_case("ints from big-endian", dtype_lookup(MPI_INT), bytes / 4, &big, native, stream,
             copy);
    struct rec {
        int i;
        double d[3];
        long l;
        char c[4];
    };
    int bl[] = { 1, 3, 1, 4 };
    MPI_Aint disp[] = { offsetof(struct rec, i), offsetof(struct rec, d),
                        offsetof(struct rec, l), offsetof(struct rec, c) };
    dtype_t *types[] = { dtype_lookup(MPI_INT), dtype_lookup(MPI_DOUBLE),
                         dtype_lookup(MPI_LONG), dtype_lookup(MPI_CHAR) };
    dtype_t *st;
    if (dtype_struct(4, bl, disp, types, &st) != MPI_SUCCESS || dtype_commit(st) != MPI_SUCCESS)
        return 1;
    run_case("struct {int; double[3]; long; char[4]} from big-endian", st,
             bytes / (size_t)st->size, &big, native, stream, copy);
    run_case("longs from ILP32 (4 -> 8 bytes)", dtype_lookup(MPI_LONG), bytes / 8, &ilp32,
             native, stream, copy);
    run_case("long doubles from s390x (binary128 -> x87)", dtype_lookup(MPI_LONG_DOUBLE),
             bytes / 16 / 8, &s390x, native, stream, copy);

    size_t n8 = bytes / 8;
    double vec = BEST(bytes, dt_swap_bytes(native, stream, 8, n8));
    double scal = BEST(bytes, scalar_swap8(native, stream, n8));
    double mem = BEST(bytes, memcpy(native, stream, bytes));
    printf("byte reversal of 8-byte values: vectorised kernel|%zu|%.2f|%.2f|%.2f\n", bytes, vec,
           scal, mem);
    dtype_release(st);
    dtype_finalize();
    free(native);
    free(stream);
    free(copy);
    return sink == 0xff; /* never: keeps the stores */
}
