/* wanemu's command line. */
#ifndef WANEMU_OPTIONS_H
#define WANEMU_OPTIONS_H

#include "link.h"

#include <stddef.h>
#include <stdint.h>

typedef struct wan_options {
    const char *tun;        /* TUN device to attach to */
    const char *ready;      /* file created once attached, or NULL */
    uint64_t seed;          /* of the loss generator: equal seeds, equal losses */
    int gso;                /* large TCP segments through the device (tun.h) */
    unsigned flip_port;     /* SIGUSR1's flip takes a segment from or to it; 0: any */
    wan_params_t p;         /* the same for every link (direction between two sites) */
} wan_options_t;

extern const char wanemu_usage[];

/* Fills o from argv (defaults for what is not given). Returns 0, 1 for --help, or -1 with
 * a message naming the bad argument in err. */
int options_parse(int argc, char **argv, wan_options_t *o, char *err, size_t errlen);

#endif
