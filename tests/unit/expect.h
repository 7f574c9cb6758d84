/* The checks the unit tests share. EXPECT(cond) and EXPECTF(cond, fmt, ...) report a failed
 * check on stderr as "FAIL file:line: ..." and count it in `failures` (the test exits with 1
 * at the EXPECT_MAX_FAILURES-th, so a check in a loop cannot flood the log); expect_done(name)
 * ends main: "name: ok" on stdout and 0, or the count of failures on stderr and 1. Included
 * by a test's one source file (the counter is static). */
#ifndef METAMPI_TESTS_UNIT_EXPECT_H
#define METAMPI_TESTS_UNIT_EXPECT_H

#include <stdio.h>
#include <stdlib.h>

enum { EXPECT_MAX_FAILURES = 50 };
static int failures;

#define EXPECTF(cond, ...)                                                                     \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            if (++failures >= EXPECT_MAX_FAILURES)                                             \
                exit(1);                                                                       \
        }                                                                                      \
    } while (0)

#define EXPECT(cond) EXPECTF(cond, "%s", #cond)

static inline int expect_done(const char *name)
{
    if (failures) {
        fprintf(stderr, "%s: %d failure(s)\n", name, failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

#endif
