/* linux/tcp.h, not netinet/tcp.h: glibc's struct tcp_info lacks the delivery rate. */
#include "rate.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

double gw_stream_rate(int fd, int *app_limited)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    *app_limited = 0;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
        len < offsetof(struct tcp_info, tcpi_delivery_rate) + sizeof ti.tcpi_delivery_rate)
        return 0;
    *app_limited = ti.tcpi_delivery_rate_app_limited;
    return (double)ti.tcpi_delivery_rate;
}
