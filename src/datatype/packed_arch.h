/*
 * MPI_PACKED buffers on communicators of several architectures (issue 19;
 * docs/heterogeneity-conversion.md): MPI_Pack's format stays the writer's native bytes, and a
 * buffer begun on such a communicator (position 0) starts with a header naming the writer's
 * architecture, so any member can MPI_Unpack it, converting when the writer is unlike it.
 *
 * Header (PACKED_ARCH_HEADER bytes): the magic "MPK" and a version byte (1), the writer's
 * descriptor in arch.h's wire form, zeros to a multiple of 8.
 */
#ifndef METAMPI_DATATYPE_PACKED_ARCH_H
#define METAMPI_DATATYPE_PACKED_ARCH_H

#include "util/arch.h"

#include <stddef.h>

#define PACKED_ARCH_HEADER ((4 + ARCH_WIRE_SIZE + 7) / 8 * 8)

/* Writes the header naming this process's architecture at out. */
void packed_arch_write(void *out);
/* 1 with *writer set when the size bytes at buf begin with a valid header; 0 otherwise. */
int packed_arch_read(const void *buf, size_t size, arch_desc_t *writer);

#endif
