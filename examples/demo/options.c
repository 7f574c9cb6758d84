#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: mpirun -n N metampi-demo [options]\n"
    "A 3-D Jacobi solver (Poisson equation, 7-point stencil) on a grid split over a\n"
    "Cartesian communicator: ghost faces exchanged with the six neighbours every step,\n"
    "a global reduction (MPI_Allreduce of the residual), time per step split into\n"
    "computation, communication within a site and communication across the WAN.\n"
    "  --grid N | NXxNYxNZ   global grid (interior points; default 96)\n"
    "  --steps N             Jacobi steps (default 100)\n"
    "  --reduce-every K      reduce the residual every K steps (default 1)\n"
    "  --warmup W            steps left out of the mean times (default 2)\n"
    "  --times FILE          write the per-step times (mean over ranks) to FILE\n"
    "  --progress MODE       auto (bar on a terminal, else lines) | bar | lines | none\n"
    "  --help\n";

static int fail(int rank, const char *opt, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(int rank, const char *opt, const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "metampi-demo: %s: ", opt);
        vfprintf(stderr, fmt, ap);
        fputs(" (see --help)\n", stderr);
        va_end(ap);
    }
    return 2;
}

/* A whole number in [lo, hi] making up all of s[0..len). */
static int parse_int(const char *s, size_t len, long lo, long hi, int *out)
{
    if (len == 0 || len > 12 || s[0] == '-' || s[0] == '+')
        return -1;
    char buf[16], *end;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* N or NXxNYxNZ, each from 1 to 4096. */
static int parse_grid(const char *s, int grid[3])
{
    const char *x1 = strchr(s, 'x');
    if (!x1) {
        if (parse_int(s, strlen(s), 1, 4096, &grid[0]))
            return -1;
        grid[1] = grid[2] = grid[0];
        return 0;
    }
    const char *x2 = strchr(x1 + 1, 'x');
    if (!x2)
        return -1;
    return parse_int(s, (size_t)(x1 - s), 1, 4096, &grid[0]) ||
           parse_int(x1 + 1, (size_t)(x2 - x1 - 1), 1, 4096, &grid[1]) ||
           parse_int(x2 + 1, strlen(x2 + 1), 1, 4096, &grid[2]);
}

int options_parse(int argc, char **argv, int rank, demo_options_t *o)
{
    *o = (demo_options_t){ .grid = { 96, 96, 96 }, .steps = 100, .reduce_every = 1,
                           .warmup = 2, .times_file = NULL, .progress = PROGRESS_AUTO };
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            if (rank == 0)
                fputs(usage, stdout);
            return 1;
        }
        if (strncmp(opt, "--", 2) != 0)
            return fail(rank, opt, "unexpected argument (options start with --)");
        const char *val = strchr(opt, '=');
        char name[32];
        size_t nlen = val ? (size_t)(val - opt) : strlen(opt);
        if (nlen >= sizeof name)
            return fail(rank, opt, "unknown option");
        memcpy(name, opt, nlen);
        name[nlen] = '\0';
        if (val)
            val++;
        else if (i + 1 < argc)
            val = argv[++i];
        else
            return fail(rank, name, "missing value");

        if (!strcmp(name, "--grid")) {
            if (parse_grid(val, o->grid))
                return fail(rank, name, "expected N or NXxNYxNZ, each from 1 to 4096, got '%s'",
                            val);
        } else if (!strcmp(name, "--steps")) {
            if (parse_int(val, strlen(val), 1, 1000000, &o->steps))
                return fail(rank, name, "expected a whole number from 1 to 1000000, got '%s'", val);
        } else if (!strcmp(name, "--reduce-every")) {
            if (parse_int(val, strlen(val), 1, 1000000, &o->reduce_every))
                return fail(rank, name, "expected a whole number from 1 to 1000000, got '%s'", val);
        } else if (!strcmp(name, "--warmup")) {
            if (parse_int(val, strlen(val), 0, 1000000, &o->warmup))
                return fail(rank, name, "expected a whole number from 0 to 1000000, got '%s'", val);
        } else if (!strcmp(name, "--times")) {
            if (!*val)
                return fail(rank, name, "expected a file name");
            o->times_file = val;
        } else if (!strcmp(name, "--progress")) {
            if (!strcmp(val, "auto"))
                o->progress = PROGRESS_AUTO;
            else if (!strcmp(val, "bar"))
                o->progress = PROGRESS_BAR;
            else if (!strcmp(val, "lines"))
                o->progress = PROGRESS_LINES;
            else if (!strcmp(val, "none"))
                o->progress = PROGRESS_NONE;
            else
                return fail(rank, name, "expected auto, bar, lines or none, got '%s'", val);
        } else {
            return fail(rank, name, "unknown option");
        }
    }
    if (o->warmup >= o->steps)
        o->warmup = o->steps - 1;
    return 0;
}
