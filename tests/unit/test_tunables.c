/*
 * runtime/tunables: the parser (every type, suffixes, bounds, bad values and their one-line
 * messages), the table (names, defaults within bounds, choices), the cached accessors and
 * their error handler, the check of a program's variables, the constants that modules keep
 * beside the registry, and the collectives' adapters (coll/tune.h).
 */
#include "runtime/tunables.h"

#include "coll/tune.h"
#include "core/ctxid.h"
#include "net/liveness.h"
#include "runtime/peer_timeout.h"
#include "transport/shm/layout.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;
#define CHECK(c)                                                                               \
    do {                                                                                       \
        if (!(c)) {                                                                            \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);                            \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

/* text parses as entry id to value */
static int parses(tun_id_t id, const char *text, unsigned long long value)
{
    unsigned long long v = 12345;
    char err[512] = "";
    int ok = tun_parse(id, text, &v, err, sizeof err) == 0 && v == value;
    if (!ok)
        fprintf(stderr, "  %s=%s: got %llu (%s), expected %llu\n", tun_info(id)->name, text, v,
                err, value);
    return ok;
}

/* text is refused with exactly "NAME=text is not <accepted>" */
static int refused(tun_id_t id, const char *text, const char *accepted)
{
    unsigned long long v;
    char err[512] = "", want[512];
    snprintf(want, sizeof want, "%s=%s is not %s", tun_info(id)->name, text, accepted);
    int ok = tun_parse(id, text, &v, err, sizeof err) == -1 && strcmp(err, want) == 0;
    if (!ok)
        fprintf(stderr, "  %s: got '%s', expected '%s'\n", text, err, want);
    return ok;
}

static void test_bool(void)
{
    const char *on[] = { "1", "yes", "on", "true", "YES", "On", "TRUE" };
    const char *off[] = { "0", "no", "off", "false", "No", "OFF" };
    for (size_t i = 0; i < sizeof on / sizeof *on; i++)
        CHECK(parses(TUN_COLL_HIER, on[i], 1));
    for (size_t i = 0; i < sizeof off / sizeof *off; i++)
        CHECK(parses(TUN_COLL_HIER, off[i], 0));
    CHECK(parses(TUN_COLL_HIER, NULL, 1) && parses(TUN_COLL_HIER, "", 1));
    CHECK(parses(TUN_WAN_STATS, NULL, 0));
    const char *bad[] = { "2", "y", "enable", " 1", "1 ", "00" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(refused(TUN_COLL_HIER, bad[i], "one of 0, 1, no, yes, off, on, false, true"));
}

static void test_int(void)
{
    CHECK(parses(TUN_CONTEXT_IDS, NULL, 16384));
    CHECK(parses(TUN_CONTEXT_IDS, "3", 3) && parses(TUN_CONTEXT_IDS, "16384", 16384));
    CHECK(parses(TUN_CONTEXT_IDS, "0024", 24));
    const char *bad[] = { "2", "16385", "-5", "+5", "1k", "abc", "12x", "0x10", " 7",
                          "99999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(refused(TUN_CONTEXT_IDS, bad[i], "a whole number from 3 to 16384"));
    /* no upper bound given: INT_MAX; 0 with its meaning */
    CHECK(parses(TUN_VIRTUAL_HOSTS, "2147483647", 2147483647));
    CHECK(refused(TUN_VIRTUAL_HOSTS, "2147483648", "a whole number from 0 (off) to 2147483647"));
    CHECK(parses(TUN_COLL_SHM_SLOTS, "2", 2) && parses(TUN_COLL_SHM_SLOTS, "8", 8));
    CHECK(refused(TUN_COLL_SHM_SLOTS, "9", "a whole number from 2 to 8"));
}

static void test_size(void)
{
    const char *any = "a size in bytes (a whole number, with an optional k, m or g suffix)";
    CHECK(parses(TUN_EAGER_LIMIT, NULL, 0) && parses(TUN_DT_IOV_MIN, "", 262144));
    CHECK(parses(TUN_EAGER_LIMIT, "0", 0) && parses(TUN_EAGER_LIMIT, "65536", 65536));
    CHECK(parses(TUN_EAGER_LIMIT, "4k", 4096) && parses(TUN_EAGER_LIMIT, "4K", 4096));
    CHECK(parses(TUN_EAGER_LIMIT, "3m", 3u << 20) && parses(TUN_EAGER_LIMIT, "3M", 3u << 20));
    CHECK(parses(TUN_EAGER_LIMIT, "1g", 1ull << 30) && parses(TUN_EAGER_LIMIT, "2G", 2ull << 30));
    CHECK(parses(TUN_EAGER_LIMIT, "18446744073709551615", SIZE_MAX));
    const char *bad[] = { "k", "4kb", "4 k", "4kk", "4t", "-1", "0x1000", "1.5m", "4KiB",
                          "18446744073709551616", "17179869184g" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(refused(TUN_EAGER_LIMIT, bad[i], any));
    /* bounded */
    CHECK(parses(TUN_TCP_SNDBUF, "2147483647", 2147483647));
    CHECK(parses(TUN_TCP_SNDBUF, "8m", 8u << 20));
    CHECK(refused(TUN_TCP_SNDBUF, "2g", "a size in bytes from 0 (kernel autotuning) to 2147483647 "
                                        "(with an optional k, m or g suffix)"));
    /* the collectives' switch-off of the chain broadcast: the largest size */
    CHECK(parses(TUN_COLL_BCAST_CHAIN, NULL, SIZE_MAX));
}

static void test_pow2(void)
{
    const char *cells = "a power of two from 4 to 65536 (with an optional k, m or g suffix)";
    CHECK(parses(TUN_SHM_CELLS, NULL, 128) && parses(TUN_SHM_CELLS, "4", 4));
    CHECK(parses(TUN_SHM_CELLS, "64k", 65536) && parses(TUN_SHM_CELLS, "1K", 1024));
    const char *bad[] = { "2", "5", "96", "128k", "0", "x" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(refused(TUN_SHM_CELLS, bad[i], cells));
    CHECK(parses(TUN_SHM_RING_BYTES, "128K", 131072) && parses(TUN_SHM_RING_BYTES, "1g", 1u << 30));
    CHECK(refused(TUN_SHM_RING_BYTES, "64k", "a power of two from 131072 to 1073741824 (with an "
                                             "optional k, m or g suffix)"));
}

static void test_time(void)
{
    const char *secs = "a number of seconds from 0 (off) to 86400";
    CHECK(parses(TUN_PEER_TIMEOUT, NULL, 60) && parses(TUN_PEER_TIMEOUT, "", 60));
    CHECK(parses(TUN_PEER_TIMEOUT, "0", 0) && parses(TUN_PEER_TIMEOUT, "86400", 86400));
    CHECK(parses(TUN_PEER_TIMEOUT, "30s", 30) && parses(TUN_PEER_TIMEOUT, "2000ms", 2));
    CHECK(parses(TUN_PEER_TIMEOUT, "5000000us", 5));
    const char *bad[] = { "86401", "-1", "abc", "12x", "1500ms", "1m", "1h", "s", "5 s",
                          "99999999999999999999", "86401s" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(refused(TUN_PEER_TIMEOUT, bad[i], secs));
    CHECK(parses(TUN_SPIN_US, "50", 50) && parses(TUN_SPIN_US, "2ms", 2000));
    CHECK(parses(TUN_SPIN_US, "1s", 1000000) && parses(TUN_SPIN_US, "60s", 60000000));
    CHECK(refused(TUN_SPIN_US, "61s", "a number of microseconds from 0 (sleep at once) to "
                                      "60000000"));
}

static void test_enum_string(void)
{
    CHECK(parses(TUN_COLL_BARRIER, NULL, 0) && parses(TUN_COLL_BARRIER, "auto", 0));
    CHECK(parses(TUN_COLL_BARRIER, "shm", 1) && parses(TUN_COLL_BARRIER, "dissemination", 2));
    const char *bad[] = { "SHM", "dissem", "shm,", ",", "auto ", "ring" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(refused(TUN_COLL_BARRIER, bad[i], "one of auto, shm, dissemination"));
    CHECK(parses(TUN_TCP_IF, "eth0,10.0.0.0/8", 0));
}

/* Every entry: a METAMPI_ name of capitals, digits and _, unique; a description; numeric
 * defaults within bounds (so the default parses like a value); choices where needed. */
static void test_table(void)
{
    for (int i = 0; i < TUN_COUNT; i++) {
        const tun_info_t *t = tun_info((tun_id_t)i);
        CHECK(strncmp(t->name, "METAMPI_", 8) == 0 && strlen(t->name) > 8);
        CHECK(strspn(t->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(t->name));
        CHECK(tun_find(t->name) == i);
        CHECK(t->doc && *t->doc && !strchr(t->doc, '\n') && !strchr(t->doc, '|'));
        CHECK(t->readers != 0);
        CHECK(t->kind <= TUN_INTERNAL);
        if (t->type == TUN_ENUM) {
            CHECK(t->choices && *t->choices);
            int n = 1;
            for (const char *c = t->choices; *c; c++)
                n += *c == ',';
            CHECK(t->dflt < (unsigned long long)n);
        } else {
            CHECK(!t->choices);
        }
        if (t->type == TUN_INT || t->type == TUN_SIZE || t->type == TUN_POW2 ||
            t->type == TUN_TIME) {
            CHECK(!t->max || t->min <= t->max);
            char text[32];
            snprintf(text, sizeof text, "%llu", t->dflt);
            unsigned long long v;
            char err[512];
            if (tun_parse((tun_id_t)i, text, &v, err, sizeof err) != 0 || v != t->dflt)
                fprintf(stderr, "  the default of %s: %s\n", t->name, err), failures++;
        }
        if (t->type == TUN_TIME)
            CHECK(t->unit && (!strcmp(t->unit, "seconds") || !strcmp(t->unit, "milliseconds") ||
                              !strcmp(t->unit, "microseconds")));
    }
    CHECK(tun_find("METAMPI_NO_SUCH_VARIABLE") == -1);
}

/* What modules keep beside the registry agrees with it. */
static void test_constants(void)
{
    CHECK(tun_info(TUN_PEER_TIMEOUT)->dflt == LIVENESS_DEFAULT_S);
    CHECK(tun_info(TUN_PEER_TIMEOUT)->max == LIVENESS_MAX_S);
    CHECK(strcmp(tun_info(TUN_PEER_TIMEOUT)->name, LIVENESS_ENV) == 0);
    CHECK(tun_info(TUN_CONTEXT_IDS)->max == CTXID_PAIRS);
    CHECK(tun_info(TUN_CONTEXT_IDS)->dflt == CTXID_PAIRS);
    CHECK(tun_info(TUN_CONTEXT_IDS)->min == 3); /* the two predefined pairs, and one more */
    CHECK(tun_info(TUN_SHM_RING_BYTES)->min == 2 * SHM_MAX_FRAME);
}

static jmp_buf caught;
static char caught_msg[640];

static void catch_error(const char *message)
{
    snprintf(caught_msg, sizeof caught_msg, "%s", message);
    longjmp(caught, 1);
}

static void test_accessors(void)
{
    tunables_on_error(catch_error);
    unsetenv("METAMPI_EAGER_LIMIT");
    setenv("METAMPI_DT_IOV_MIN", "1G", 1);
    setenv("METAMPI_COLL_HIER", "off", 1);
    setenv("METAMPI_TCP_IF", "lo", 1);
    setenv("METAMPI_COLL_SHM_FAIL", "0", 1);
    tunables_reset();
    CHECK(tun_size(TUN_EAGER_LIMIT) == 0 && !tun_is_set(TUN_EAGER_LIMIT));
    CHECK(tun_size(TUN_DT_IOV_MIN) == 1u << 30 && tun_is_set(TUN_DT_IOV_MIN));
    CHECK(tun_bool(TUN_COLL_HIER) == 0);
    CHECK(tun_string(TUN_TCP_IF) && strcmp(tun_string(TUN_TCP_IF), "lo") == 0);
    CHECK(tun_string(TUN_DT_IOV_MIN) && strcmp(tun_string(TUN_DT_IOV_MIN), "1G") == 0);
    CHECK(tun_is_set(TUN_COLL_SHM_FAIL) && tun_int(TUN_COLL_SHM_FAIL) == 0);
    CHECK(tun_number(TUN_COLL_HIER) == 0 && tun_enum(TUN_COLL_BARRIER) == 0);
    CHECK(tun_time(TUN_PEER_TIMEOUT) == 60);

    /* read once: later changes are not seen until the cache is reset */
    setenv("METAMPI_DT_IOV_MIN", "8", 1);
    CHECK(tun_size(TUN_DT_IOV_MIN) == 1u << 30);
    tunables_reset();
    CHECK(tun_size(TUN_DT_IOV_MIN) == 8);

    /* a bad value reaches the handler with its one line, at every use */
    setenv("METAMPI_COLL_BARRIER", "fast", 1);
    for (int round = 0; round < 2; round++) {
        caught_msg[0] = '\0';
        if (setjmp(caught) == 0) {
            (void)tun_enum(TUN_COLL_BARRIER);
            CHECK(!"tun_enum returned on a bad value");
        }
        CHECK(strcmp(caught_msg, "METAMPI_COLL_BARRIER=fast is not one of auto, shm, "
                                 "dissemination") == 0);
    }
    /* so does reading a variable as another type: a programming error */
    if (setjmp(caught) == 0) {
        (void)tun_int(TUN_EAGER_LIMIT);
        CHECK(!"tun_int returned on a size");
    }
    CHECK(strstr(caught_msg, "METAMPI_EAGER_LIMIT") && strstr(caught_msg, "internal error"));

    /* the check of a program's variables returns the first error instead */
    char err[640];
    CHECK(tunables_check(TUN_R_GATEWAY, err, sizeof err) == 0);
    CHECK(tunables_check(TUN_R_LIBRARY, err, sizeof err) == -1);
    CHECK(strcmp(err, "METAMPI_COLL_BARRIER=fast is not one of auto, shm, dissemination") == 0);
    CHECK(tun_check(TUN_COLL_BARRIER, err, sizeof err) == -1);
    CHECK(tun_check(TUN_RANK_KEY, err, sizeof err) == 0); /* secrets are their owners' */
    unsetenv("METAMPI_COLL_BARRIER");
    tunables_reset();
    CHECK(tunables_check(TUN_R_LIBRARY | TUN_R_GATEWAY | TUN_R_MPIRUN, err, sizeof err) == 0);

    /* PEER_TIMEOUT through liveness, as the transports and mpirun read it */
    setenv("METAMPI_PEER_TIMEOUT", "soon", 1);
    tunables_reset();
    int secs = -1;
    CHECK(peer_timeout_read(&secs, err, sizeof err) == -1);
    CHECK(strcmp(err, "METAMPI_PEER_TIMEOUT=soon is not a number of seconds from 0 (off) to "
                      "86400") == 0);
    setenv("METAMPI_PEER_TIMEOUT", "7", 1);
    tunables_reset();
    CHECK(peer_timeout_read(&secs, err, sizeof err) == 0 && secs == 7);
    unsetenv("METAMPI_PEER_TIMEOUT");
    unsetenv("METAMPI_DT_IOV_MIN");
    unsetenv("METAMPI_COLL_HIER");
    unsetenv("METAMPI_TCP_IF");
    unsetenv("METAMPI_COLL_SHM_FAIL");
    tunables_reset();
    tunables_on_error(NULL);
}

/* The default error handler: "<program>: <message>" and exit status 1. */
static void test_default_handler(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        setenv("METAMPI_SHM_CMA", "maybe", 1);
        tunables_reset();
        (void)tun_bool(TUN_SHM_CMA);
        _exit(0);
    }
    close(fds[1]);
    char out[512] = "";
    ssize_t n = read(fds[0], out, sizeof out - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK(strcmp(out, "unit_tunables: METAMPI_SHM_CMA=maybe is not one of 0, 1, no, yes, off, "
                      "on, false, true\n") == 0);
}

/* coll_knob and coll_choice_forced take their values from the registry. */
static void test_coll_adapters(void)
{
    setenv("METAMPI_COLL_SHM_BCAST_MAX2", "3k", 1);
    setenv("METAMPI_COLL_SHM", "no", 1);
    setenv("METAMPI_COLL_ALLTOALLV", "pairwise", 1);
    tunables_reset();
    coll_knob_t max2 = { "METAMPI_COLL_SHM_BCAST_MAX2", 2048, 0, 0 };
    coll_knob_t on = { "METAMPI_COLL_SHM", 1, 0, 0 };
    coll_knob_t ranks = { "METAMPI_COLL_GATHER_TREE_RANKS", 5, 0, 0 };
    CHECK(coll_knob(&max2) == 3072 && coll_knob(&on) == 0 && coll_knob(&ranks) == 5);
    static const char *const names[] = { "linear", "pairwise", "bruck" };
    coll_choice_t a2av = { "METAMPI_COLL_ALLTOALLV", names, 2, 0, 0 };
    CHECK(coll_choice_forced(&a2av) == 1);
    static const char *const reordered[] = { "dissemination", "shm" };
    coll_choice_t barrier = { "METAMPI_COLL_BARRIER", reordered, 2, 0, 0 };
    CHECK(coll_choice_forced(&barrier) == -1);
    unsetenv("METAMPI_COLL_SHM_BCAST_MAX2");
    unsetenv("METAMPI_COLL_SHM");
    unsetenv("METAMPI_COLL_ALLTOALLV");
    tunables_reset();
}

/* In a child: stderr and whether it ended with a non-zero status. */
static int child_fails(void (*fn)(void), char *out, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < len && (n = read(fds[0], out + got, len - 1 - got)) > 0)
        got += (size_t)n;
    out[got] = '\0';
    close(fds[0]);
    int status;
    return waitpid(pid, &status, 0) == pid && !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void knob_with_another_default(void)
{
    coll_knob_t k = { "METAMPI_COLL_SHM_BCAST_MAX2", 4096, 0, 0 };
    (void)coll_knob(&k);
}

static void knob_not_registered(void)
{
    coll_knob_t k = { "METAMPI_COLL_NO_SUCH_KNOB", 1, 0, 0 };
    (void)coll_knob(&k);
}

static void choice_with_other_names(void)
{
    static const char *const names[] = { "shm", "tree" };
    coll_choice_t c = { "METAMPI_COLL_BARRIER", names, 2, 0, 0 };
    (void)coll_choice_forced(&c);
}

/* The adapters end the job when the caller and the registry disagree. */
static void test_coll_adapters_disagree(void)
{
    char out[1024];
    CHECK(child_fails(knob_with_another_default, out, sizeof out));
    CHECK(strstr(out, "METAMPI_COLL_SHM_BCAST_MAX2: the default 4096 differs from the "
                      "registry's 2048") != NULL);
    CHECK(child_fails(knob_not_registered, out, sizeof out));
    CHECK(strstr(out, "METAMPI_COLL_NO_SUCH_KNOB: not in the registry") != NULL);
    CHECK(child_fails(choice_with_other_names, out, sizeof out));
    CHECK(strstr(out, "METAMPI_COLL_BARRIER: the registry's choices 'auto,shm,dissemination' "
                      "are not auto and this collective's algorithms") != NULL);
}

int main(void)
{
    test_bool();
    test_int();
    test_size();
    test_pow2();
    test_time();
    test_enum_string();
    test_table();
    test_constants();
    test_accessors();
    test_default_handler();
    test_coll_adapters();
    test_coll_adapters_disagree();
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}
