/*
 * MPI program for the launcher scenario tests: `lt_prog MODE [TARGET [CODE]]`.
 *
 * Every rank calls MPI_Init and prints "ready <rank> <size>". Then rank TARGET does MODE
 * and every other rank either finishes normally (MODE ok/stdin) or blocks forever in
 * MPI_Recv from MPI_ANY_SOURCE (the failure modes), so the job only ends if mpirun tears
 * it down. Just before the failure the target prints "EVENT <CLOCK_MONOTONIC seconds>" so
 * the test can measure how long the teardown took.
 *
 * MODE: ok | stdin | segv | kill | exit (exit CODE without MPI_Finalize) |
 *       exit_after_finalize (all ranks MPI_Finalize, then the target exits CODE and
 *       the others wait forever) | abort (MPI_Abort with CODE) |
 *       block (everyone blocks; the test signals mpirun) |
 *       exit_before_init (the target exits 0 before MPI_Init; the others wait in MPI_Init) |
 *       cpus (every rank prints "cpus <rank> <Cpus_allowed_list> <METAMPI_BIND>" and
 *       finishes normally) |
 *       procname (every rank prints "procname <rank> <MPI_Get_processor_name>", then blocks
 *       like block: ranks on different hosts cannot finalize before the TCP transport)
 */
#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void event(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    printf("EVENT %.6f\n", (double)ts.tv_sec + ts.tv_nsec / 1e9);
    fflush(stdout);
}

static void block_forever(void)
{
    int x;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "unexpected message\n");
    exit(99);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    int target = argc > 2 ? atoi(argv[2]) : 0;
    int code = argc > 3 ? atoi(argv[3]) : 0;
    int rank, size;
    const char *pmi_rank = getenv("PMI_RANK");
    if (strcmp(mode, "exit_before_init") == 0 && pmi_rank && atoi(pmi_rank) == target) {
        event();
        exit(0);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("ready %d %d\n", rank, size);
    fflush(stdout);

    if (strcmp(mode, "ok") == 0) {
        fprintf(stderr, "stderr of rank %d\n", rank);
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "cpus") == 0) {
        /* the affinity the rank runs with after MPI_Init, as the kernel reports it */
        char line[4096], list[4096] = "?";
        FILE *f = fopen("/proc/self/status", "r");
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "Cpus_allowed_list: %4095s", list) == 1)
                break;
        if (f)
            fclose(f);
        const char *bind = getenv("METAMPI_BIND");
        printf("cpus %d %s %s\n", rank, list, bind ? bind : "unset");
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "procname") == 0) {
        char name[MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_Get_processor_name(name, &len);
        printf("procname %d %s\n", rank, name);
        fflush(stdout);
        block_forever();
    }
    if (strcmp(mode, "stdin") == 0) {
        /* count the bytes and a simple checksum of stdin */
        unsigned long long n = 0, sum = 0;
        unsigned char buf[8192];
        ssize_t k;
        while ((k = read(0, buf, sizeof buf)) > 0)
            for (ssize_t i = 0; i < k; i++, n++)
                sum = sum * 31 + buf[i];
        printf("stdin %d %llu %llu\n", rank, n, sum);
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "exit_after_finalize") == 0) {
        /* MPI_Finalize is collective: everyone finalizes, then only the target exits */
        MPI_Finalize();
        if (rank != target)
            for (;;)
                pause();
        event();
        exit(code);
    }
    if (rank != target || strcmp(mode, "block") == 0)
        block_forever();

    if (strcmp(mode, "segv") == 0) {
        event();
        raise(SIGSEGV);
    } else if (strcmp(mode, "kill") == 0) {
        event();
        raise(SIGKILL);
    } else if (strcmp(mode, "exit") == 0) {
        event();
        exit(code);
    } else if (strcmp(mode, "abort") == 0) {
        event();
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    fprintf(stderr, "lt_prog: unknown mode %s\n", mode);
    return 2;
}
