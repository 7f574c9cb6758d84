/*
 * The fields of a PARTS frame (ctl.h): how a job on several hosts spawns (docs/dynproc.md,
 * "Several hosts"). All fields are strings; numbers are decimal. node 0 is the job's first
 * node (the ranks mpirun started with), node k >= 1 the part "<job's kvsname>.s<k>".
 *
 *   SPAWN       H->M rank = local index of the asking rank in node;
 *               fields = the request (parts_req_encode)
 *   ASK         H->M rank, fields = { line }: a PMI command the helper cannot answer
 *   PUT         H->M fields = { key, value }
 *   BARRIER_IN  H->M the node's ranks of this host are in its barrier (their puts went
 *               before, as PUTs)
 *   READY       H->M fields = { "" } or { why }: the part's programs resolved on this host
 *   PART        M->H fields = the part's share of this host (parts_def_encode)
 *   GO          M->H rank = 1: start the part's ranks here; 0: drop it
 *   ANSWER      M->H rank, fields = { line } ("" = an invalid command)
 *   RESULT      M->H rank, fields = { kvsname, size } or { "", why }
 *   BARRIER_OUT M->H fields = key, value, ...: every host's puts of the barrier
 *   GW_RANKS    M->H to a host that runs a site gateway, before GO of a part in a job of
 *               several sites: fields = { base, count, sites } (the part's job-wide numbers
 *               and their sites, run-length coded as the gateway's --rank-sites)
 *   GW_READY    H->M fields = { "" } or { why }: the gateway knows them (hostd/gwgrow.h)
 *
 * Decoders check every count against the fields that remain and every number's range; a
 * frame that does not decode is a protocol error of its sender.
 */
#ifndef LAUNCH_PARTS_CTL_H
#define LAUNCH_PARTS_CTL_H

#include "channel.h"
#include "ctl.h"
#include "pmi_spawn.h"

#include <stdint.h>

/* A growing vector of owned strings (the fields being built). */
typedef struct strv {
    char **v;
    uint32_t n, cap;
} strv_t;

void strv_push(strv_t *s, const char *str);
void strv_pushf(strv_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strv_free(strv_t *s);

/* Sends one PARTS frame; 0, or -1 when it exceeds CTL_MAX_FRAME (nothing sent). */
int parts_ctl_send(chan_t *ch, uint8_t op, uint32_t node, uint32_t rank,
                   const char *const *fields, uint32_t n);

void parts_req_encode(const pmi_spawn_req_t *r, strv_t *out);
/* 0, or -1 (malformed); r is zeroed first and owns its strings (pmi_spawn_free). */
int parts_req_decode(ctl_strs_t f, pmi_spawn_req_t *r);

/* One application of a part (as mpirun resolved nothing: the host resolves it). */
typedef struct parts_app {
    char *execname, *pathdir, *wdir;   /* pathdir, wdir: "" = none */
    char **argv;                       /* argc arguments after the command */
    int argc;
} parts_app_t;

/* A part's share of one host. */
typedef struct parts_def {
    char *kvsname;
    int size;            /* ranks of the part (PMI_SIZE) */
    int base;            /* job-wide number of its rank 0 */
    char *mapping;       /* PMI_process_mapping of the part */
    int nlocal;
    int *rank;           /* per local index: the rank in the part, ascending */
    int *app;            /* per local index: its application */
    parts_app_t *apps;
    int napps;
    char **kv;           /* key, value, ...: in the part's space before any rank starts */
    int nkv;             /* pairs */
} parts_def_t;

void parts_def_encode(const parts_def_t *d, strv_t *out);
int parts_def_decode(ctl_strs_t f, parts_def_t *d);
void parts_def_free(parts_def_t *d);

#endif
