/*
 * MPI_PACKED buffers on communicators of several architectures (issue 19;
 * docs/heterogeneity-conversion.md): MPI_Pack's format stays the writer's native bytes, and a
 * buffer begun on such a communicator (position 0) starts with a header naming the writer's
 * architecture, so any member can MPI_Unpack it, converting when the writer is unlike it.
 *
 * The bytes that travel stay the writer's: a receive of MPI_PACKED from a rank of another
 * architecture puts the header naming the sender first (proto/recv.c), and a send of MPI_PACKED
 * leaves out a header naming the sender itself (core/p2p.c), so that a typed receive gets the
 * bare stream. A header may be followed by another: the data were packed by the inner one's
 * writer and forwarded as MPI_PACKED by the outer one's; MPI_Unpack believes the inner one.
 * MPI-free, below the protocols, which write it.
 *
 * Header (PACKED_ARCH_HEADER bytes): the magic "MPK" and a version byte (1), the writer's
 * descriptor in arch.h's wire form, zeros to a multiple of 8.
 */
#ifndef METAMPI_DT_ENGINE_PACKED_ARCH_H
#define METAMPI_DT_ENGINE_PACKED_ARCH_H

#include "util/arch.h"

#include <stddef.h>

#define PACKED_ARCH_HEADER ((4 + ARCH_WIRE_SIZE + 7) / 8 * 8)

/* Writes the header naming this process's architecture at out. */
void packed_arch_write(void *out);
/* Writes the header naming architecture a at out. */
void packed_arch_write_of(const arch_desc_t *a, void *out);
/* 1 with *writer set when the size bytes at buf begin with a valid header; 0 otherwise. */
int packed_arch_read(const void *buf, size_t size, arch_desc_t *writer);

#endif
