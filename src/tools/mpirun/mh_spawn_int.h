/*
 * mpirun's spawning, inside (mh_spawn.h is the interface): the parts and the state shared by
 * mh_spawn.c (placing, starting and serving parts) and mh_spawn_fed.c (a part of a federated
 * job: numbers from the rendezvous server, spawns asked for by another site's mpirun).
 */
#ifndef MPIRUN_MH_SPAWN_INT_H
#define MPIRUN_MH_SPAWN_INT_H

#include "mh_spawn.h"

#include "jobspace.h"
#include "kvs.h"
#include "mh_fed.h"
#include "parts_ctl.h"
#include "runtime/pmi_wire.h"

typedef struct mh_part {
    uint32_t id;
    char kvsname[PMI_WIRE_KVSNAME_MAX + 1];
    int base, size;
    int *slot;                  /* per rank of the part: its host (index into m->host) */
    unsigned char *involved;    /* per helper (room for every host of the list): runs ranks
                                 * of the part */
    int ninvolved, nready, refused, go;
    unsigned char *ready;       /* per host */
    char why[600];              /* the first host's reason to refuse */
    mhost_t *from;              /* the asking rank's helper, node and local index */
    uint32_t from_node, from_rank;
    kvs_t kvs;                  /* every put of the part's ranks */
    strv_t journal;             /* the puts since its last barrier */
    unsigned char *in_barrier;  /* per host */
    int nbarrier;
    unsigned char *departed;    /* per rank */
    unsigned char *gw_asked;    /* per helper: a GW_RANKS went there, no GW_READY yet */
    int gw_wait;                /* GW_READYs still to come (several sites, gateways); in a
                                 * federated job the sites' GW_OKs */
    int numbering;              /* federated: waiting for its numbers (mh_fed.h) */
    int confirming;             /* federated, asked for by another site: ready, waiting for
                                 * that site's CONFIRM before GO (mh_spawn_confirmed) */
    pmi_spawn_req_t req;        /* federated: the request, kept until the numbers come */
    char *parent;               /* federated: metampi.part.parent, kept as well */
    int remote_site;            /* federated: asked for by the mpirun of this site (its
                                 * request id remote_id; mh_fed.h), or -1: by a rank here */
    uint32_t remote_id;
} mh_part_t;

struct mh_spawn {
    mh_t *m;
    kvs_t first;                /* node 0's puts */
    jobspace_t *shared;
    mh_part_t **part;
    int nparts;
    uint32_t made;              /* parts made (started or not): the next id is made + 1 */
    int next_id;                /* job-wide number of the next rank placed */
    int *used;                  /* per host of the list: ranks placed there */
    int cursor;                 /* the next host (of the list) of the round robin */
    mh_fed_t *fed;              /* a part of a federated job: numbers and the other parts'
                                 * gateways through the rendezvous server (mh_fed.h) */
};

/* Places, numbers and starts a part for req (owned by the callee from now on) asked for by o,
 * its parents named by parent ("<kvsname>,<rank>"); the answer goes to o (send_result). */
void mh_spawn_part(mh_spawn_t *s, const spawn_origin_t *o, pmi_spawn_req_t *req,
                   const char *parent);
/* The answer to p's origin: kvsname and size, or why not (kvsname NULL). */
void mh_spawn_result(mh_spawn_t *s, mh_part_t *p, const char *kvsname, int size,
                     const char *why);
void mh_spawn_launch(mh_spawn_t *s, mh_part_t *p, const pmi_spawn_req_t *req,
                     const char *parent);
void mh_spawn_drop(mh_spawn_t *s, mh_part_t *p);
void mh_spawn_decide(mh_spawn_t *s, mh_part_t *p);
/* Tells p's helpers GO (go: start; p->go) or to drop it (p freed; the origin answered
 * already). */
void mh_spawn_start(mh_spawn_t *s, mh_part_t *p, int go);
void mh_spawn_note_refusal(mh_part_t *p, const char *why);
/* The site the request goes to in a federated job: -1 ours, >= 0 another (every info key
 * host names a host there), or -2 with why (hosts at several sites). */
int mh_spawn_request_site(const mh_spawn_t *s, const pmi_spawn_req_t *req, char *why,
                          size_t cap);

#endif
