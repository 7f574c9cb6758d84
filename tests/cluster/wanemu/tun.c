#include "tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int tun_attach(const char *name, int gso, char *err, size_t errlen)
{
    if (strlen(name) >= IFNAMSIZ) {
        snprintf(err, errlen, "TUN device name '%s' is longer than %d characters", name,
                 IFNAMSIZ - 1);
        return -1;
    }
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open /dev/net/tun: %s", strerror(errno));
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI | (gso ? IFF_VNET_HDR : 0);
    memcpy(ifr.ifr_name, name, strlen(name));
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        snprintf(err, errlen, "cannot attach to TUN device %s: %s", name, strerror(errno));
        close(fd);
        return -1;
    }
    if (gso && ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6) < 0) {
        snprintf(err, errlen, "cannot enable segmentation offload on %s: %s", name,
                 strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}
