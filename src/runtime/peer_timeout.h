/*
 * METAMPI_PEER_TIMEOUT as the registry reads it: T of net/liveness.h (docs/liveness.md), for
 * the transports, mpirun and the gateway. Here rather than in net/ because the network
 * library stays below the runtime and its registry.
 */
#ifndef METAMPI_PEER_TIMEOUT_H
#define METAMPI_PEER_TIMEOUT_H

#include <stddef.h>

/* T from text (NULL or "": the default, LIVENESS_DEFAULT_S; at most LIVENESS_MAX_S). 0 with
 * *seconds, or -1 with a message in err naming the variable. */
int peer_timeout_parse(const char *text, int *seconds, char *err, size_t errlen);

/* T from this process's environment, the same way. */
int peer_timeout_read(int *seconds, char *err, size_t errlen);

#endif
