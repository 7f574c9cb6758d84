#include "core/progress.h"

#include "core/errors.h"
#include "proto/eager.h"
#include "runtime/job.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>

int progress_poll(void)
{
    int events = 0;
    char err[256];
    for (int i = 0; i < proto_transport_count(); i++) {
        int n = proto_transport(i)->progress(err, sizeof err);
        if (n < 0)
            err_fatal(MPI_ERR_OTHER, "progress", "%s", err);
        events += n;
    }
    return events;
}

/* Sleeps until a transport or the launcher connection has something to say. */
static void wait_for_input(void)
{
    enum { MAXFDS = 4096 };
    static struct pollfd fds[MAXFDS];
    int n = 0;
    int launcher = job_launcher_fd();
    if (launcher >= 0)
        fds[n++] = (struct pollfd){ .fd = launcher, .events = POLLIN };
    for (int i = 0; i < proto_transport_count(); i++)
        n += proto_transport(i)->pollfds(fds + n, MAXFDS - n);
    int rc = poll(fds, (nfds_t)n, 1000);
    if (rc < 0 && errno != EINTR)
        err_fatal(MPI_ERR_INTERN, "progress", "poll failed");
    /* The launcher never speaks unasked: input or hang-up there means it is gone. */
    if (launcher >= 0 && fds[0].revents)
        err_fatal(MPI_ERR_OTHER, "progress", "lost the connection to the launcher");
}

void progress_wait(volatile int *flag)
{
    while (!*flag) {
        if (progress_poll() == 0 && !*flag)
            wait_for_input();
    }
}
