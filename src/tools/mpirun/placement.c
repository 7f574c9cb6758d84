#include "placement.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void placement_place(const hostlist_t *l, int np, int by_node, int *host_of)
{
    long total = hostlist_slots(l);
    int round = np < total ? np : (int)total;   /* ranks of one pass over the slots */
    if (!by_node) {
        int r = 0;
        for (int h = 0; h < l->n && r < round; h++)
            for (int s = 0; s < l->h[h].slots && r < round; s++)
                host_of[r++] = h;
    } else {
        int *used = calloc((size_t)l->n, sizeof *used);
        if (!used)
            util_xmalloc((size_t)-1);
        int r = 0;
        while (r < round)
            for (int h = 0; h < l->n && r < round; h++)
                if (used[h] < l->h[h].slots) {
                    used[h]++;
                    host_of[r++] = h;
                }
        free(used);
    }
    for (int r = round; r < np; r++)
        host_of[r] = host_of[r % round];
}

void placement_place_sites(const hostlist_t *l, const int *host_site, int np, int by_node,
                           int *host_of)
{
    long total = hostlist_slots(l), lo = 0;
    int r0 = 0;
    for (int first = 0; first < l->n;) {
        int end = first + 1;
        while (end < l->n && host_site[end] == host_site[first])
            end++;
        hostlist_t site = { .h = l->h + first, .n = end - first };
        long slots = hostlist_slots(&site);
        /* ranks r < np with r mod total in [lo, lo + slots): the site's share */
        long rest = np % total - lo;
        long n = (np / total) * slots + (rest < 0 ? 0 : rest > slots ? slots : rest);
        placement_place(&site, (int)n, by_node, host_of + r0);
        for (long r = 0; r < n; r++)
            host_of[r0 + r] += first;
        r0 += (int)n;
        lo += slots;
        first = end;
    }
}

char *placement_mapping(const int *host_of, int np, size_t max)
{
    size_t cap = 64, len = 0;
    char *s = util_xmalloc(cap);
    len = (size_t)snprintf(s, cap, "(vector");
    int r = 0;
    while (r < np) {
        int h = host_of[r];
        int per = 1;
        while (r + per < np && host_of[r + per] == h)
            per++;
        /* further blocks of `per` ranks on the hosts h+1, h+2, ... */
        int count = 1;
        for (;;) {
            int start = r + count * per;
            if (start + per > np)
                break;
            int same = 1;
            for (int i = 0; i < per && same; i++)
                same = host_of[start + i] == h + count;
            /* the block must end there, else it belongs to a longer run */
            if (same && start + per < np && host_of[start + per] == h + count)
                same = 0;
            if (!same)
                break;
            count++;
        }
        char t[48];
        int tl = snprintf(t, sizeof t, ",(%d,%d,%d)", h, count, per);
        if (len + (size_t)tl + 2 > cap) {
            cap = 2 * (len + (size_t)tl + 2);
            s = util_xrealloc(s, cap);
        }
        memcpy(s + len, t, (size_t)tl + 1);
        len += (size_t)tl;
        r += count * per;
    }
    s[len++] = ')';
    s[len] = '\0';
    if (len > max)
        s[0] = '\0';
    return s;
}
