/*
 * The rendezvous of one federated job (metampi-rendezvous): accepts the parts (one mpirun
 * per site) on a listening socket, authenticates them with the job key, checks each JOIN
 * against the description, and once every site of the description has joined hands every
 * part the same LAYOUT; then it serves the running job's parts (numbers for spawned ranks,
 * rdv_server_serve.c) until each has closed its connection, and returns. The protocol is
 * rdv_wire.h.
 *
 * Policy:
 *   - a connection that does not prove the key, sends anything but a valid HELLO and JOIN,
 *     or takes longer than RDV_JOIN_WAIT_MS for them, is dropped (logged); the other parts
 *     notice nothing;
 *   - a JOIN for another job, an unknown site, a site that has already joined, another list
 *     of sites or [wan] settings, or too many ranks is REFUSED with the reason (logged); so
 *     is, with X.509, a JOIN for a site the part's certificate does not name; the rest go on;
 *   - with X.509, a part whose certificate does not chain to the CA or is revoked fails the
 *     TLS handshake and is dropped (logged, naming the certificate and why);
 *   - a joined part whose connection ends before the layout has left: its site is missing
 *     again and may join anew;
 *   - the clock starts with the first JOIN accepted (the server may be started long before
 *     the batch systems start the parts): when timeout_ms pass without every site joined,
 *     every waiting part gets ABORT naming the missing sites and the run ends with status 1;
 *   - SIGINT, SIGTERM or SIGHUP (signal_fd): ABORT to every waiting part, status 1;
 *   - at most RDV_MAX_PENDING connections may be in the handshake at once: beyond, the oldest
 *     is dropped once it had RDV_EVICT_GRACE_MS to answer, and newer ones wait in the
 *     kernel's queue until then; out of descriptors, the oldest in the handshake is dropped,
 *     or the waiting connection is closed at once (net/accept.h: a flood can neither exhaust
 *     the server's descriptors nor keep a part out: a part whose attempt was dropped
 *     connects again, rdv_client.h);
 *   - "dropped a connection" lines: at most NET_NOTES_MAX per minute, then one line with the
 *     count (net/notes.h).
 * Nothing is started by the server; when it returns, it has closed every connection.
 */
#ifndef RDV_SERVER_H
#define RDV_SERVER_H

#include "net/auth.h"

#define RDV_JOIN_WAIT_MS 10000    /* from connect to a valid JOIN */
#define RDV_FLUSH_WAIT_MS 10000   /* for the last frames (LAYOUT, ABORT) to leave */
#define RDV_MAX_PENDING 64
#define RDV_EVICT_GRACE_MS 250

typedef struct rdv_server_config {
    const char *job;                 /* the job ID */
    const char *const *sites;        /* the description's site names, in order */
    int nsites;
    const char *wan;                 /* its [wan] settings, as the parts send them */
    auth_key_t key;                  /* the rendezvous key (auth.h: AUTH_RENDEZVOUS) */
    int x509;                        /* TLS by certificates (net_secure_x509_load done): a
                                      * part's must chain to the CA and name the site it
                                      * joins; else the PSK from the key */
    long long timeout_ms;            /* from the first JOIN accepted */
    int listen_fd;                   /* listening, non-blocking */
    int signal_fd;                   /* signalfd for SIGINT/SIGTERM/SIGHUP, or -1 */
    /* Log lines (no prefix, no newline); NULL: none. */
    void (*log)(void *ctx, const char *text);
    void *log_ctx;
} rdv_server_config_t;

/* Runs the rendezvous to its end: 0 when the layout went to every site (and every part has
 * closed its connection since, or a signal stopped the server then), 1 when the job was
 * called off (timeout, signal) or the layout could not be delivered to every part. */
int rdv_server_run(const rdv_server_config_t *cfg);

#endif
