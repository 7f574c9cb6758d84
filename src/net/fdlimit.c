#include "net/fdlimit.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static int spare = -1;

long fdlimit_raise(long want)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0)
        return -1;
    rlim_t target = want < 0 ? r.rlim_max : (rlim_t)want;
    if (r.rlim_max != RLIM_INFINITY && target > r.rlim_max)
        target = r.rlim_max;
    if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < target) {
        struct rlimit n = { target, r.rlim_max };
        if (setrlimit(RLIMIT_NOFILE, &n) == 0)
            r.rlim_cur = target;
    }
    return r.rlim_cur == RLIM_INFINITY ? (long)((~0UL) >> 1) : (long)r.rlim_cur;
}

void fdlimit_reserve(void)
{
    if (spare < 0)
        spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int fdlimit_shed(int lfd)
{
    if (spare < 0)
        return -1;
    close(spare);
    spare = -1;
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd >= 0)
        close(fd);
    fdlimit_reserve();
    return fd >= 0 ? 0 : -1;
}
