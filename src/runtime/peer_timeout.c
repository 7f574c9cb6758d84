#include "runtime/peer_timeout.h"

#include "runtime/tunables.h"

int peer_timeout_parse(const char *text, int *seconds, char *err, size_t errlen)
{
    unsigned long long v;
    if (tun_parse(TUN_PEER_TIMEOUT, text, &v, err, errlen) != 0)
        return -1;
    *seconds = (int)v;
    return 0;
}

int peer_timeout_read(int *seconds, char *err, size_t errlen)
{
    if (tun_check(TUN_PEER_TIMEOUT, err, errlen) != 0)
        return -1;
    *seconds = (int)tun_time(TUN_PEER_TIMEOUT);
    return 0;
}
