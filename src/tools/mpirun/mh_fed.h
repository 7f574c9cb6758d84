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

#include <stdint.h>

struct rdv_link;
struct mh_spawn;
typedef struct mh_fed mh_fed_t;

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

/* mh_spawn.c's side. The numbers of our part kvsname (why "": base.. and parts GW_OKs to
 * come; else refused); a site's gateway answer about our part at base; the connection is
 * lost (every part of ours still waiting is refused). */
void mh_spawn_numbered(struct mh_spawn *s, const char *kvsname, uint32_t base, uint32_t parts,
                       const char *why);
void mh_spawn_gw_answer(struct mh_spawn *s, uint32_t base, const char *site, const char *why);
void mh_spawn_fed_lost(struct mh_spawn *s, const char *why);

#endif
