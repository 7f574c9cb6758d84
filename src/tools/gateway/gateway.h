/*
 * metampi-gateway: the communication daemon of one site (PACX-MPI's, seed digest §1). It
 * carries every frame between its site's ranks and the other sites over one WAN link per
 * other site (link.h: N TCP streams, sequence numbers, batches, pieces, compression).
 *
 * One listening socket, on the site's WAN address (config.h), takes both its site's ranks
 * and the other sites' gateways; every connection proves a key derived from the job key for
 * its kind (net/gw_wire.h, net/auth.h) before anything else is read. The gateway of
 * the lower site opens the links' streams, or the one that is unreachable (behind NAT). The daemon's files: gateway_int.h.
 *
 * Life cycle: started by the launcher with the ranks (metampi-hostd on the site's gateway
 * host), ended by SIGTERM at the end of the job (killed in a teardown): then it says BYE on its
 * streams, so the other gateways see an end on purpose. A WAN link lost (an end of stream
 * without BYE, a socket error, nothing read for --timeout ms, a malformed frame), a link that
 * cannot be opened, or an address it cannot listen on end it with one line on --report-fd
 * naming both sites, the address and the cause, and exit status 1. A rank's connection that
 * ends without BYE is not reported here (the launcher reports the rank); frames for that rank
 * are dropped from then on.
 */
#ifndef GATEWAY_GATEWAY_H
#define GATEWAY_GATEWAY_H

#include "config.h"
#include "net/auth.h"

/* Runs the gateway with the job key until SIGTERM (0) or a failure (1, after the report). */
int gateway_run(const gw_config_t *c, const auth_key_t *key);

#endif
