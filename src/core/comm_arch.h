/* Whether a communicator's members are of more than one architecture (issue 19): MPI_Pack
 * then marks its buffers with the writer's architecture (docs/heterogeneity-conversion.md). */
#ifndef METAMPI_CORE_COMM_ARCH_H
#define METAMPI_CORE_COMM_ARCH_H

#include "core/comm.h"

/* 1 when some member of c (either group of an inter-communicator) has data of another
 * architecture than this process; 0 at once in a job of one architecture. */
int comm_arch_mixed(const comm_t *c);

#endif
