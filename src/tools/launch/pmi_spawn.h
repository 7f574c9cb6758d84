/*
 * A rank's request to start new ranks (MPI_Comm_spawn, _multiple), as it arrives over the
 * PMI-1 connection in several lines, each answered at once:
 *
 *   cmd=spawn_app maxprocs=N execname=HEX        -> cmd=spawn_ack rc=0   a new application
 *   cmd=spawn_arg value=HEX                      -> cmd=spawn_ack rc=0   its next argument
 *   cmd=spawn_info key=HEX value=HEX             -> cmd=spawn_ack rc=0   its next info pair
 *   cmd=spawn_preput key=KEY value=VALUE         -> cmd=spawn_ack rc=0   a pair for the new
 *                                                                       part's space
 *   cmd=spawn                                    -> cmd=spawn_result ... (pmi_server.h)
 *
 * HEX is the string's bytes in lowercase hex (arguments and info may hold spaces, which a
 * PMI value cannot); the empty string travels as "-". A request is bounded (PMI_SPAWN_*): one
 * beyond a bound is refused with rc=-1 on the line that crossed it and with rc=-1 at
 * cmd=spawn, so a rank cannot make mpirun buffer without bound. A line that is malformed
 * (missing field, bad hex, arg before app) is an invalid PMI command like any other.
 */
#ifndef MPIRUN_PMI_SPAWN_H
#define MPIRUN_PMI_SPAWN_H

#include "runtime/pmi_wire.h"

#include <stddef.h>

#define PMI_SPAWN_MAX_APPS  1024
#define PMI_SPAWN_MAX_PROCS 4096          /* ranks of one request, all apps */
#define PMI_SPAWN_MAX_BYTES (1u << 20)    /* strings of one request */

typedef struct pmi_spawn_app {
    char *execname;
    int maxprocs;
    char **argv;        /* argc arguments after the command */
    int argc;
    char **info;        /* key, value, ... (2 * ninfo strings) */
    int ninfo;
} pmi_spawn_app_t;

typedef struct pmi_spawn_req {
    pmi_spawn_app_t *app;
    int napps, nprocs;
    char **preput;      /* key, value, ... (2 * npreput strings) */
    int npreput;
    size_t bytes;
    int refused;        /* a bound was crossed: cmd=spawn answers rc=-1 */
} pmi_spawn_req_t;

enum { PMI_SPAWN_OK = 0, PMI_SPAWN_REFUSED = 1, PMI_SPAWN_INVALID = -1 };

/* Nonzero for the commands pmi_spawn_line takes (all of the above but cmd=spawn). */
int pmi_spawn_is_part(const char *cmd);
/* Adds one line to r (zeroed before the first). PMI_SPAWN_OK, PMI_SPAWN_REFUSED (a bound;
 * r->refused is set) or PMI_SPAWN_INVALID (malformed). */
int pmi_spawn_line(pmi_spawn_req_t *r, const pmi_msg_t *m);
/* The value of an info key of app a, or NULL. */
const char *pmi_spawn_info(const pmi_spawn_app_t *a, const char *key);
void pmi_spawn_free(pmi_spawn_req_t *r);

/* Hex coding of the protocol ("-" for the empty string). encode writes 2*len+1 bytes (at
 * least 2); decode returns a malloc'ed string, or NULL when s is not valid hex or decodes to
 * a string holding a NUL. */
void pmi_spawn_hex_encode(const char *s, char *out);
char *pmi_spawn_hex_decode(const char *s);

#endif
