/*
 * Spawning in a part of a federated job (docs/dynproc.md, "Federated jobs"): the part's
 * connection to the rendezvous server (rendezvous/rdv_link.h), kept while it runs, is its
 * way to the other parts.
 *   - numbers: a part spawned here gets its job-wide numbers from the server (NUMBERS; the
 *     answer is a RANKS to every part, mh_spawn_numbered for ours);
 *   - gateways: every RANKS, ours or another part's, in the order received, becomes a
 *     GW_RANKS to this site's gateway; its answer goes back to the server (GW_OK), which
 *     hands it to the spawning part (mh_spawn_gw_answer for ours);
 *   - other parts' children: from each RANKS of another part this mpirun keeps that part's
 *     static space (metampi.part.base, the site layout, the gateways' addresses), which the
 *     ranks here read when they meet those children (mh_fed_space).
 * A lost connection (the server was stopped) leaves the job running; spawning fails from then
 * on with the reason (mh_spawn_fed_lost).
 */
#ifndef MPIRUN_MH_FED_H
#define MPIRUN_MH_FED_H

#include "mh_int.h"

#include "kvs.h"
#include "parts_ctl.h"

#include <stdint.h>

struct rdv_link;
struct mh_spawn;
typedef struct mh_fed mh_fed_t;

/* One request's origin: a rank here (h, node, rank), or another site's mpirun (site >= 0,
 * its request id). */
typedef struct spawn_origin {
    mhost_t *h;
    uint32_t node, rank;
    int site;
    uint32_t id;
} spawn_origin_t;

/* Watches l in m's loop (l stays the caller's: part.c closes it after the run). */
mh_fed_t *mh_fed_new(struct mh_spawn *s, mh_t *m, struct rdv_link *l);
/* Stops watching (before m's loop is freed). NULL is accepted. */
void mh_fed_free(mh_fed_t *f);
/* NULL while spawning works, else why not. */
const char *mh_fed_broken(const mh_fed_t *f);
/* Asks for numbers for our new part kvsname of n ranks at sites site_of[]: 0, or -1 (why). */
int mh_fed_ask(mh_fed_t *f, const char *kvsname, const int *site_of, int n, char *why,
               size_t cap);
/* A GW_READY of helper h (its node is the tag of a GW_RANKS sent by mh_fed). */
void mh_fed_gw_ready(mh_fed_t *f, mhost_t *h, const ctl_frame_t *fr);
/* The space of another part's spawned ranks, or NULL. */
const kvs_t *mh_fed_space(const mh_fed_t *f, const char *kvsname);

/* Messages to the other sites' mpiruns (RELAY through the server; mh_fed.c lists them).
 * A spawn request req of rank o (parents named by parent: "<kvsname>,<rank>", our world's
 * kvsname world) for the mpirun of site, which starts the part there; its answer (or why
 * none comes: that mpirun has gone, the server has) goes to o as the RESULT. 0, or -1 with
 * why (the connection is lost). */
int mh_fed_spawn_at(mh_fed_t *f, int site, const spawn_origin_t *o, const char *world,
                    const char *parent, const pmi_spawn_req_t *req, char *why, size_t cap);
/* A get for key of kvsname (f NULL accepted): when kvsname is a part spawned at another
 * site or another site's world, the get goes there and its answer to o later (1); else 0
 * (answer it here). */
int mh_fed_get_at(mh_fed_t *f, const char *kvsname, const char *key, const spawn_origin_t *o);
/* The site of world kvsname k when it is another site's (its part's node 0), else -1 (f NULL
 * accepted). */
int mh_fed_world_site(const mh_fed_t *f, const char *k);
/* A shared-space command (jobspace.h) line of rank o: the job's shared space is kept by the
 * mpirun of the description's first site; at another site the line goes there and its
 * reply to o later (1); else 0 (answer it here). f NULL accepted. */
int mh_fed_shared_at(mh_fed_t *f, const char *cmd, const char *line, const spawn_origin_t *o);
/* The deadlines of the messages awaiting answers (mh_spawn_timers). f NULL accepted. */
void mh_fed_timers(mh_fed_t *f, long long now, int *timeout);
/* Whether every rank of this part has exited and nothing is being started here (idle): the
 * other sites' mpiruns are told when that changes (IDLE). 1 while another site is busy
 * (neither idle nor gone): this part must keep its gateway and its mpirun up, since ranks
 * there may still spawn here; 0 when it may end (also when the connection is lost: nobody
 * can spawn any more). */
int mh_fed_hold(mh_fed_t *f, int idle);
/* The result of a part site asked us for (its id): kvsname and size, or why not. A success
 * is not final: the part starts once that site confirms (mh_spawn_confirmed), since the
 * asking rank may have been answered for meanwhile (its deadline). */
void mh_fed_spawned(mh_fed_t *f, int site, uint32_t id, const char *kvsname, int size,
                    const char *why);

/* mh_spawn.c's side. The numbers of our part kvsname (why "": base.. and parts GW_OKs to
 * come; else refused); a site's gateway answer about our part at base; the connection is
 * lost (every part of ours still waiting is refused). */
void mh_spawn_numbered(struct mh_spawn *s, const char *kvsname, uint32_t base, uint32_t parts,
                       const char *why);
void mh_spawn_gw_answer(struct mh_spawn *s, uint32_t base, const char *site, const char *why);
void mh_spawn_fed_lost(struct mh_spawn *s, const char *why);
/* The mpirun of site confirmed (yes) or declined our part started for its request id, or
 * cannot answer (yes 0; all: every part of that site's, which is gone): it starts or is
 * dropped. */
void mh_spawn_confirmed(struct mh_spawn *s, int site, uint32_t id, int all, int yes);
/* A shared-space command line from another site: the reply line into out. */
void mh_spawn_shared(struct mh_spawn *s, const char *line, char *out, size_t cap);
/* The space of node 0 (under our world kvsname or another site's) or of a part
 * started here, or NULL. */
const kvs_t *mh_spawn_own_space(const struct mh_spawn *s, const char *kvsname);
/* A request from the mpirun of site (its id), the asking part's world kvsname and the
 * parents; fields the request as parts_req_encode wrote it. */
void mh_spawn_remote(struct mh_spawn *s, int site, uint32_t id, const char *world,
                     const char *parent, ctl_strs_t fields);


#endif
