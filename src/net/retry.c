#include "net/retry.h"

long long net_retry_failed(net_retry_t *r, long long now)
{
    if (r->fails++ == 0)
        r->since = now;
    int shift = r->fails < 16 ? r->fails - 1 : 15;
    long long wait = (long long)r->min_ms << shift;
    return wait < r->max_ms ? wait : r->max_ms;
}

void net_retry_reset(net_retry_t *r)
{
    r->fails = 0;
    r->since = 0;
}
