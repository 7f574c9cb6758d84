/*
 * The site layout's key-value encoding (runtime/sitemap.c): layouts round-trip through
 * sitemap_encode and sitemap_decode, also when the lists need many parts (small value
 * limits), and through sitemap_decode_any (a layout of unknown size); every malformed space is refused with a message naming the key; a space without
 * the layout is "one site" (1).
 */
#include "runtime/sitemap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

/* A key-value space: pairs of strings. */
typedef struct space {
    const char *kv[4096];
    int n;          /* strings */
    int gets;       /* lookups made */
    int fail_key;   /* index of a key whose get fails (-1: none) */
} space_t;

static int get(void *ctx, const char *key, char *value, int vallen, char *err, int errlen)
{
    space_t *s = ctx;
    s->gets++;
    for (int i = 0; i < s->n; i += 2) {
        if (strcmp(s->kv[i], key) != 0)
            continue;
        if (i == s->fail_key) {
            snprintf(err, (size_t)errlen, "connection lost");
            return -1;
        }
        if ((int)strlen(s->kv[i + 1]) >= vallen) {
            snprintf(err, (size_t)errlen, "value of key '%s' is too long", key);
            return -1;
        }
        strcpy(value, s->kv[i + 1]);
        return 0;
    }
    return 1;
}

static void roundtrip(int nsites, const char *const *names, const int *site_of, int size,
                      size_t maxval, int expect_pairs)
{
    char **kv;
    int n = sitemap_encode(nsites, names, site_of, size, maxval, &kv);
    CHECK(n >= 3);
    if (expect_pairs)
        CHECK(n == expect_pairs);
    if (n < 0)
        return;
    space_t sp = { .n = 2 * n, .fail_key = -1 };
    for (int i = 0; i < 2 * n; i++) {
        sp.kv[i] = kv[i];
        if (i % 2)
            CHECK(strlen(kv[i]) <= maxval && strlen(kv[i]) > 0);
    }
    int *got = malloc((size_t)size * sizeof *got), gn = 0;
    char **gnames = NULL, err[256];
    int rc = sitemap_decode(get, &sp, size, (int)maxval + 1, got, &gn, &gnames, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "decode: %s\n", err);
    CHECK(rc == 0);
    if (rc == 0) {
        CHECK(gn == nsites);
        CHECK(memcmp(got, site_of, (size_t)size * sizeof *got) == 0);
        for (int s = 0; s < nsites && s < gn; s++)
            CHECK(strcmp(gnames[s], names[s]) == 0);
        CHECK(sp.gets == n);  /* every key read exactly once */
        sitemap_free_names(gnames, gn);
    }
    free(got);
    /* the same layout read without knowing its size (another part of the job) */
    int *any = NULL, asize = 0;
    rc = sitemap_decode_any(get, &sp, (int)maxval + 1, &any, &asize, &gn, &gnames, err,
                            sizeof err);
    if (rc != 0)
        fprintf(stderr, "decode_any: %s\n", err);
    CHECK(rc == 0);
    if (rc == 0) {
        CHECK(asize == size);
        CHECK(gn == nsites);
        CHECK(asize != size || memcmp(any, site_of, (size_t)size * sizeof *any) == 0);
        sitemap_free_names(gnames, gn);
        free(any);
    }
    sitemap_free_kv(kv, n);
}

static void roundtrips(void)
{
    const char *two[] = { "stuttgart", "berlin" };
    int l4[] = { 0, 0, 1, 1 };
    char **kv;
    int n = sitemap_encode(2, two, l4, 4, 1023, &kv);
    CHECK(n == 3);
    CHECK(strcmp(kv[0], "metampi.sites") == 0 && strcmp(kv[1], "2,1,1") == 0);
    CHECK(strcmp(kv[2], "metampi.site_names") == 0 && strcmp(kv[3], "stuttgart,berlin") == 0);
    CHECK(strcmp(kv[4], "metampi.rank_sites") == 0 && strcmp(kv[5], "0*2,1*2") == 0);
    sitemap_free_kv(kv, n);
    roundtrip(2, two, l4, 4, 1023, 3);
    /* one rank; a site with no rank; runs of one; sites out of order */
    const char *three[] = { "a", "b.c", "d-e_f" };
    int l1[] = { 2 };
    roundtrip(3, three, l1, 1, 1023, 3);
    int l6[] = { 0, 2, 2, 0, 1, 0 };
    roundtrip(3, three, l6, 6, 1023, 3);
    /* many ranks, many sites, and values limited to a few items: many parts */
    enum { SIZE = 4096, SITES = 256 };
    static int big[SIZE];
    static char namebuf[SITES][SITEMAP_NAME_MAX + 1];
    const char *names[SITES];
    for (int s = 0; s < SITES; s++) {
        /* 64-character names */
        snprintf(namebuf[s], sizeof namebuf[s], "site%03d-%056d", s, s);
        names[s] = namebuf[s];
    }
    for (int r = 0; r < SIZE; r++)
        big[r] = (r * 7 + r / 3) % SITES;  /* almost no runs */
    roundtrip(SITES, names, big, SIZE, 1023, 0);
    roundtrip(SITES, names, big, SIZE, 80, 0);
    for (int r = 0; r < SIZE; r++)
        big[r] = r * SITES / SIZE;  /* one run per site */
    roundtrip(SITES, names, big, SIZE, 1023, 0);
    /* the smallest limit cuts every name into a part of its own */
    const char *long3[] = { "abcdefghij", "klmnopqrst", "uvwxyz0123" };
    n = sitemap_encode(3, long3, l6, 6, 16, &kv);
    CHECK(n == 1 + 3 + 1);
    CHECK(n == 5 && strcmp(kv[2 * 3], "metampi.site_names.2") == 0 &&
          strcmp(kv[2 * 3 + 1], "uvwxyz0123") == 0);
    sitemap_free_kv(kv, n);
    roundtrip(3, long3, l6, 6, 16, 5);
}

static void bad_encodes(void)
{
    char **kv;
    const char *dup[] = { "a", "a" }, *badname[] = { "a,b" }, *ok[] = { "a", "b" };
    int l[] = { 0, 1 }, out[] = { 0, 2 };
    CHECK(sitemap_encode(2, dup, l, 2, 1023, &kv) == -1 && kv == NULL);
    CHECK(sitemap_encode(1, badname, l, 1, 1023, &kv) == -1);
    CHECK(sitemap_encode(2, ok, out, 2, 1023, &kv) == -1);
    CHECK(sitemap_encode(0, ok, l, 2, 1023, &kv) == -1);
    CHECK(sitemap_encode(2, ok, l, 0, 1023, &kv) == -1);
    CHECK(sitemap_encode(2, ok, l, 2, 8, &kv) == -1);
}

/* decode of the pairs kv[0..n) for a job of size ranks: rc, and err when it is -1 */
static int decode(const char *const *kv, int n, int size, char *err)
{
    space_t sp = { .n = n, .fail_key = -1 };
    for (int i = 0; i < n; i++)
        sp.kv[i] = kv[i];
    int site_of[16], ns = -1;
    char **names = NULL;
    err[0] = '\0';
    int rc = sitemap_decode(get, &sp, size, 1025, site_of, &ns, &names, err, 256);
    if (rc == 0)
        sitemap_free_names(names, ns);
    else
        CHECK(names == NULL);
    return rc;
}

static void bad_decodes(void)
{
    char err[256];
    /* nothing published: one site */
    CHECK(decode(NULL, 0, 4, err) == 1);
    const char *ok[] = { "metampi.sites", "2,1,2", "metampi.site_names", "a,b",
                         "metampi.rank_sites", "0,0", "metampi.rank_sites.1", "1*2" };
    CHECK(decode(ok, 8, 4, err) == 0);
    static const struct { const char *sites, *names, *ranks; int size; const char *msg; } t[] = {
        { "2,1", "a,b", "0*2,1*2", 4, "metampi.sites: '2,1' is not SITES,NAME_PARTS,RANK_PARTS" },
        { "2,1,1,1", "a,b", "0*2,1*2", 4, "metampi.sites: '2,1,1,1' is not" },
        { "0,1,1", "a,b", "0*2,1*2", 4, "metampi.sites: '0,1,1' is not" },
        { "257,1,1", "a,b", "0*2,1*2", 4, "metampi.sites: '257,1,1' is not" },
        { "2,1,1x", "a,b", "0*2,1*2", 4, "metampi.sites: '2,1,1x' is not" },
        { "2,1,1", "a", "0*2,1*2", 4, "metampi.site_names: 1 site names for 2 sites" },
        { "2,1,1", "a,b,c", "0*2,1*2", 4, "metampi.site_names: more than 2 site names" },
        { "2,1,1", "a,a", "0*2,1*2", 4, "metampi.site_names: site name 'a' appears twice" },
        { "2,1,1", "a,b c", "0*2,1*2", 4, "metampi.site_names: invalid site name 'b c'" },
        { "2,1,1", "a,,b", "0*2,1*2", 4, "metampi.site_names: an empty item in 'a,,b'" },
        { "2,1,1", "a,b", "0*2,2*2", 4, "metampi.rank_sites: invalid run '2*2'" },
        { "2,1,1", "a,b", "0*2,1*0", 4, "metampi.rank_sites: invalid run '1*0'" },
        { "2,1,1", "a,b", "0*2,1*", 4, "metampi.rank_sites: invalid run '1*'" },
        { "2,1,1", "a,b", "-1,0,1,1", 4, "metampi.rank_sites: invalid run '-1'" },
        { "2,1,1", "a,b", "0*2,1", 4, "metampi.rank_sites: the runs cover 3 ranks, the job has 4" },
        { "2,1,1", "a,b", "0*2,1*3", 4,
          "metampi.rank_sites: the runs cover more than the job's 4 ranks" },
        { "2,1,1", "a,b", "0*999999999,1", 4, "metampi.rank_sites: invalid run '0*999999999'" },
        { "2,1,2", "a,b", "0*2,1*2", 4,
          "metampi.rank_sites.1: missing (metampi.sites announces 2 parts)" },
        { "2,2,1", "a,b", "0*2,1*2", 4,
          "metampi.site_names.1: missing (metampi.sites announces 2 parts)" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const char *kv[] = { "metampi.sites", t[i].sites, "metampi.site_names", t[i].names,
                             "metampi.rank_sites", t[i].ranks };
        int rc = decode(kv, 6, t[i].size, err);
        const char *prefix = "malformed site layout in the job's key-value space: ";
        if (rc != -1 || strncmp(err, prefix, strlen(prefix)) != 0 ||
            strncmp(err + strlen(prefix), t[i].msg, strlen(t[i].msg)) != 0) {
            fprintf(stderr, "case %zu: rc %d, '%s'\n  expected '%s%s...'\n", i, rc, err, prefix,
                    t[i].msg);
            failures++;
        }
    }
    /* a failing lookup is passed on with its own message */
    space_t sp = { .n = 6, .fail_key = 2 };
    const char *kv[] = { "metampi.sites", "2,1,1", "metampi.site_names", "a,b",
                         "metampi.rank_sites", "0*2,1*2" };
    for (int i = 0; i < 6; i++)
        sp.kv[i] = kv[i];
    int site_of[4], ns;
    char **names = NULL;
    CHECK(sitemap_decode(get, &sp, 4, 1025, site_of, &ns, &names, err, sizeof err) == -1);
    CHECK(strcmp(err, "connection lost") == 0 && names == NULL);
    /* a value longer than the reader's buffer */
    sp.fail_key = -1;
    CHECK(sitemap_decode(get, &sp, 4, 4, site_of, &ns, &names, err, sizeof err) == -1);
    CHECK(strstr(err, "too long") != NULL);
    /* a small error buffer is never overrun */
    char small[8];
    const char *bad[] = { "metampi.sites", "x" };
    space_t s2 = { .n = 2, .fail_key = -1, .kv = { bad[0], bad[1] } };
    CHECK(sitemap_decode(get, &s2, 4, 1025, site_of, &ns, &names, small, sizeof small) == -1);
    CHECK(strlen(small) == 7);
}

/* sitemap_decode_any refuses what sitemap_decode refuses, and a space without a layout is 1. */
static void bad_decodes_any(void)
{
    static const char *bad[] = { "metampi.sites", "2,1,1", "metampi.site_names", "a,b",
                                 "metampi.rank_sites", "0*2,2" };
    space_t sp = { .n = 6, .fail_key = -1 };
    memcpy(sp.kv, bad, sizeof bad);
    int *site_of = NULL, size = 0, ns = 0;
    char **names = NULL, err[256] = "";
    CHECK(sitemap_decode_any(get, &sp, 1025, &site_of, &size, &ns, &names, err,
                             sizeof err) == -1);
    CHECK(strstr(err, "metampi.rank_sites") != NULL);
    CHECK(site_of == NULL);
    space_t none = { .n = 0, .fail_key = -1 };
    CHECK(sitemap_decode_any(get, &none, 1025, &site_of, &size, &ns, &names, err,
                             sizeof err) == 1);
}

int main(void)
{
    bad_decodes_any();
    roundtrips();
    bad_encodes();
    bad_decodes();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("sitemap: ok\n");
    return 0;
}
