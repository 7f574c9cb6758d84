/*
 * Every rank's architecture (util/arch.h), as exchanged at startup (issue 19,
 * docs/heterogeneity.md). Each rank publishes its descriptor with the kernel's boot id in the
 * one per-rank key it already writes before the first start-up barrier (hosts.c,
 * "metampi.machine.<rank>"), and reads everyone's in the same get that told it which ranks
 * share its machine: no extra barrier, no extra key.
 *
 * Ranks of unlike architecture never share memory: two of them on one host refuse to start
 * (peer_arch_check_hosts), since the shared-memory transport, cross-memory attach and the
 * shared-memory collectives move native bytes.
 */
#ifndef METAMPI_RUNTIME_PEER_ARCH_H
#define METAMPI_RUNTIME_PEER_ARCH_H

#include "util/arch.h"

#include <stddef.h>

/* The architecture of world rank r as exchanged at startup; never NULL (arch_local() for
 * this rank and in a job of one architecture). */
const arch_desc_t *peer_arch(int world_rank);
/* 1 when every rank of the job has arch_same() data as this one: the fast paths need no check.
 * Inline, one load: it is asked on every point-to-point call. */
extern int peer_arch_ndistinct; /* architectures in the job (peer_arch.c); 0 before MPI_Init */
#ifdef METAMPI_HETERO_OFF
/* Built with -DMETAMPI_HETERO=OFF: an integer constant expression, so every conversion branch
 * compiles away; peer_arch_record refuses a rank of another architecture instead. */
#define peer_arch_all_same() 1
#else
static inline int peer_arch_all_same(void)
{
    return peer_arch_ndistinct <= 1;
}
#endif

/* ---- the exchange (hosts.c and MPI_Init) ---- */
/* ARCH_WIRE_SIZE * 2 hex digits and a NUL: this rank's descriptor as a key-value text. */
#define PEER_ARCH_HEX (2 * ARCH_WIRE_SIZE)
void peer_arch_local_hex(char out[PEER_ARCH_HEX + 1]);
/* Starts a job of size ranks (all like this one until told otherwise). 0, or -1 with err. */
int peer_arch_open(int size, char *err, size_t errlen);
/* Records rank r's descriptor from its text. 0, or -1 with err (names the rank). */
int peer_arch_record(int r, const char *hex, char *err, size_t errlen);
/* Records every rank's descriptor from the launcher's summary "HEX:RANGES;HEX:RANGES..."
 * (RANGES "0-3,8"; tools/launch/arch_summary.h), which must name each of the size ranks
 * once. 0, or -1 with err. */
int peer_arch_record_summary(const char *summary, int size, char *err, size_t errlen);
/* The same for a summary of some of the ranks (a federated part's, core/federated_arch.c).
 * 0, or -1 with err. */
int peer_arch_record_part(const char *summary, int size, char *err, size_t errlen);
/* 1 when rank r's descriptor was recorded (this rank's own is not, unless recorded). */
int peer_arch_known(int world_rank);
/* The summary of ranks[0..n) (ascending) as recorded, in the launcher's form, into out[cap].
 * Its length, or -1 when it does not fit. */
int peer_arch_format_part(const int *ranks, int n, char *out, size_t cap);
/* -1 with err naming both ranks, their architectures and the host when two ranks of unlike
 * architecture share a host (host_of[r]: the host index of rank r); else 0. */
int peer_arch_check_hosts(const int *host_of, int size, int self, const char *hostname,
                          char *err, size_t errlen);
void peer_arch_close(void);

#endif
