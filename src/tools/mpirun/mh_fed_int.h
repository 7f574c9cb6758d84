/*
 * mh_fed's inside (mh_fed.h is the interface): the state of a part's connection to the
 * rendezvous server, shared by mh_fed.c (numbers, gateways, the other parts' spaces) and
 * mh_fed_relay.c (messages to the other sites' mpiruns: spawns asked of them, gets).
 */
#ifndef MPIRUN_MH_FED_INT_H
#define MPIRUN_MH_FED_INT_H

#include "mh_fed.h"
#include "mh_spawn.h"

#include "rdv_link.h"

/* A RANKS received: a part spawned anywhere in the job. Invariant: the records are in the
 * server's order, bases contiguous from the world's size on. */
typedef struct fed_part {
    uint32_t tag, base, count;
    char kvsname[RDV_KVSNAME_MAX + 1];
    int asked;        /* the helper (index into m->host) a GW_RANKS went to; -1: none */
    int site;         /* the site whose mpirun started it */
    int has_kvs;      /* another part's: its static space */
    kvs_t kvs;
} fed_part_t;

/* A message to another site's mpirun awaiting its answer, for a rank here. Invariant: ids
 * are unique (next_id only grows); every entry is answered exactly once: by the answer, by
 * the server's UNREACHED or GONE, when the connection is lost, or at its deadline (a stuck
 * mpirun there: METAMPI_FED_TIMEOUT); an answer that finds no entry is dropped (a spawn's
 * children are then never started: mh_fed_relay.c, CONFIRM). */
enum { WAIT_SPAWN = 0, WAIT_GET = 1, WAIT_CMD = 2 };

typedef struct fed_wait {
    uint32_t id;
    int site;
    int get;          /* WAIT_SPAWN (answer: RESULT), WAIT_GET (a get_result line) or
                       * WAIT_CMD (a shared-space command's reply line) */
    char *key;        /* the get's key; the command's name */
    long long deadline;   /* net_now_ms() past which it is answered for; 0: none */
    spawn_origin_t o;
} fed_wait_t;

struct mh_fed {
    mh_spawn_t *s;
    mh_t *m;
    rdv_link_t *l;
    int lost;
    char why[600];
    fed_part_t *p;
    uint32_t n;
    uint32_t next;    /* the base the next RANKS must have */
    int early;        /* frames came with the layout: read them at the first round of the
                       * loop (after the helpers have their JOB), announced by POLLOUT */
    fed_wait_t *w;    /* the messages awaiting an answer */
    uint32_t nw, next_id;
    long long timeout_ms; /* METAMPI_FED_TIMEOUT; 0: wait for ever */
    int idle_told;        /* what the other sites were told last (IDLE): 1 idle, 0 busy */
    unsigned char *idle;  /* per site: its mpirun said IDLE 1 last (its ranks all exited) */
    unsigned char *gone;  /* per site: its connection ended (GONE) */
    strv_t world;     /* the other sites' world kvsnames (their parts' node 0), ... */
    int *world_site;  /* ... and their sites */
};

/* mh_fed.c: watch the link again (after output); the connection is of no further use. */
void mh_fed_watch(mh_fed_t *f);
void mh_fed_lose(mh_fed_t *f, const char *why);

/* mh_fed_relay.c: a RELAY from the server; the connection is lost (every message awaiting
 * an answer is answered: refused, not found); the waiting list freed. */
void mh_fed_on_relay(mh_fed_t *f, const rdv_relay_t *msg);
void mh_fed_relay_lost(mh_fed_t *f);
void mh_fed_relay_free(mh_fed_t *f);
/* Answers for the messages past their deadline; folds the next one into timeout. */
void mh_fed_relay_timers(mh_fed_t *f, long long now, int *timeout);
/* Tells every other site's mpirun our world's kvsname (at the start). */
void mh_fed_relay_start(mh_fed_t *f);

#endif
