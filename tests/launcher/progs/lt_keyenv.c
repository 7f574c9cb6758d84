/*
 * The key a rank gets never reaches a process the rank starts (issue 15, item 10). Before
 * MPI_Init the program notes the key its launcher gave it (METAMPI_RANK_KEY; before, ranks
 * got the job key itself in METAMPI_JOB_KEY) and checks it was not given the job key; after
 * MPI_Init the key must be gone from its environment, from the memory /proc/self/environ
 * shows, and from the environment of a child it starts (system(), so fork and exec of a
 * shell). Then the ranks talk (a ring and an allreduce), which the transports' keys, read
 * before the variable went, must still allow.
 *   lt_keyenv [required]     required: fail when no key came at all (a job on several hosts)
 * Rank 0 prints "keyenv ok".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1;

static void fail(const char *what)
{
    fprintf(stderr, "lt_keyenv: rank %d: %s\n", rank, what);
    exit(3);
}

/* Everything a command writes on its standard output (NUL bytes included), into buf. */
static size_t slurp(const char *cmd, char *buf, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        fail("cannot start a child");
    size_t n = fread(buf, 1, cap - 1, p);
    if (pclose(p) != 0)
        fail("the child failed");
    buf[n] = '\0';
    return n;
}

static int holds(const char *buf, size_t n, const char *what)
{
    return what[0] && memmem(buf, n, what, strlen(what)) != NULL;
}

int main(int argc, char **argv)
{
    int required = argc > 1 && strcmp(argv[1], "required") == 0;
    const char *v = getenv("METAMPI_RANK_KEY");
    if (!v)
        v = getenv("METAMPI_JOB_KEY");
    char key[128] = "";
    if (v)
        snprintf(key, sizeof key, "%s", v);
    if (required && !key[0])
        fail("no key from the launcher before MPI_Init");
    int job_key_given = getenv("METAMPI_JOB_KEY") != NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (job_key_given)
        fail("a rank was given the job key (METAMPI_JOB_KEY)");
    if (getenv("METAMPI_RANK_KEY") || getenv("METAMPI_JOB_KEY"))
        fail("the key is still in the environment after MPI_Init");
    static char buf[1 << 20];
    FILE *f = fopen("/proc/self/environ", "r");
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    if (holds(buf, n, key))
        fail("the key is still in the memory of the environment after MPI_Init");
    n = slurp("cat /proc/self/environ", buf, sizeof buf);
    if (n == 0)
        fail("the child's environment is empty");
    if (holds(buf, n, "METAMPI_RANK_KEY=") || holds(buf, n, "METAMPI_JOB_KEY=") ||
        holds(buf, n, key))
        fail("a child started after MPI_Init inherited the key");
    int token = rank, from = (rank + size - 1) % size, sum = 0;
    MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, from, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (token != from || sum != size * (size - 1) / 2)
        fail("the ranks cannot talk");
    if (rank == 0)
        printf("keyenv ok\n");
    MPI_Finalize();
    return 0;
}
