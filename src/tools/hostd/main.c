/*
 * metampi-hostd HOST: the per-host helper of mpirun (hostd.h). Not meant to be run by hand:
 * its stdin and stdout are mpirun's control channel.
 */
#include "hostd.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: metampi-hostd HOST\n"
                        "The helper of a metampi job on several hosts. mpirun starts it through "
                        "its launch agent and speaks to it on stdin/stdout.\n");
        return 2;
    }
    if (fcntl(2, F_GETFD) < 0)
        open("/dev/null", O_WRONLY);
    /* The channel moves off fds 0 and 1: nothing else (a stray printf, a library) may write
     * into it. Stray output goes to stderr instead, stdin reads /dev/null. */
    int ctl_in = fcntl(0, F_DUPFD_CLOEXEC, 3);
    int ctl_out = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (ctl_in < 0 || ctl_out < 0) {
        fprintf(stderr, "metampi-hostd %s: no control channel on stdin/stdout\n", argv[1]);
        return 1;
    }
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(2, 1) < 0) {
        fprintf(stderr, "metampi-hostd %s: cannot redirect stdin/stdout\n", argv[1]);
        return 1;
    }
    if (null > 2)
        close(null);
    return hostd_run(ctl_in, ctl_out, argv[1]);
}
