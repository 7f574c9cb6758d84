/*
 * mpirun / mpiexec: starts the ranks of one MPI job on this host.
 *
 * Module map (mpirun's own files):
 *   options.c      command line -> mpirun_opts_t
 *   job.c          job policy: event loop, first-failure report, exit status, binding policy
 *
 * Shared with the per-host helper, in ../launch (mechanism, no policy):
 *   binding.c      CPU topology (hwloc) and the CPU set of each rank
 *   teardown.c     escalation schedule, /dev/shm clean-up
 *   node.c         the ranks of this host: spawn + PMI + I/O
 *   spawn.c        fork/exec of one rank with a controlled fd set and CPU affinity
 *   pmi_server.c   PMI-1 server, kvs.c its key-value space
 *   iofwd.c        line-buffered output forwarding, stdin forwarding
 *   jobenv.c       the job's environment model (-x)
 *   evloop.c       poll(2) loop
 */
#include "job.h"
#include "options.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

/* A closed fd 0, 1 or 2 would be reused by the first fd mpirun opens (e.g. the signalfd),
 * which would then be read as stdin or written as output. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0)
            open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
}

/* Each rank costs mpirun up to four fds. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int main(int argc, char **argv)
{
    ensure_std_fds();
    mpirun_opts_t opts;
    int rc = options_parse(argc, argv, &opts);
    if (rc != OPTIONS_RUN) {
        options_free(&opts);
        return rc == OPTIONS_EXIT_OK ? 0 : 1;
    }
    raise_fd_limit();
    int status = job_run(&opts);
    options_free(&opts);
    return status;
}
