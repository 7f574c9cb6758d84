/*
 * The part's side of a federated start (mpirun --rendezvous): connect to the rendezvous
 * server, prove the job key, JOIN with this site's ranks and hosts, and wait for the world
 * layout (rdv_wire.h has the protocol).
 *
 * Blocking, with deadlines: connecting is retried while the server is not there yet (it may
 * be started after some parts), and while it closes the connection before its verdict (a
 * flood makes it drop the oldest connections in the handshake), for up to connect_wait_ms; the answer to the JOIN must come
 * within RDV_JOIN_ANSWER_MS; then the part waits for as long as the server said it would wait
 * (WAITING's ms_left) plus RDV_LAYOUT_GRACE_MS, so a server that hangs cannot keep a part
 * waiting for ever. A signal on sigfd (a signalfd) ends the wait at once.
 */
#ifndef RDV_CLIENT_H
#define RDV_CLIENT_H

#include "rdv_wire.h"

#define RDV_JOIN_ANSWER_MS 30000
#define RDV_LAYOUT_GRACE_MS 30000

typedef struct rdv_request {
    const char *job, *site;
    const char *const *sites;   /* the description's site names, in order */
    uint32_t nsites;
    const char *wan;           /* the description's [wan] settings (rdv_wire.h, JOIN) */
    uint32_t nranks;
    const char *const *hosts;
    uint32_t nhosts;
    const uint32_t *rank_host; /* nranks entries */
    const char *gateway;       /* "IPv4:port" or "" */
    /* TLS by certificates (net_secure_x509_load done with this site's files): the server's
     * must chain to the CA and name the host of `server` (DNS name or IP address, as
     * given); else the PSK from the key */
    int x509;
    /* called once when the server says which sites have not joined yet (names separated by
     * ", ") and how long it waits for them; NULL: not told */
    void (*waiting)(const char *missing, unsigned seconds_left);
} rdv_request_t;

/* The layout as received: l points into body; free with rdv_result_free. */
typedef struct rdv_result {
    unsigned char *body;
    rdv_layout_t *l;
} rdv_result_t;

enum { RDV_CLIENT_OK = 0, RDV_CLIENT_FAIL = 1, RDV_CLIENT_SIGNAL = 2 };

/* server: "HOST:PORT" ("[v6addr]:PORT" too); key: the rendezvous key, derived from the job
 * key (auth.h: AUTH_RENDEZVOUS). RDV_CLIENT_OK with *res; RDV_CLIENT_FAIL with
 * one line in err (the server refused the part or called the job off — its text is quoted —,
 * or cannot be reached, or broke the protocol); RDV_CLIENT_SIGNAL with *signo. */
struct rdv_link;
/* link: NULL closes the connection once the layout is there; else *link is the connection,
 * kept for the running job (rdv_link.h; NULL when out of memory: the part cannot spawn). */
int rdv_client_join(const char *server, const auth_key_t *key, const rdv_request_t *req,
                    int connect_wait_ms, int sigfd, rdv_result_t *res, int *signo,
                    struct rdv_link **link, char *err, size_t errlen);
void rdv_result_free(rdv_result_t *res);

/* Splits "HOST:PORT" / "[HOST]:PORT"; 0, or -1 when it is not of that form (port
 * min_port..65535). */
int rdv_split_hostport(const char *s, char *host, size_t hostcap, char *port, size_t portcap,
                       int min_port);

#endif
