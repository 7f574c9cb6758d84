#include "net/notes.h"

int net_notes_roll(net_notes_t *n, long long now)
{
    if (now - n->window < NET_NOTES_WINDOW_MS)
        return 0;
    int held = n->held;
    n->window = now;
    n->written = n->held = 0;
    return held;
}

int net_notes_take(net_notes_t *n, long long now, int *held)
{
    *held = net_notes_roll(n, now);
    if (n->written < NET_NOTES_MAX) {
        n->written++;
        return 1;
    }
    n->held++;
    return 0;
}
