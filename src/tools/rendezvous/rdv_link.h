/*
 * The part's connection to the rendezvous server while the job runs (docs/dynproc.md,
 * "Federated jobs"): the authenticated TLS connection of the join (rdv_client.h), kept, with
 * its frame MACs' sequence numbers, for the frames of spawning (rdv_wire.h: NUMBERS and GW_OK
 * out, RANKS and GW_OK in) and the parts' messages to each other (RELAY both ways).
 * Non-blocking: the owner watches rdv_link_fd for POLLIN, and for POLLOUT while
 * rdv_link_wants_out says output waits.
 */
#ifndef RDV_LINK_H
#define RDV_LINK_H

#include "rdv_wire.h"

#include "net/secure.h"

typedef struct rdv_link {
    int fd;
    net_secure_t *sec;
    rdv_mac_ctx_t tx, rx;
    unsigned char *in;          /* bytes read, not yet a whole frame */
    size_t inlen, incap;
    rdv_buf_t out;
    size_t outoff;
    char server[RDV_HOST_MAX + 16];
} rdv_link_t;

/* What came from the server: a RANKS (r) or a GW_OK (r->base, r->site, r->why), or a RELAY
 * (m; r unset). */
typedef void (*rdv_link_cb)(void *ctx, uint8_t type, const rdv_ranks_t *r,
                            const rdv_relay_t *m);

int rdv_link_fd(const rdv_link_t *l);
int rdv_link_wants_out(const rdv_link_t *l);
/* The frames; they leave as the socket takes them (rdv_link_flush). 0, or -1 (err: the
 * connection is lost). */
int rdv_link_numbers(rdv_link_t *l, const char *kvsname, uint32_t count, const char *sites,
                     char *err, size_t errlen);
int rdv_link_gw_ok(rdv_link_t *l, uint32_t base, uint32_t site, const char *why, char *err,
                   size_t errlen);
/* A message for the part of another site (kind >= RDV_RELAY_KINDS): 0, or -1 (err: too large,
 * or the connection is lost). */
int rdv_link_relay(rdv_link_t *l, uint32_t site, uint32_t kind, uint32_t id,
                   const char *const *fields, uint32_t n, char *err, size_t errlen);
int rdv_link_flush(rdv_link_t *l, char *err, size_t errlen);
/* Reads what is there and calls cb for each frame, first those read with the layout (the
 * owner calls it once without a poll's word when the link has such bytes: inlen > 0). 0, or
 * -1 with err (the server closed the connection, or broke the protocol: the link is of no
 * further use). */
int rdv_link_read(rdv_link_t *l, rdv_link_cb cb, void *ctx, char *err, size_t errlen);
/* Closes and frees it; NULL is accepted. */
void rdv_link_close(rdv_link_t *l);

#endif
