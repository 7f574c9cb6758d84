/*
 * The fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput on every file named on
 * the command line, or else on a fixed sequence of pseudo-random inputs mutated from the
 * built-in seeds (a smoke test that needs no clang, and a way to replay a crash input).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The target's seeds: valid inputs to mutate, built with the real encoders (each target
 * defines it). */
void fuzz_make_seeds(void (*add)(const void *data, size_t size));

enum { MAXSEEDS = 64, MAXLEN = 4096 };
static unsigned char seed[MAXSEEDS][MAXLEN];
static size_t seed_size[MAXSEEDS];
static int nseeds;

static void add_seed(const void *data, size_t size)
{
    if (nseeds == MAXSEEDS)
        return;
    seed_size[nseeds] = size < MAXLEN ? size : MAXLEN;
    memcpy(seed[nseeds], data, seed_size[nseeds]);
    nseeds++;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* Writes the seeds as files DIR/seed-N: the starting corpus of the libFuzzer build. */
static int write_seeds(const char *dir)
{
    for (int i = 0; i < nseeds; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/seed-%d", dir, i);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(seed[i], 1, seed_size[i], f) != seed_size[i]) {
            perror(path);
            return 1;
        }
        fclose(f);
    }
    return 0;
}

int main(int argc, char **argv)
{
    fuzz_make_seeds(add_seed);
    if (nseeds == 0) {
        fprintf(stderr, "no seeds\n");
        return 1;
    }
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
        return write_seeds(argv[2]);
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            FILE *f = fopen(argv[i], "rb");
            if (!f) {
                perror(argv[i]);
                return 1;
            }
            static uint8_t buf[1 << 20];
            size_t n = fread(buf, 1, sizeof buf, f);
            fclose(f);
            LLVMFuzzerTestOneInput(buf, n);
        }
        return 0;
    }
    enum { RUNS = 200000 };
    static uint8_t buf[MAXLEN];
    for (int i = 0; i < nseeds; i++)
        LLVMFuzzerTestOneInput(seed[i], seed_size[i]);
    for (int run = 0; run < RUNS; run++) {
        int s = (int)(next_rand() % (uint32_t)nseeds);
        size_t n = seed_size[s];
        memcpy(buf, seed[s], n);
        int edits = 1 + (int)(next_rand() % 8);
        for (int e = 0; e < edits; e++) {
            uint32_t r = next_rand();
            switch (r % 4) {
            case 0: /* flip a byte */
                if (n)
                    buf[next_rand() % n] ^= (uint8_t)(1 + next_rand() % 255);
                break;
            case 1: /* truncate */
                if (n)
                    n = next_rand() % n;
                break;
            case 2: /* extend with random bytes */
                while (n < MAXLEN && (next_rand() % 16))
                    buf[n++] = (uint8_t)next_rand();
                break;
            default: /* an interesting value at a random place */
                if (n >= 4) {
                    static const uint32_t vals[] = { 0, 1, 0x7fffffff, 0xffffffff, 0x80000000,
                                                     0x10000, 255, 256 };
                    uint32_t v = vals[next_rand() % 8];
                    memcpy(buf + next_rand() % (n - 3), &v, 4);
                }
            }
        }
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("%d inputs, no crash\n", RUNS);
    return 0;
}
