/*
 * The architecture of every rank of the job (issue 19). This is the interface agreed between
 * the helpers of issue 19 (notes: s28-common.md); the architecture exchange at startup is the
 * `hetero` branch's, and this branch carries a minimal stand-in (every rank is this one's
 * architecture) so the conversion compiles and like peers take today's paths.
 */
#ifndef METAMPI_RUNTIME_PEER_ARCH_H
#define METAMPI_RUNTIME_PEER_ARCH_H

#include "util/arch.h"

/* The architecture of world rank r as exchanged at startup; never NULL (arch_local() for
 * this rank and in a job of one architecture). */
const arch_desc_t *peer_arch(int world_rank);
/* 1 when every rank of the job has arch_same() data as this one: the fast paths need no check. */
int peer_arch_all_same(void);

#endif
